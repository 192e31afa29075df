import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { db } from '../../src/db/client.ts';
import { useTestApp } from '../support/database.ts';
import { call } from '../support/http.ts';
import { fixture } from './fixtures.ts';
import { connectedAccount, deliver, deliveriesOf, watched } from './support.ts';

/**
 * Matching through a catalog's lookup (step 3) and the retry of unmatched deliveries, with the
 * offline catalog file as the catalog: it grows after the server started, as a network catalog
 * learns a new show, and the server asks it about ids no stored row has.
 */
const folder = mkdtempSync(path.join(tmpdir(), 'airdate-media-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));
const catalogFile = path.join(folder, 'catalog.json');
const show = (tvdb: number, title: string, episodes: number[], season = 1) => ({
  ids: { tvdb },
  title,
  episodes: episodes.map((number) => ({ season, number, title: `E${number}`, air_date: '2025-11-07', ids: { tvdb: tvdb * 10 + number } })),
});
const writeCatalog = (shows: unknown[]) => writeFileSync(catalogFile, JSON.stringify({ shows, movies: [], games: [] }));
writeCatalog([show(5100, 'Known At Start', [1])]);
const { app } = await useTestApp({ AIRDATE_CATALOG_FILE: catalogFile, AIRDATE_JOB_POLL_MS: '100', AIRDATE_RATE_LIMIT_PER_MINUTE: '0' });

const stop = (episodeTvdb: number, series: string) => ({ ...fixture('jellyfin/official-episode-playback-stop.json'), SeriesName: series, Provider_tvdb: String(episodeTvdb), Provider_tmdb: '', Provider_imdb: '' });

async function waitFor(what: string, check: () => Promise<boolean>, ms = 30_000) {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('a catalog’s lookup and the retry of unmatched deliveries', () => {
  it('an episode id no stored row has is asked of the catalog, stored and matched', async () => {
    writeCatalog([show(5100, 'Known At Start', [1]), show(5200, 'Learned Later', [1, 2])]);
    const account = await connectedAccount(app, 'jellyfin');
    const answer = await deliver(app, account.path, { json: stop(52002, 'Learned Later') });
    expect(answer.json).toMatchObject({ result: 'matched', items: [{ title: 'Learned Later', season: 1, episode: 2 }] });
    expect((await deliveriesOf(account.id))[0]!.detail).toBe('recorded Learned Later S01E02 (by catalog lookup)');
    expect(await db().show.count({ where: { title: 'Learned Later' } })).toBe(1);
  });

  it('an unmatched play is kept, and the account’s sync records it once the catalog knows it', async () => {
    const account = await connectedAccount(app, 'jellyfin');
    expect((await deliver(app, account.path, { json: stop(53003, 'Not Yet Known') })).json.result).toBe('unmatched');
    expect(await db().show.count({ where: { title: 'Not Yet Known' } })).toBe(0);
    writeCatalog([show(5100, 'Known At Start', [1]), show(5200, 'Learned Later', [1, 2]), show(5300, 'Not Yet Known', [1, 2, 3])]);
    await app.jobs.start();
    expect((await call(app, 'POST', '/api/machine/sync', { token: account.token })).json).toEqual({ ok: true });
    await waitFor('the sync to retry the delivery', async () => (await deliveriesOf(account.id))[0]!.pending === null);
    const [row] = await deliveriesOf(account.id);
    expect(row).toMatchObject({ result: 'matched', detail: 'on retry: recorded Not Yet Known S01E03 (by catalog lookup)' });
    const episode = await db().episode.findFirstOrThrow({ where: { tvdbId: 53003 } });
    expect(await watched(account.id)).toEqual([`episode:${episode.id}`]);
  });

  it('a stored show’s season the store lacks is read from the offline file at once, the show itself left as stored', async () => {
    const seasonOne = show(5400, 'Grows A Season', [1]);
    writeCatalog([show(5100, 'Known At Start', [1]), seasonOne]);
    const account = await connectedAccount(app, 'generic');
    const delivery = (season: number) => ({ json: { kind: 'episode', show: { title: 'Grows A Season', ids: { tvdb: 5400 } }, season, episode: 1 } });
    expect((await deliver(app, account.path, delivery(1))).json.result).toBe('matched');
    // The file learns season 2 (and a new title the show keeps until a refresh of the show).
    writeCatalog([show(5100, 'Known At Start', [1]), { ...seasonOne, title: 'Grows A Season (renamed)', episodes: [...seasonOne.episodes, ...show(5400, '', [1], 2).episodes.map((episode) => ({ ...episode, ids: { tvdb: 54_021 } }))] }]);
    expect((await deliver(app, account.path, delivery(2))).json).toMatchObject({ result: 'matched', items: [{ title: 'Grows A Season', season: 2, episode: 1 }] });
    expect((await deliveriesOf(account.id)).map((row) => row.detail)).toEqual(['recorded Grows A Season S01E01 (by catalog lookup)', 'recorded Grows A Season S02E01 (by catalog lookup)']);
    expect(await db().show.findUniqueOrThrow({ where: { tvdbId: 5400 }, include: { _count: { select: { episodes: true } } } })).toMatchObject({ title: 'Grows A Season', _count: { episodes: 2 } });
  });
});
