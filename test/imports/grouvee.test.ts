import { describe, expect, it } from 'vitest';
import { db } from '../../src/db/client.ts';
import { ImportFileError } from '../../src/imports/sources/import-document.ts';
import { parseGrouveeFile } from '../../src/imports/sources/parse-grouvee.ts';
import { useTestApp } from '../support/database.ts';
import { makeAccount, unique } from '../support/factories.ts';
import { upload } from '../support/upload.ts';
import { bytes, grouveeHeader, grouveeRow, json, traktEpisodePlay, traktShow, tvTimeTrackingV2, tvTimeWatch } from './fixtures.ts';

const { app } = await useTestApp();

/** The older 15-column header: no igdb_id, games known by giantbomb_id only. */
const oldColumns = ['id', 'name', 'shelves', 'platforms', 'rating', 'review', 'dates', 'statuses', 'genres', 'franchises', 'developers', 'publishers', 'release_date', 'url', 'giantbomb_id'];
const cell = (value: string) => (/[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value);

interface OldRow {
  id: number;
  name: string;
  giantbomb: number | '';
  release: string;
  played?: string | 'None';
  review?: string;
}

/** One row of the 15-column export, in `columns` order (Grouvee's own, or shuffled). */
function oldRow(row: OldRow, columns = oldColumns): string {
  const shelf = row.played === undefined ? 'Backlog' : 'Played';
  const values: Record<string, string> = {
    id: String(row.id),
    name: row.name,
    shelves: JSON.stringify({ [shelf]: { date_added: '2019-03-04T05:06:07Z', url: `https://www.grouvee.com/user/fixture/shelves/1-${shelf.toLowerCase()}/` } }),
    platforms: JSON.stringify({ 'Nintendo Switch': { url: 'https://www.grouvee.com/games/?platform=switch' } }),
    rating: row.played ? '4' : 'None',
    review: row.review ?? '',
    dates: JSON.stringify(row.played ? [{ date_started: 'None', date_finished: row.played, seconds_played: 'None', level_of_completion: 'None' }] : []),
    statuses: '[]',
    genres: JSON.stringify({ Platformer: { url: 'https://www.grouvee.com/genres/platformer/' } }),
    franchises: '{}',
    developers: '{}',
    publishers: '{}',
    release_date: row.release,
    url: `https://www.grouvee.com/games/${row.id}-x/`,
    giantbomb_id: String(row.giantbomb),
  };
  return columns.map((column) => cell(values[column]!)).join(',');
}

/** A 428-row older export: 12 titles twice (remakes, other platforms), a review with newlines, "None" dates. */
function oldExport(base: number, columns = oldColumns): { text: string; rows: OldRow[] } {
  const rows: OldRow[] = [];
  for (let index = 0; index < 428; index += 1) {
    const twin = index >= 400 && index < 424;
    const name = twin ? `Remade Classic ${Math.floor((index - 400) / 2)}` : `Old Game ${base}-${index}`;
    const release = twin && index % 2 === 1 ? '2020-09-18' : `${1990 + (index % 30)}-0${1 + (index % 9)}-1${index % 10}`;
    rows.push({
      id: base + index,
      name: index === 7 ? `Pokémon "Crystal", ${base}` : name,
      giantbomb: index === 427 ? '' : base * 10 + index,
      release: index === 5 ? 'None' : release,
      played: index % 3 === 0 ? `2020-0${1 + (index % 9)}-1${index % 10}` : index % 3 === 1 && index < 60 ? 'None' : undefined,
      review: index === 9 ? 'Loved it,\r\nthen "hated" it\nthen loved it again' : undefined,
    });
  }
  return { text: `\uFEFF${[columns.join(','), ...rows.map((row) => oldRow(row, columns))].join('\r\n')}\r\n`, rows };
}

describe('Grouvee parser', () => {
  it('reads a 428-row 15-column export: giantbomb ids, years, Grouvee ids, same-titled games kept apart', () => {
    const base = unique();
    const { text, rows } = oldExport(base);
    const document = parseGrouveeFile(bytes(text), 'grouvee-old.csv');
    expect(document.titles).toHaveLength(428);
    expect(document.skipped).toEqual([]);
    expect(document.titles.map((game) => game.sourceId)).toEqual(rows.map((row) => String(row.id)));
    expect(document.titles[0]).toMatchObject({ kind: 'game', ids: { giantbomb: base * 10 }, year: 1990, releaseDate: '1990-01-10', history: [{ watched: true, at: new Date('2020-01-10T00:00:00Z') }] });
    // "None" release date: no year; no giantbomb_id: no ids, still an item by title.
    expect(document.titles[5]!.ids).toEqual({ giantbomb: base * 10 + 5 });
    expect(document.titles[5]!.releaseDate).toBeUndefined();
    expect(document.titles[5]!.year).toBeUndefined();
    expect(document.titles[427]!.ids).toEqual({});
    expect(document.titles[7]!.title).toBe(`Pokémon "Crystal", ${base}`);
    // Played with date_finished "None": played at the shelf's date_added.
    expect(document.titles[1]!.history).toEqual([{ watched: true, at: new Date('2019-03-04T05:06:07Z') }]);
    const twins = document.titles.filter((game) => game.title === 'Remade Classic 0');
    expect(twins.map((game) => [game.sourceId, game.ids.giantbomb, game.year])).toEqual([
      [String(base + 400), base * 10 + 400, 2000],
      [String(base + 401), base * 10 + 401, 2020],
    ]);
  });

  it('reads the columns by name in any order, with extra columns', () => {
    const shuffled = ['url', 'giantbomb_id', 'review', 'name', 'dates', 'rating', 'id', 'shelves', 'release_date', 'platforms', 'statuses', 'genres', 'franchises', 'developers', 'publishers'];
    const base = unique();
    const plain = parseGrouveeFile(bytes(oldExport(base).text), 'a.csv');
    const text = oldExport(base, shuffled).text.replace('publishers\r\n', 'publishers,extra\r\n');
    expect(parseGrouveeFile(bytes(text), 'b.csv').titles).toEqual(plain.titles);
  });

  it('a repeated Grouvee id is one game, reported as a merged duplicate; the current 20-column export keeps igdb ids', () => {
    const csv = [grouveeHeader, grouveeRow('Portal', 71, 'Played', '2021-04-03', 500001), grouveeRow('Portal', 71, 'Played', '2022-01-02', 500001), grouveeRow('Portal', 72, 'Backlog', undefined, 500002)].join('\n');
    const document = parseGrouveeFile(bytes(csv), 'grouvee.csv');
    expect(document.titles.map((game) => [game.sourceId, game.ids, game.history.length])).toEqual([['500001', { igdb: 71 }, 2], ['500002', { igdb: 72 }, 0]]);
    expect(document.skipped).toEqual([{ item: 'Portal (Grouvee id 500001, line 3)', reason: 'merged as a duplicate: line 2 has the same Grouvee id' }]);
  });

  it('refuses other services\' files, a header without rows and broken JSON cells, naming them', () => {
    const refusal = (text: string | Uint8Array, name = 'f.csv') => {
      try {
        parseGrouveeFile(typeof text === 'string' ? bytes(text) : text, name);
      } catch (error) {
        expect(error).toBeInstanceOf(ImportFileError);
        return (error as Error).message;
      }
      throw new Error('not refused');
    };
    expect(refusal(tvTimeTrackingV2([tvTimeWatch(1, 'Show', 1, 1, '2024-01-01 10:00:00')]), 'tracking-prod-records-v2.csv')).toMatch(/^tracking-prod-records-v2\.csv: is a TV Time CSV, not a Grouvee collection CSV/);
    expect(refusal(json([traktEpisodePlay(1, '2024-01-01T00:00:00.000Z', traktShow('S', 1, 1), 1, 1)]), 'h.json')).toMatch(/^h\.json: is a Trakt JSON file, not a Grouvee/);
    expect(refusal('Date,Name,Year,Letterboxd URI\n2024-01-01,Film,2019,https://boxd.it/x\n', 'watched.csv')).toMatch(/^watched\.csv: is a Letterboxd CSV, not a Grouvee/);
    expect(refusal('')).toMatch(/^f\.csv: is an empty file, not a Grouvee/);
    expect(refusal(`${oldColumns.join(',')}\r\n`)).toBe('f.csv: holds no games: the Grouvee CSV has a header and no rows');
    expect(refusal(`${oldColumns.join(',')}\n1,A,"{""Played"": {",{},,,,,,,,,,,\n`)).toBe('f.csv: line 2: shelves is not valid JSON');
  });
});

describe('POST /api/import/grouvee', () => {
  it('accounts for all 428 rows of the older export; same-titled games stay two items in the library or in unmatched', async () => {
    const account = await makeAccount();
    const base = unique();
    const { text } = oldExport(base);
    const response = await upload(app, '/api/import/grouvee', account.token, { 'grouvee-old.csv': bytes(text) });
    expect(response.status).toBe(200);
    const { imported, unmatched, skipped } = response.json;
    expect(skipped).toEqual([]);
    expect(imported.games + unmatched.length).toBe(428);
    for (let pair = 0; pair < 12; pair += 1) {
      const title = `Remade Classic ${pair}`;
      const inLibrary = await db().libraryItem.count({ where: { accountId: account.id, game: { title } } });
      const listed = unmatched.filter((entry: { title: string }) => entry.title === title);
      expect(inLibrary + listed.length).toBe(2);
      // Listed twice, each entry tells its game apart: Grouvee's own id, its Giant Bomb id.
      expect(new Set(listed.map((entry: { sourceId: string }) => entry.sourceId)).size).toBe(listed.length);
      for (const entry of listed) expect(entry).toMatchObject({ kind: 'game', sourceId: expect.stringMatching(/^\d+$/), ids: { giantbomb: expect.any(Number) } });
    }
    expect(unmatched.every((entry: { sourceId?: string }) => typeof entry.sourceId === 'string')).toBe(true);
  });

  it('400 naming another service\'s file, and nothing is written', async () => {
    const account = await makeAccount();
    const response = await upload(app, '/api/import/grouvee', account.token, {
      'grouvee.csv': bytes([grouveeHeader, grouveeRow('Fine', unique(), 'Played', '2021-04-03')].join('\n')),
      'watched-history-1.json': json([traktEpisodePlay(1, '2024-01-01T00:00:00.000Z', traktShow('S', 1, 1), 1, 1)]),
    });
    expect(response.status).toBe(400);
    expect(response.json.error).toBe('watched-history-1.json: is a Trakt JSON file, not a Grouvee collection CSV (columns id, name, shelves, …, giantbomb_id[, igdb_id])');
    expect(await db().libraryItem.count({ where: { accountId: account.id } })).toBe(0);
  });
});
