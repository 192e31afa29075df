import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { db } from '../../src/db/client.ts';
import { useTestApp } from '../support/database.ts';
import { makeAccount, unique } from '../support/factories.ts';
import { upload } from '../support/upload.ts';
import { zip } from './fixtures.ts';
import { olderExport } from './tvtime-fixtures.ts';

/**
 * The new user: an older TV Time account's GDPR export, whose seen_episode.csv names 5 650
 * watched episodes by their TheTVDB episode id alone, imported on a server whose catalog (here the
 * offline file) knows those ids. Every watch arrives, under the right show, and the shows the
 * references belong to are followed.
 */
const folder = mkdtempSync(path.join(tmpdir(), 'airdate-tvtime-catalog-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

// The fixture's seen_episode.csv holds TheTVDB episode ids 50 000 000 … 50 005 649; the catalog
// files them under 113 shows of 50 episodes (the last one 0 … 49 of its own).
const referenced = 5_650;
const perShow = 50;
const showCount = Math.ceil(referenced / perShow);
const catalogShows = Array.from({ length: showCount }, (_, show) => ({
  ids: { tvdb: 70_000_000 + show },
  title: `Catalog Show ${show}`,
  episodes: Array.from({ length: perShow }, (_, index) => ({
    season: 1 + Math.floor(index / 25),
    number: (index % 25) + 1,
    title: `Episode ${index + 1}`,
    air_date: '2016-01-01',
    ids: { tvdb: 50_000_000 + show * perShow + index },
  })),
}));
const catalogFile = path.join(folder, 'catalog.json');
writeFileSync(catalogFile, JSON.stringify({ shows: catalogShows, movies: [], games: [] }));
const { app } = await useTestApp({ AIRDATE_CATALOG_FILE: catalogFile });

describe('an older TV Time export on a server whose catalog knows its episode ids', () => {
  it('imports every watch of seen_episode.csv and rewatched_episode.csv under its show, and nothing twice', async () => {
    const account = await makeAccount();
    const fixture = olderExport(unique() * 1_000);
    const first = await upload(app, '/api/import/tvtime', account.token, { 'tvtime-gdpr.zip': zip(fixture.files) });
    expect(first.status, JSON.stringify(first.json).slice(0, 500)).toBe(200);
    const seenWatches = fixture.counts.seenEpisodes + fixture.counts.rewatches;
    // 2 000 tracking watches of the export's own 200 shows, and every referenced episode's.
    expect(first.json.imported).toMatchObject({ shows: fixture.counts.shows + showCount, episodes: 2_000 + referenced, history: 2_000 + seenWatches });
    expect(first.json.unmatched.filter((entry: { kind: string }) => entry.kind === 'episode')).toEqual([]);

    const library = await db().libraryItem.findMany({ where: { accountId: account.id, kind: 'show' }, include: { show: true } });
    const fromCatalog = library.filter((row) => row.show!.title.startsWith('Catalog Show '));
    expect(fromCatalog).toHaveLength(showCount);
    expect(fromCatalog.every((row) => row.followed)).toBe(true);
    // One watched state per referenced episode, on the catalog's episode of that TheTVDB id.
    const states = await db().watchState.findMany({ where: { accountId: account.id, episode: { tvdbId: { gte: 50_000_000, lt: 50_000_000 + referenced } } }, include: { episode: true } });
    expect(states).toHaveLength(referenced);
    const sample = states.find((state) => state.episode!.tvdbId === 50_000_000 + 3 * perShow + 30)!;
    expect(sample.episode).toMatchObject({ season: 2, number: 6 });

    // The same export again adds nothing.
    const again = await upload(app, '/api/import/tvtime', account.token, { 'tvtime-gdpr.zip': zip(fixture.files) });
    expect(again.status).toBe(200);
    expect(again.json.imported.history).toBe(0);
  });
});
