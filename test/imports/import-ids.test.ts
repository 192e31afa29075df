import { describe, expect, it } from 'vitest';
import { initSecretKey } from '../../src/keys/secret-key.ts';
import { db } from '../../src/db/client.ts';
import type { ImportDocument, ImportEpisodeRef, ImportShow, ImportTitle } from '../../src/imports/sources/import-document.ts';
import { validateImportDocument } from '../../src/imports/sources/validate-document.ts';
import { applyImportDocument, applyImportDocuments } from '../../src/imports/import-service.ts';
import { useTestDatabase } from '../support/database.ts';
import { makeAccount, makeShow, unique } from '../support/factories.ts';

initSecretKey(await useTestDatabase());

/** A document of the given items, as a parser would give it. */
function document(parts: Partial<ImportDocument>, fileName = 'export.csv'): ImportDocument {
  return { source: 'tvtime', fileName, shows: [], titles: [], skipped: [], ...parts };
}

const imdb = () => `tt${unique()}`;
const at = (day: number) => new Date(Date.UTC(2021, 0, day, 20));

/** A stored show of `count` season-1 episodes, each with a TheTVDB episode id, and its show's imdb id. */
async function showWithEpisodeIds(count: number) {
  const show = await makeShow({ episodes: Array.from({ length: count }, (_, index) => ({ number: index + 1, airDate: '2020-01-01' })) });
  const tvdbIds = show.episodes.map(() => unique());
  for (const [index, episode] of show.episodes.entries()) await db().episode.update({ where: { id: episode.id }, data: { tvdbId: tvdbIds[index] } });
  const imdbId = imdb();
  await db().show.update({ where: { id: show.id }, data: { imdbId } });
  return { show, tvdbIds, imdbId };
}

const ref = (tvdb: number, day: number, label?: string): ImportEpisodeRef => ({ ids: { tvdb }, label, history: [{ watched: true, at: at(day) }] });

describe('import matching by every id a file carries', () => {
  it('finds shows by imdb, movies by imdb or tvdb, games by giantbomb, and keeps every id on rows it creates', async () => {
    const account = await makeAccount();
    const { show, imdbId } = await showWithEpisodeIds(1);
    const movie = await db().movie.create({ data: { tmdbId: unique(), imdbId: imdb(), tvdbId: unique(), title: 'Stored film' } });
    const game = await db().game.create({ data: { igdbId: unique(), giantbombId: unique(), title: 'Stored game' } });
    const newShow = { tmdb: unique(), imdb: imdb() };
    const result = await applyImportDocument({
      accountId: account.id,
      document: document({
        shows: [
          { kind: 'show', ids: { imdb: imdbId }, title: 'Another name', episodes: [{ season: 1, number: 1, history: [{ watched: true, at: at(1) }] }] },
          { kind: 'show', ids: newShow, title: 'New show', episodes: [] },
        ],
        titles: [
          { kind: 'movie', ids: { imdb: movie.imdbId! }, title: 'x', history: [{ watched: true, at: at(2) }] },
          { kind: 'movie', ids: { tvdb: movie.tvdbId! }, title: 'y', history: [{ watched: true, at: at(3) }] },
          { kind: 'game', ids: { giantbomb: game.giantbombId! }, title: 'z', history: [] },
          // Known by ids no stored row has and no catalog is asked by: reported, never created.
          { kind: 'movie', ids: { imdb: imdb(), tvdb: unique() }, title: 'Unknown film', history: [] },
          { kind: 'game', ids: { giantbomb: unique() }, title: 'Unknown game', history: [] },
        ],
      }),
    });
    expect(result.unmatched).toEqual([
      expect.objectContaining({ file: 'export.csv', kind: 'movie', title: 'Unknown film' }),
      expect.objectContaining({ file: 'export.csv', kind: 'game', title: 'Unknown game' }),
    ]);
    expect(result.imported).toMatchObject({ shows: 2, movies: 1, games: 1, episodes: 1, history: 3 });
    const library = await db().libraryItem.findMany({ where: { accountId: account.id } });
    expect(library.map((row) => row.showId ?? row.movieId ?? row.gameId).sort()).toEqual(expect.arrayContaining([show.id, movie.id, game.id]));
    expect((await db().show.findUniqueOrThrow({ where: { id: show.id } })).title).toBe(show.title);
    const created = await db().show.findUniqueOrThrow({ where: { tmdbId: newShow.tmdb } });
    expect(created.imdbId).toBe(newShow.imdb);
    expect(await db().movie.count({ where: { title: 'Unknown film' } })).toBe(0);
    expect(await db().game.count({ where: { title: 'Unknown game' } })).toBe(0);
  });

  it('gives a stored row the imdb id it lacked, but never one another row has', async () => {
    const account = await makeAccount();
    const plain = await makeShow();
    const other = await showWithEpisodeIds(0);
    const fresh = imdb();
    await applyImportDocument({
      accountId: account.id,
      document: document({
        shows: [
          { kind: 'show', ids: { tmdb: plain.tmdbId!, imdb: fresh }, title: 'a', episodes: [] },
          { kind: 'show', ids: { tmdb: unique(), imdb: other.imdbId }, title: 'b', episodes: [] },
        ],
      }),
    });
    expect((await db().show.findUniqueOrThrow({ where: { id: plain.id } })).imdbId).toBe(fresh);
    // The second item's imdb id points at `other`: it is matched there, not made into a new row.
    expect(await db().show.count({ where: { title: 'b' } })).toBe(0);
  });

  it('matches id-less movies and games by exact title and year only when one stored row has them', async () => {
    const account = await makeAccount();
    const name = `Ōkami ${unique()}`;
    const original = await db().game.create({ data: { igdbId: unique(), title: name, releaseDate: '2006-04-20' } });
    const remake = await db().game.create({ data: { igdbId: unique(), title: name, releaseDate: '2017-12-12' } });
    const twins = `Twin ${unique()}`;
    await db().game.create({ data: { igdbId: unique(), title: twins, releaseDate: '2010-01-01' } });
    await db().game.create({ data: { igdbId: unique(), title: twins, releaseDate: '2010-06-01' } });
    const film = await db().movie.create({ data: { tmdbId: unique(), title: `Heat ${unique()}`, releaseDate: '1995-12-15' } });
    const game = (title: string, year?: number): ImportTitle => ({ kind: 'game', ids: {}, title, year, history: [{ watched: true, at: at(5) }] });
    const result = await applyImportDocument({
      accountId: account.id,
      document: document({
        titles: [
          game(`  ${name.toLocaleUpperCase()} `, 2006),
          game(name.toLocaleLowerCase(), 2017),
          game(name, 2011), // no row of that year
          game(twins, 2010), // two rows: neither
          game(name), // no year: never by title alone
          { kind: 'movie', ids: {}, title: film.title.toLowerCase(), year: 1995, history: [{ watched: true, at: at(6) }] },
        ],
      }),
    });
    expect(result.unmatched.map((item) => item.title)).toEqual([name, twins, name]);
    const items = await db().libraryItem.findMany({ where: { accountId: account.id } });
    expect(items.map((row) => row.gameId ?? row.movieId).sort()).toEqual([original.id, remake.id, film.id].sort());
    expect(await db().game.count({ where: { title: name } })).toBe(2);
  });

  it('stores the episode ids a file gives where the row has none, never replacing or stealing one', async () => {
    const account = await makeAccount();
    const { show, tvdbIds } = await showWithEpisodeIds(2);
    const [tmdbOne, newTvdb, imdbTwo] = [unique(), unique(), imdb()];
    await applyImportDocument({
      accountId: account.id,
      document: document({
        shows: [{
          kind: 'show', ids: { tmdb: show.tmdbId! }, title: show.title,
          episodes: [
            { season: 1, number: 1, ids: { tvdb: unique(), tmdb: tmdbOne }, history: [] }, // tvdb differs: kept as stored
            { season: 1, number: 2, ids: { tvdb: tvdbIds[0], imdb: imdbTwo }, history: [] }, // episode 1's tvdb id: not moved
            { season: 1, number: 3, ids: { tvdb: newTvdb }, history: [] }, // a new episode keeps it
          ],
        }],
      }),
    });
    const episodes = await db().episode.findMany({ where: { showId: show.id }, orderBy: { number: 'asc' } });
    expect(episodes.map((row) => [row.number, row.tvdbId, row.tmdbId, row.imdbId])).toEqual([
      [1, tvdbIds[0], tmdbOne, null],
      [2, tvdbIds[1], null, imdbTwo],
      [3, newTvdb, null, null],
    ]);
  });

  it('stores the ids of thousands of stored episodes in one import, then finds references by them', async () => {
    const account = await makeAccount();
    const show = await makeShow({ episodes: Array.from({ length: 1500 }, (_, index) => ({ season: 1 + Math.floor(index / 100), number: 1 + (index % 100), airDate: null })) });
    const ids = show.episodes.map(() => ({ tvdb: unique(), tmdb: unique(), imdb: imdb() }));
    await applyImportDocument({
      accountId: account.id,
      now: at(30),
      document: document({
        shows: [{
          kind: 'show', ids: { tmdb: show.tmdbId! }, title: show.title,
          // Every other episode gives only some of its ids.
          episodes: show.episodes.map((episode, index) => ({ season: episode.season, number: episode.number, ids: index % 2 === 0 ? ids[index] : { imdb: ids[index]!.imdb }, history: [] })),
        }],
      }),
    });
    const stored = await db().episode.findMany({ where: { showId: show.id }, orderBy: [{ season: 'asc' }, { number: 'asc' }] });
    expect(stored.map((row) => [row.tvdbId, row.tmdbId, row.imdbId])).toEqual(ids.map((expected, index) => (index % 2 === 0 ? [expected.tvdb, expected.tmdb, expected.imdb] : [null, null, expected.imdb])));
    expect(stored.every((row) => row.updatedAt.getTime() === at(30).getTime())).toBe(true);
    const refs = stored.filter((row) => row.tvdbId !== null).map((row) => ref(row.tvdbId!, 2));
    const result = await applyImportDocument({ accountId: account.id, document: document({ episodeRefs: refs }) });
    expect(result.imported).toMatchObject({ episodes: 750, history: 750 });
  });
});

describe('episode references', () => {
  it('applies watches of references resolved by stored episode ids, follows their shows, and reports the rest one by one', async () => {
    const account = await makeAccount();
    const { show, tvdbIds } = await showWithEpisodeIds(3000);
    const unknown = [unique(), unique()];
    const refs = [
      ...tvdbIds.map((id, index) => ref(id, 1 + (index % 300))),
      ref(tvdbIds[0]!, 400), // a rewatch of episode 1
      ref(unknown[0]!, 2, 'Lost Show'),
      ref(unknown[1]!, 3),
    ];
    const result = await applyImportDocument({ accountId: account.id, document: document({ episodeRefs: refs }, 'seen_episode.csv') });
    expect(result.unmatched).toEqual([
      { file: 'seen_episode.csv', kind: 'episode', title: `Lost Show (episode tvdb ${unknown[0]})`, ids: { tvdb: unknown[0] } },
      { file: 'seen_episode.csv', kind: 'episode', title: `episode tvdb ${unknown[1]}`, ids: { tvdb: unknown[1] } },
    ]);
    expect(result.imported).toMatchObject({ shows: 1, episodes: 3000, history: 3001 });
    const library = await db().libraryItem.findFirstOrThrow({ where: { accountId: account.id, showId: show.id } });
    expect([library.followed, library.followExplicit]).toEqual([true, false]);
    expect(await db().watchState.count({ where: { accountId: account.id, watched: true } })).toBe(3000);
    expect(await db().show.count({ where: { title: { contains: 'Untitled' } } })).toBe(0);
    // The same file again adds nothing.
    const again = await applyImportDocument({ accountId: account.id, document: document({ episodeRefs: refs }, 'seen_episode.csv') });
    expect(again.imported.history).toBe(0);
  });

  it("keeps a show's stated follow flag over its references, in any order of documents", async () => {
    const account = await makeAccount();
    const { show, tvdbIds } = await showWithEpisodeIds(2);
    const stated: ImportShow = { kind: 'show', ids: { tmdb: show.tmdbId! }, title: show.title, followed: false, archived: true, episodes: [] };
    await applyImportDocuments({
      accountId: account.id,
      documents: () => [
        document({ shows: [stated], episodeRefs: [ref(tvdbIds[0]!, 1)] }, 'followed_tv_show.csv'),
        document({ episodeRefs: [ref(tvdbIds[1]!, 2)] }, 'seen_episode.csv'),
      ],
    });
    const library = await db().libraryItem.findFirstOrThrow({ where: { accountId: account.id, showId: show.id } });
    expect([library.followed, library.archived]).toEqual([false, true]);
    expect(await db().watchEvent.count({ where: { accountId: account.id } })).toBe(2);

    // The references' file first, the stated flags after it: the same outcome.
    const other = await makeAccount();
    await applyImportDocuments({
      accountId: other.id,
      documents: () => [
        document({ episodeRefs: [ref(tvdbIds[1]!, 2)] }, 'seen_episode.csv'),
        document({ shows: [stated], episodeRefs: [ref(tvdbIds[0]!, 1)] }, 'followed_tv_show.csv'),
      ],
    });
    const otherLibrary = await db().libraryItem.findFirstOrThrow({ where: { accountId: other.id, showId: show.id } });
    expect([otherLibrary.followed, otherLibrary.archived]).toEqual([false, true]);
  });

  it('writes nothing when a later document of the request fails', async () => {
    const account = await makeAccount();
    const { tvdbIds } = await showWithEpisodeIds(2);
    function* documents() {
      yield document({ episodeRefs: tvdbIds.map((id) => ref(id, 1)) }, 'seen_episode.csv');
      throw new Error('second file broke');
    }
    await expect(applyImportDocuments({ accountId: account.id, documents })).rejects.toThrow(/second file broke/);
    expect(await db().watchEvent.count({ where: { accountId: account.id } })).toBe(0);
    expect(await db().libraryItem.count({ where: { accountId: account.id } })).toBe(0);
  });
});

describe('estimated history entries', () => {
  it("stores the file's estimated flag, and marks the import-time entry of an undated state", async () => {
    const account = await makeAccount();
    const show = await makeShow({ episodes: [{ number: 1, airDate: null }, { number: 2, airDate: null }, { number: 3, airDate: null }] });
    await applyImportDocument({
      accountId: account.id,
      now: at(20),
      document: document({
        shows: [{
          kind: 'show', ids: { tmdb: show.tmdbId! }, title: show.title,
          episodes: [
            { season: 1, number: 1, history: [{ watched: true, at: at(1), estimated: true }] },
            { season: 1, number: 2, history: [{ watched: true, at: at(2) }] },
            { season: 1, number: 3, history: [], watched: true },
          ],
        }],
      }),
    });
    const events = await db().watchEvent.findMany({ where: { accountId: account.id }, orderBy: { at: 'asc' } });
    expect(events.map((event) => [event.at.toISOString(), event.estimated])).toEqual([
      [at(1).toISOString(), true],
      [at(2).toISOString(), false],
      [at(20).toISOString(), true],
    ]);
  });
});

describe('validating the new ids', () => {
  const refuse = (parts: Partial<ImportDocument>) => () => validateImportDocument(document(parts, 'bad.csv'));
  it.each([
    ['an imdb id without tt', { titles: [{ kind: 'movie', ids: { imdb: '0944947' }, title: 'A', history: [] }] }, /bad\.csv: movie "A": imdb id "0944947"/],
    ['an imdb id with 11 digits', { shows: [{ kind: 'show', ids: { imdb: 'tt12345678901' }, title: 'S', episodes: [] }] }, /imdb id "tt12345678901"/],
    ['a giantbomb id of 0', { titles: [{ kind: 'game', ids: { giantbomb: 0 }, title: 'G', history: [] }] }, /giantbomb id 0 is not a whole number/],
    ['an episode tvdb id beyond 32 bits', { shows: [{ kind: 'show', ids: { tmdb: 1 }, title: 'S', episodes: [{ season: 1, number: 1, ids: { tvdb: 2 ** 31 }, history: [] }] }] }, /season 1 episode 1: episode tvdb id 2147483648/],
    ['a reference with a bad imdb id', { episodeRefs: [{ ids: { imdb: 'tt12x' }, label: 'Lost', history: [] }] }, /the episode reference "Lost": episode imdb id "tt12x"/],
    ['a year of 0', { titles: [{ kind: 'movie', ids: {}, title: 'Y', year: 0, history: [] }] }, /the year 0/],
  ] as [string, Partial<ImportDocument>, RegExp][])('refuses %s, naming it', (_, parts, message) => {
    expect(refuse(parts)).toThrow(message);
  });

  it('accepts well-formed ids', () => {
    expect(refuse({ titles: [{ kind: 'movie', ids: { imdb: 'tt0111161', tvdb: 2147483647 }, title: 'A', history: [] }], episodeRefs: [ref(1, 1)] })).not.toThrow();
  });
});
