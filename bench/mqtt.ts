import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { createApp } from '../src/app.ts';
import { createAccount } from '../src/accounts/accounts.ts';
import { showToken } from '../src/accounts/tokens.ts';
import { loadConfig } from '../src/config.ts';
import { db } from '../src/db/client.ts';
import { startMosquitto, watchBroker } from '../test/support/mosquitto-broker.ts';
import { serveOverHttp } from './bench-app.ts';
import { seedIssueLibrary } from './seed-library.ts';

/**
 * `npm run bench:mqtt`: the time from a mark to its state on the MQTT broker (issue 34). A real
 * Mosquitto broker on a free port, the server in this process publishing to it (AIRDATE_MQTT_URL),
 * one opted-in account with issue 14's library (500 shows × 50 episodes, 100 movies, 100 games),
 * and a client subscribed to the account's topics as Home Assistant is. BENCH_MARKS (50) times, one
 * after the other: POST /api/machine/watched over HTTP toggles an episode, and the clock runs until
 * the `unwatched_episodes` state with the new count arrives at the client. Prints p50, p99 and max,
 * and the size of each state and attributes message. SQLite in a fresh data folder, or PostgreSQL
 * with BENCH_DATABASE_URL (an empty database).
 */
const marks = Number(process.env.BENCH_MARKS ?? 50);
const broker = await startMosquitto();
const dataDir = mkdtempSync(path.join(tmpdir(), 'airdate-mqtt-bench-'));
const config = loadConfig({ AIRDATE_DATA_DIR: dataDir, AIRDATE_LOG_LEVEL: 'warn', AIRDATE_RATE_LIMIT_PER_MINUTE: '0', AIRDATE_MQTT_URL: broker.url, DATABASE_URL: process.env.BENCH_DATABASE_URL });
const app = await createApp(config);
await app.started;
const served = await serveOverHttp(app);

const account = await createAccount({ name: `mqtt-bench-${Date.now()}`, timezone: 'UTC' });
await seedIssueLibrary(account.id, config.database.kind);
const token = await showToken({ accountId: account.id });
await db().account.update({ where: { id: account.id }, data: { homeAssistantMqtt: true } });
const watcher = await watchBroker(broker);
const device = await watcher.until(() => [...watcher.latest()].find(([topic, payload]) => topic.endsWith('/unwatched_episodes/state') && payload !== ''), 60_000, 'the first state');
const deviceId = device[0].split('/')[1]!;
const stateTopic = `airdate/${deviceId}/unwatched_episodes/state`;
const sizes = [...watcher.latest()].filter(([topic]) => topic.startsWith(`airdate/${deviceId}/`)).map(([topic, payload]) => `${topic.split('/').slice(2).join('/')} ${Buffer.byteLength(payload)} B`);
console.log(`messages at 500 shows: ${sizes.join(', ')}`);

// An aired episode (not a special: the count leaves those out) of a followed show, not watched.
const episode = await db().episode.findFirstOrThrow({
  where: { season: { gte: 1 }, airDate: { lte: new Date().toISOString().slice(0, 10) }, show: { libraryRows: { some: { accountId: account.id, followed: true } } }, watchStates: { none: { accountId: account.id, watched: true } } },
  select: { id: true },
});
const times: number[] = [];
for (let index = 0; index < marks; index += 1) {
  const before = Number(watcher.latest().get(stateTopic));
  const watched = index % 2 === 0;
  const started = performance.now();
  const since = Date.now();
  const answer = await fetch(`${served.baseUrl}/api/machine/watched`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ kind: 'episode', id: episode.id, watched }),
  });
  if (answer.status !== 200) throw new Error(`mark answered ${answer.status}`);
  const expected = String(watched ? before - 1 : before + 1);
  await watcher.until(() => watcher.messages.some((message) => message.at >= since && message.topic === stateTopic && message.payload === expected), 10_000, `state ${expected}`);
  times.push(performance.now() - started);
}
times.sort((a, b) => a - b);
const at = (fraction: number) => times[Math.min(times.length - 1, Math.ceil(fraction * times.length) - 1)]!.toFixed(0);
console.log(
  `${config.database.kind}: ${marks} marks (POST /api/machine/watched) to the unwatched_episodes state on the broker: p50 ${at(0.5)} ms, p99 ${at(0.99)} ms, max ${times.at(-1)!.toFixed(0)} ms (rounds every 500 ms; load ${loadavg().map((load) => load.toFixed(1)).join(' ')})`,
);
await watcher.close();
await served.close();
await app.close();
await broker.close();
rmSync(dataDir, { recursive: true, force: true });
