import { describe, expect, it } from 'vitest';
import { ImportFileError } from '../../src/imports/sources/import-document.ts';
import { parseAirdateExport } from '../../src/imports/sources/parse-airdate.ts';

const at = (minute: number) => `2026-01-01T12:${String(minute).padStart(2, '0')}:00.000Z`;

/** A small export as the server writes it. */
function exportFile(): any {
  return {
    format: 'airdate-export',
    version: 1,
    exportedAt: '2026-11-21T08:00:00.000Z',
    account: { name: 'alice', timezone: 'Europe/Berlin', webhookUrl: null },
    shows: [
      {
        ids: { tmdb: 11, tvdb: 12 }, title: 'Lantern Keepers', poster: 'https://images.example/a.jpg', overview: null, followed: true, archived: false,
        episodes: [
          { season: 0, number: 1, title: 'Special', airDate: null, watched: false, history: [{ watched: true, at: at(5) }, { watched: false, at: at(6) }] },
          { season: 1, number: 1, title: 'One', airDate: '2025-01-01', watched: true, history: [{ watched: true, at: at(1) }] },
          { season: 1, number: 2, title: null, airDate: '2025-01-08', watched: false, history: [] },
        ],
      },
      { ids: { tvdb: 13 }, title: 'Archived', poster: null, overview: 'Gone.', followed: true, archived: true, episodes: [] },
      { ids: {}, title: 'No Ids', poster: null, overview: null, followed: true, archived: false, episodes: [] },
    ],
    movies: [{ ids: { tmdb: 21 }, title: 'Film', poster: null, overview: null, releaseDate: '2024-02-29', followed: false, watched: true, history: [{ watched: true, at: at(8) }] }],
    games: [{ ids: { igdb: 31 }, title: 'Game', poster: null, overview: null, releaseDate: null, followed: true, watched: false, history: [] }],
  };
}

const bytes = (value: unknown) => new TextEncoder().encode(typeof value === 'string' ? value : JSON.stringify(value));

/** The ImportFileError message for `value`, or a failure when it parses. */
function problem(value: unknown, fileName = 'export.json'): string {
  try {
    parseAirdateExport(value instanceof Uint8Array ? value : bytes(value), fileName);
  } catch (error) {
    expect(error).toBeInstanceOf(ImportFileError);
    expect((error as ImportFileError).fileName).toBe(fileName);
    return (error as ImportFileError).message;
  }
  throw new Error('expected the file to be refused');
}

describe('parseAirdateExport', () => {
  it('maps an export to the import document, stating follow, archive and watched states', () => {
    const document = parseAirdateExport(bytes(exportFile()), 'airdate-export-2026-11-21.json');
    expect(document.source).toBe('airdate');
    expect(document.fileName).toBe('airdate-export-2026-11-21.json');
    expect(document.shows).toEqual([
      {
        kind: 'show', ids: { tmdb: 11, tvdb: 12 }, title: 'Lantern Keepers', poster: 'https://images.example/a.jpg', overview: null, followed: true, archived: false,
        episodes: [
          { season: 0, number: 1, title: 'Special', airDate: null, watched: false, history: [{ watched: true, at: new Date(at(5)) }, { watched: false, at: new Date(at(6)) }] },
          { season: 1, number: 1, title: 'One', airDate: '2025-01-01', watched: true, history: [{ watched: true, at: new Date(at(1)) }] },
          // Never watched: the file says nothing about it, so the import must not unwatch anything.
          { season: 1, number: 2, title: null, airDate: '2025-01-08', watched: undefined, history: [] },
        ],
      },
      { kind: 'show', ids: { tvdb: 13 }, title: 'Archived', poster: null, overview: 'Gone.', followed: true, archived: true, episodes: [] },
    ]);
    expect(document.titles).toEqual([
      { kind: 'movie', ids: { tmdb: 21 }, title: 'Film', poster: null, overview: null, releaseDate: '2024-02-29', followed: false, watched: true, history: [{ watched: true, at: new Date(at(8)) }] },
      { kind: 'game', ids: { igdb: 31 }, title: 'Game', poster: null, overview: null, releaseDate: null, followed: true, watched: undefined, history: [] },
    ]);
    expect(document.skipped).toEqual([{ item: 'show "No Ids"', reason: 'no tmdb, tvdb or imdb id' }]);
  });

  it('reads a file with a BOM, history out of order and optional parts left out', () => {
    const file = exportFile();
    file.shows[0].episodes[0].history.reverse();
    delete file.exportedAt;
    delete file.account;
    delete file.games;
    delete file.movies[0].history;
    const document = parseAirdateExport(bytes(`\uFEFF${JSON.stringify(file)}`), 'export.json');
    expect(document.shows[0]!.episodes[0]!.history.map((event) => event.watched)).toEqual([true, false]);
    expect(document.titles.map((title) => [title.kind, title.history])).toEqual([['movie', []]]);
  });

  it('names the file and the first problem with its JSON path', () => {
    const broken = (change: (file: any) => void) => {
      const file = exportFile();
      change(file);
      return file;
    };
    expect(problem('{"format": "airdate-export",', 'mine.json')).toMatch(/^mine\.json: is not valid JSON/);
    expect(problem(new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]))).toBe('export.json: is not UTF-8 text');
    expect(problem('  ')).toBe('export.json: is a file of blank space, not an Airdate export (a JSON object with "format": "airdate-export")');
    expect(problem([1, 2])).toBe('export.json: is a JSON array of something else, not an Airdate export (a JSON object with "format": "airdate-export")');
    expect(problem({ movies: [] })).toBe('export.json: format: missing: expected "airdate-export" (is this an Airdate export?)');
    expect(problem(broken((file) => (file.format = 'trakt')))).toBe('export.json: format: "trakt": expected "airdate-export" (is this an Airdate export?)');
    expect(problem(broken((file) => (file.version = 2)))).toBe('export.json: version: expected 1, the version this server reads (the file says 2)');
    expect(problem(broken((file) => (file.shows = {})))).toBe('export.json: shows: expected an array of shows');
    expect(problem(broken((file) => (file.shows[0].episodes[2].season = 'one')))).toBe('export.json: shows[0].episodes[2].season: expected an integer ≥ 0');
    expect(problem(broken((file) => delete file.shows[0].episodes[1].number))).toBe('export.json: shows[0].episodes[1].number: missing, expected an integer ≥ 0');
    expect(problem(broken((file) => (file.shows[0].episodes[1].airDate = '2025-02-30')))).toBe(
      'export.json: shows[0].episodes[1].airDate: expected YYYY-MM-DD or null ("2025-02-30" is not a calendar date)',
    );
    expect(problem(broken((file) => (file.shows[0].episodes[0].history[1].at = 'yesterday')))).toBe(
      'export.json: shows[0].episodes[0].history[1].at: expected an ISO 8601 timestamp such as 2026-01-31T20:00:00.000Z',
    );
    expect(problem(broken((file) => (file.shows[0].episodes[0].history[0].watched = 'yes')))).toBe('export.json: shows[0].episodes[0].history[0].watched: expected true or false');
    expect(problem(broken((file) => (file.shows[0].episodes[2].number = 1)))).toBe('export.json: shows[0].episodes[2]: duplicate of episodes[1] (season 1, number 1)');
    expect(problem(broken((file) => (file.shows[1].ids = { tmdb: 11 })))).toBe('export.json: shows[1].ids.tmdb: tmdb id 11 is already used by shows[0]');
    expect(problem(broken((file) => (file.movies[0].ids = { igdb: 5 })))).toBe('export.json: movies[0].ids: unknown id "igdb" (allowed: tmdb, tvdb, imdb)');
    expect(problem(broken((file) => (file.games[0].ids.igdb = -3)))).toBe('export.json: games[0].ids.igdb: expected a positive integer');
    expect(problem(broken((file) => (file.games[0].ids.igdb = 2 ** 31)))).toBe('export.json: games[0].ids.igdb: expected a positive integer up to 2147483647');
    expect(problem(broken((file) => (file.movies[0].title = '')))).toBe('export.json: movies[0].title: expected a non-empty string');
    expect(problem(broken((file) => (file.movies[0].followed = 1)))).toBe('export.json: movies[0].followed: expected true or false');
    expect(problem(broken((file) => (file.shows[2] = null)))).toBe('export.json: shows[2]: expected a show object');
  });
});
