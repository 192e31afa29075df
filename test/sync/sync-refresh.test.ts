import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, it } from 'vitest';
import { db } from '../../src/db/client.ts';
import { addDays, localDate } from '../../src/time/dates.ts';
import { jobNames } from '../../src/jobs.ts';
import { updateAccount } from '../../src/accounts/accounts.ts';
import { setFollow } from '../../src/library/library.ts';
import { useTestApp } from '../support/database.ts';
import { makeAccount } from '../support/factories.ts';
import { call } from '../support/http.ts';
import { startWebhookReceiver } from '../support/webhook-receiver.ts';

/** The catalog refresh the sync and the 30-minute job run, seen end to end through the offline catalog file. */
const today = localDate('UTC', new Date());
const catalogFile = path.join(mkdtempSync(path.join(tmpdir(), 'airdate-sync-catalog-')), 'catalog.json');
const writeCatalog = (movieDate: string, episodeDate: string | null) =>
  writeFileSync(catalogFile, JSON.stringify({
    shows: [{ ids: { tmdb: 424_242 }, title: 'Slow Horses', episodes: [{ season: 5, number: 1, title: 'Missing', air_date: '2020-01-01' }, ...(episodeDate ? [{ season: 5, number: 2, title: 'Found', air_date: episodeDate }] : [])] }],
    movies: [{ ids: { tmdb: 535_353 }, title: 'Moved Up', release_date: movieDate }],
    games: [],
  }));
writeCatalog(addDays(today, 40), null);

const { app } = await useTestApp({ AIRDATE_CATALOG_FILE: catalogFile, AIRDATE_WEBHOOK_ALLOWED_HOSTS: 'loopback', AIRDATE_JOB_POLL_MS: '100' });

it('a sync refreshes the followed items first: a release date moved to today and a new episode out today are notified', async () => {
  const receiver = await startWebhookReceiver();
  const user = await makeAccount();
  await updateAccount({ name: user.name, webhookUrl: receiver.url });
  const movie = await db().movie.findUniqueOrThrow({ where: { tmdbId: 535_353 } });
  const show = await db().show.findUniqueOrThrow({ where: { tmdbId: 424_242 } });
  await setFollow({ accountId: user.id, kind: 'movie', id: movie.id, followed: true });
  await setFollow({ accountId: user.id, kind: 'show', id: show.id, followed: true });
  await app.jobs.start();

  // The catalog changes after the items were followed: only a refresh can tell.
  writeCatalog(today, today);
  expect((await call(app, 'POST', '/api/machine/sync', { token: user.token })).json).toEqual({ ok: true });
  await receiver.waitFor(2);
  const keys = receiver.received.map((request) => (JSON.parse(request.body) as { item_key: string }).item_key).sort();
  const episode = await db().episode.findFirstOrThrow({ where: { showId: show.id, season: 5, number: 2 } });
  expect(keys).toEqual([`episode:${episode.id}`, `movie:${movie.id}`].sort());
});

it('the 30-minute catalog refresh job moves dates of followed items', async () => {
  const user = await makeAccount();
  const movie = await db().movie.findUniqueOrThrow({ where: { tmdbId: 535_353 } });
  await setFollow({ accountId: user.id, kind: 'movie', id: movie.id, followed: true });
  const later = addDays(today, 9);
  writeCatalog(later, today);
  await app.jobs.start();
  await app.jobs.agenda.now(jobNames.catalogRefresh);
  const deadline = Date.now() + 15_000;
  while ((await db().movie.findUniqueOrThrow({ where: { id: movie.id } })).releaseDate !== later) {
    if (Date.now() > deadline) throw new Error('the refresh job never moved the date');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
});
