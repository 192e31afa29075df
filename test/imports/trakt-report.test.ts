import { describe, expect, it } from 'vitest';
import { db } from '../../src/db/client.ts';
import { parseTraktFile } from '../../src/imports/sources/parse-trakt.ts';
import { useTestApp } from '../support/database.ts';
import { makeAccount, unique } from '../support/factories.ts';
import { upload } from '../support/upload.ts';
import { bytes, grouveeHeader, grouveeRow, json, traktShow, zip } from './fixtures.ts';

const { app } = await useTestApp();

/** A watched-shows.json entry; `seasons` null leaves the key out, as Trakt does for hidden or reset shows. */
function watchedShow(title: string, tmdb: number | null, tvdb: number | null, plays: number, seasons: unknown[] | null) {
  const entry: Record<string, unknown> = { plays, last_watched_at: '2024-09-10T13:52:56.000Z', last_updated_at: '2024-09-10T13:52:56.000Z', reset_at: null, show: traktShow(title, tmdb, tvdb) };
  if (seasons) entry.seasons = seasons;
  return entry;
}

describe('Trakt watched-shows entries without seasons', () => {
  it('reports each one\'s plays with its title and ids among 2 000 entries, and still follows the show', () => {
    const entries = Array.from({ length: 2000 }, (_, index) =>
      index % 4 === 0
        ? watchedShow(`Seasonless ${index}`, 10_000 + index, index % 8 === 0 ? 20_000 + index : null, 1 + (index % 5), index % 8 === 0 ? [] : null)
        : watchedShow(`Show ${index}`, 10_000 + index, null, 2, [{ number: 1, episodes: [{ number: 1, plays: 1, last_watched_at: '2024-09-10T13:52:56.000Z' }, { number: 2, plays: 1, last_watched_at: '2024-09-10T13:52:56.000Z' }] }]),
    );
    const document = parseTraktFile(json(entries), 'watched-shows.json');
    expect(document.shows).toHaveLength(2000);
    expect(document.skipped).toHaveLength(500);
    expect(document.skipped[0]).toEqual({ item: 'Seasonless 0 (tmdb 10000, tvdb 20000)', reason: '1 play is not imported: the watched-shows entry lists no seasons, so which episodes were watched is not known; the show is followed' });
    expect(document.skipped[1]).toEqual({ item: 'Seasonless 4 (tmdb 10004)', reason: '5 plays are not imported: the watched-shows entry lists no seasons, so which episodes were watched is not known; the show is followed' });
    const seasonless = document.shows.find((show) => show.title === 'Seasonless 4')!;
    expect(seasonless.episodes).toEqual([]);
  });

  it('an entry with no plays and no seasons is not reported', () => {
    expect(parseTraktFile(json([watchedShow('Nothing', 5, null, 0, null)]), 'watched-shows.json').skipped).toEqual([]);
  });
});

describe('POST /api/import/trakt', () => {
  it('answers the seasonless plays in skipped, naming the file', async () => {
    const account = await makeAccount();
    const tmdb = unique();
    const file = zip({ 'trakt/watched-shows.json': json([watchedShow('Hidden Show', tmdb, null, 12, null)]) });
    const response = await upload(app, '/api/import/trakt', account.token, { 'trakt.zip': file });
    expect(response.status).toBe(200);
    expect(response.json.imported).toMatchObject({ shows: 1, episodes: 0, history: 0 });
    expect(response.json.skipped).toEqual([{ file: 'trakt.zip/trakt/watched-shows.json', item: `Hidden Show (tmdb ${tmdb})`, reason: '12 plays are not imported: the watched-shows entry lists no seasons, so which episodes were watched is not known; the show is followed' }]);
  });

  it('400 naming another service\'s file: a Simkl backup, a Grouvee CSV, a JSON array of something else', async () => {
    const account = await makeAccount();
    const expected = 'not a Trakt export file (a JSON array of history, watched, rating or list entries)';
    const cases: [string, Uint8Array, string][] = [
      ['SimklBackup.json', json({ shows: [{ show: { title: 'x', ids: { simkl: 1 } }, watched_episodes_count: 3 }] }), 'a Simkl JSON backup'],
      ['grouvee.csv', bytes([grouveeHeader, grouveeRow('Portal', 71, 'Played')].join('\n')), 'a Grouvee collection CSV'],
      ['list.json', json([{ name: 'x', rank: 1 }]), 'a JSON array of something else'],
    ];
    for (const [name, content, found] of cases) {
      const response = await upload(app, '/api/import/trakt', account.token, { [name]: content });
      expect(response).toEqual({ status: 400, json: { error: `${name}: is ${found}, ${expected}` } });
    }
    expect(await db().libraryItem.count({ where: { accountId: account.id } })).toBe(0);
  });
});

describe('POST /api/import/airdate', () => {
  it('names another service\'s file instead of a JSON path error', async () => {
    const account = await makeAccount();
    const expected = 'not an Airdate export (a JSON object with "format": "airdate-export")';
    const trakt = await upload(app, '/api/import/airdate', account.token, { 'watched-shows.json': json([watchedShow('S', unique(), null, 1, null)]) });
    expect(trakt).toEqual({ status: 400, json: { error: `watched-shows.json: is a Trakt JSON file, ${expected}` } });
    const grouvee = await upload(app, '/api/import/airdate', account.token, { 'g.csv': bytes([grouveeHeader, grouveeRow('Portal', 71, 'Played')].join('\n')) });
    expect(grouvee).toEqual({ status: 400, json: { error: `g.csv: is a Grouvee collection CSV, ${expected}` } });
  });
});

describe('POST /api/import/airdate, a Simkl backup', () => {
  it('is named as one', async () => {
    const account = await makeAccount();
    const simkl = await upload(app, '/api/import/airdate', account.token, { 'SimklBackup.json': json({ shows: [{ show: { title: 'x', ids: { simkl: 1 } }, watched_episodes_count: 3 }] }) });
    expect(simkl).toEqual({ status: 400, json: { error: 'SimklBackup.json: is a Simkl JSON backup, not an Airdate export (a JSON object with "format": "airdate-export")' } });
  });
});
