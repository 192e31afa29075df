import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createApp } from '../src/app.ts';
import { encryptSecret } from '../src/keys/crypto.ts';
import { secretKey } from '../src/keys/secret-key.ts';
import { generateWebhookSecret } from '../src/keys/token-format.ts';
import { loadConfig } from '../src/config.ts';
import { db } from '../src/db/client.ts';
import { addDays, localDate } from '../src/time/dates.ts';
import { webhookChannelRow } from '../src/accounts/webhook-setting.ts';

/**
 * `npm run bench:releases`: the 30-minute release check over 10 000 accounts, 1 000 of which have
 * an episode out today (in their own time zone), delivering to a local webhook receiver. Every
 * account has a webhook and follows ten shows; the others' shows air ten days either side of
 * today. Prints the time from starting the jobs to the last delivery and deliveries per second.
 * Target: ≤ 30 s. BENCH_ACCOUNTS / BENCH_RELEASING change the sizes; BENCH_DATABASE_URL=postgres://…
 * runs it on PostgreSQL (an empty database).
 */
const accounts = Number(process.env.BENCH_ACCOUNTS ?? 10_000);
const releasing = Number(process.env.BENCH_RELEASING ?? 1_000);
const zones = ['UTC', 'Europe/Berlin', 'America/New_York', 'Asia/Tokyo', 'Pacific/Auckland'];
const showsPerZone = 20;
const quietShows = 500;
const followsPerAccount = 10;

// The receiver: counts deliveries, answers 204 at once.
let delivered = 0;
let firstDeliveryAt = 0;
let lastDeliveryAt = 0;
const receiver = createServer((request, response) => {
  request.resume();
  request.on('end', () => {
    delivered += 1;
    lastDeliveryAt = performance.now();
    firstDeliveryAt ||= lastDeliveryAt;
    response.writeHead(204).end();
  });
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const webhookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

const dataDir = mkdtempSync(path.join(tmpdir(), 'airdate-bench-releases-'));
const config = loadConfig({
  AIRDATE_DATA_DIR: dataDir,
  AIRDATE_LOG_LEVEL: 'warn',
  AIRDATE_WEBHOOK_ALLOWED_HOSTS: 'loopback',
  AIRDATE_JOB_POLL_MS: '200',
  DATABASE_URL: process.env.BENCH_DATABASE_URL,
});
const app = await createApp(config);
const now = new Date();

let started = performance.now();
await seed();
console.log(`${config.database.kind}: seeded ${accounts} accounts (${releasing} with a release today) × ${followsPerAccount} follows in ${seconds(started)} s`);

started = performance.now();
// Starting the jobs creates the 30-minute jobs, which run at once: that first check is measured.
await app.jobs.start();
const startedIn = performance.now() - started;
while (delivered < releasing || (await db().notification.count({ where: { status: 'delivered' } })) < releasing) {
  if (performance.now() - started > 300_000) throw new Error(`only ${delivered} of ${releasing} deliveries after 300 s`);
  await new Promise((resolve) => setTimeout(resolve, 50));
}
const total = (lastDeliveryAt - started) / 1000;
const notifications = await db().notification.count();
console.log(
  `release check: ${releasing} deliveries in ${total.toFixed(1)} s from start (jobs started in ${(startedIn / 1000).toFixed(1)} s, first delivery after ${((firstDeliveryAt - started) / 1000).toFixed(1)} s), ` +
    `${(releasing / total).toFixed(0)} deliveries/s; ${notifications} notification rows, ${delivered} requests received (target ≤ 30 s)`,
);
await app.close();
receiver.close();

function seconds(since: number): string {
  return ((performance.now() - since) / 1000).toFixed(1);
}

async function seed(): Promise<void> {
  const far = (days: number) => addDays(localDate('UTC', now), days);
  // Shows airing today in each zone (its own local date), and quiet ones airing ten days away.
  const zoneShows = new Map<string, number[]>();
  for (const zone of zones) {
    const today = localDate(zone, now);
    const ids: number[] = [];
    for (let index = 0; index < showsPerZone; index++) {
      const show = await db().show.create({
        data: {
          tmdbId: 9_000_000 + zones.indexOf(zone) * 1_000 + index,
          title: `Releasing ${zone} ${index}`,
          episodes: { create: [{ season: 1, number: 1, airDate: far(-30) }, { season: 1, number: 2, title: 'Today', airDate: today }] },
        },
      });
      ids.push(show.id);
    }
    zoneShows.set(zone, ids);
  }
  const quiet: number[] = [];
  for (let index = 0; index < quietShows; index++) {
    const show = await db().show.create({
      data: {
        tmdbId: 8_000_000 + index,
        title: `Quiet ${index}`,
        episodes: { create: [{ season: 1, number: 1, airDate: far(-10) }, { season: 1, number: 2, airDate: far(10) }] },
      },
    });
    quiet.push(show.id);
  }

  const followedAt = new Date(now.getTime() - 90 * 86_400_000);
  for (let from = 0; from < accounts; from += 1_000) {
    const batch = Array.from({ length: Math.min(1_000, accounts - from) }, (_, offset) => from + offset);
    await db().account.createMany({
      data: batch.map((index) => ({
        name: `bench-${index}`,
        timezone: zones[index % zones.length]!,
        webhookSecretEnc: encryptSecret(generateWebhookSecret(), secretKey()),
      })),
    });
    const ids = new Map((await db().account.findMany({ where: { name: { in: batch.map((index) => `bench-${index}`) } }, select: { id: true, name: true } })).map((row) => [row.name, row.id]));
    await db().notificationChannel.createMany({ data: [...ids.values()].map((accountId) => webhookChannelRow(accountId, webhookUrl)) });
    const rows = batch.flatMap((index) => {
      const accountId = ids.get(`bench-${index}`)!;
      const shows = new Set<number>();
      // Spread the releasing accounts over the whole range, so the check cannot find them early.
      if (index % Math.floor(accounts / releasing) === 0 && index / Math.floor(accounts / releasing) < releasing) {
        const own = zoneShows.get(zones[index % zones.length]!)!;
        shows.add(own[index % own.length]!);
      }
      for (let pick = 0; shows.size < followsPerAccount; pick++) shows.add(quiet[(index * 7 + pick * 13) % quiet.length]!);
      return [...shows].map((showId) => ({ accountId, kind: 'show', showId, followed: true, followExplicit: true, followedAt }));
    });
    await db().libraryItem.createMany({ data: rows });
  }
}
