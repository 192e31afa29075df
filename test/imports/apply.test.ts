import { describe, expect, it } from 'vitest';
import { initSecretKey } from '../../src/keys/secret-key.ts';
import { db } from '../../src/db/client.ts';
import { parseTraktFile } from '../../src/imports/sources/parse-trakt.ts';
import { parseTvTimeFiles } from '../../src/imports/sources/parse-tvtime.ts';
import type { ImportDocument, ImportShow, ImportTitle } from '../../src/imports/sources/import-document.ts';
import { applyImportDocument, applyImportDocuments, sliceWeight } from '../../src/imports/import-service.ts';
import { setFollow, setWatched } from '../../src/library/library.ts';
import { useTestDatabase } from '../support/database.ts';
import { makeAccount, makeShow, unique } from '../support/factories.ts';
import { json, traktEpisodePlay, traktMoviePlay, traktShow, tvTimeTrackingV2, tvTimeWatch } from './fixtures.ts';

initSecretKey(await useTestDatabase());

const feedVersion = async (accountId: number) => (await db().account.findUniqueOrThrow({ where: { id: accountId } })).feedVersion;
const catalogVersion = async () => (await db().serverState.findUnique({ where: { id: 1 } }))?.catalogVersion ?? 0;
const counts = async (accountId: number) => ({
  library: await db().libraryItem.count({ where: { accountId } }),
  events: await db().watchEvent.count({ where: { accountId } }),
  states: await db().watchState.count({ where: { accountId } }),
});

/** A Trakt history file for a show and a movie no catalog knows, with a rewatch and a special. */
function traktHistory() {
  const tmdb = unique();
  const show = traktShow(`Show ${tmdb}`, tmdb, unique());
  const file = [
    traktEpisodePlay(4, '2025-03-03T21:00:00.000Z', show, 1, 2),
    traktEpisodePlay(3, '2025-03-02T21:00:00.000Z', show, 1, 1),
    traktEpisodePlay(2, '2025-03-01T21:00:00.000Z', show, 1, 1),
    traktEpisodePlay(1, '2025-02-01T21:00:00.000Z', show, 0, 1),
    traktMoviePlay(5, '2025-03-01T19:00:00.000Z', `Film ${tmdb}`, unique()),
    traktMoviePlay(6, '2025-03-01T19:00:00.000Z', 'No ids film', null),
  ];
  return { show, document: parseTraktFile(json(file), 'watched-history-1.json') };
}

describe('applyImportDocument', () => {
  it('creates unknown catalog items from the file, follows them, appends history and sets watched states', async () => {
    const account = await makeAccount();
    const { show, document } = traktHistory();
    const [versionBefore, catalogBefore] = [await feedVersion(account.id), await catalogVersion()];
    const result = await applyImportDocument({ accountId: account.id, document });
    expect(result.imported).toEqual({ shows: 1, episodes: 3, movies: 1, games: 0, history: 5 });
    expect(result.unmatched).toEqual([{ file: 'watched-history-1.json', kind: 'movie', title: 'No ids film', ids: {} }]);
    const stored = await db().show.findUniqueOrThrow({ where: { tmdbId: show.ids.tmdb! }, include: { episodes: true } });
    expect([stored.title, stored.tvdbId]).toEqual([show.title, show.ids.tvdb]);
    expect(stored.episodes.map((episode) => `${episode.season}x${episode.number} ${episode.title}`).sort()).toEqual(['0x1 Episode 1', '1x1 Episode 1', '1x2 Episode 2']);
    const library = await db().libraryItem.findMany({ where: { accountId: account.id } });
    expect(library.map((row) => [row.kind, row.followed, row.followExplicit])).toEqual(expect.arrayContaining([['show', true, false], ['movie', true, false]]));
    expect(await counts(account.id)).toEqual({ library: 2, events: 5, states: 4 });
    const sources = await db().watchEvent.findMany({ where: { accountId: account.id }, select: { source: true } });
    expect(new Set(sources.map((row) => row.source))).toEqual(new Set(['import:trakt']));
    expect(await feedVersion(account.id)).toBe(versionBefore + 1);
    expect(await catalogVersion()).toBeGreaterThan(catalogBefore);
  });

  it("stamps everything it writes with the import's time, catalog rows included", async () => {
    const account = await makeAccount();
    const { show, document } = traktHistory();
    const now = new Date('2026-01-02T03:04:05.678Z');
    await applyImportDocument({ accountId: account.id, document, now });
    const stored = await db().show.findUniqueOrThrow({ where: { tmdbId: show.ids.tmdb! }, include: { episodes: true } });
    expect([stored.createdAt, stored.updatedAt, ...stored.episodes.map((episode) => episode.createdAt)]).toEqual(Array(2 + stored.episodes.length).fill(now));
    const library = await db().libraryItem.findMany({ where: { accountId: account.id } });
    expect(library.map((row) => row.followedAt)).toEqual([now, now]);
  });

  it('two imports of the same file at once into one account (and two accounts racing to create the same items) write it once', async () => {
    const [first, second] = [await makeAccount(), await makeAccount()];
    const { document } = traktHistory();
    const again = () => structuredClone(document);
    const results = await Promise.all([first.id, first.id, second.id, second.id].map((accountId) => applyImportDocument({ accountId, document: again() })));
    // The account whose import created the rows has them; they are its own until a catalog confirms
    // them, so the other account's items are unmatched and kept as pending (docs/security.md).
    expect(results.map((result) => result.imported.history).sort()).toEqual([0, 0, 0, 5]);
    const [winner, loser] = (await counts(first.id)).library > 0 ? [first, second] : [second, first];
    expect(await counts(winner.id)).toEqual({ library: 2, events: 5, states: 4 });
    expect(await counts(loser.id)).toEqual({ library: 0, events: 0, states: 0 });
    expect(await db().pendingImport.count({ where: { accountId: loser.id } })).toBeGreaterThan(0);
    expect(await db().show.count({ where: { ownerAccountId: winner.id } })).toBe(1);
    // Items the account already has (no insert to collide on): the imports still take turns.
    const rewatch = structuredClone(document);
    for (const show of rewatch.shows) for (const episode of show.episodes) episode.history = episode.history.map((entry) => ({ ...entry, at: new Date(entry.at.getTime() + 86_400_000) }));
    const later = await Promise.all([1, 2, 3].map(() => applyImportDocument({ accountId: winner.id, document: structuredClone(rewatch) })));
    expect(later.map((result) => result.imported.history).sort()).toEqual([0, 0, 3]); // one shifted play lands on an existing one
    expect((await counts(winner.id)).events).toBe(8);
  });

  it('importing the same file twice changes nothing the second time', async () => {
    const account = await makeAccount();
    const { document } = traktHistory();
    await applyImportDocument({ accountId: account.id, document });
    const [before, version] = [await counts(account.id), await feedVersion(account.id)];
    const again = await applyImportDocument({ accountId: account.id, document });
    expect(again.imported.history).toBe(0);
    expect(await counts(account.id)).toEqual(before);
    expect(await feedVersion(account.id)).toBe(version);
  });

  it('matches catalog rows by any shared id without overwriting their data', async () => {
    const account = await makeAccount();
    const catalogShow = await makeShow({ title: 'Catalog Title', poster: 'https://images.example/p.jpg', episodes: [{ number: 1, airDate: '2020-01-01' }] });
    await db().show.update({ where: { id: catalogShow.id }, data: { tvdbId: unique() } });
    const tvdb = (await db().show.findUniqueOrThrow({ where: { id: catalogShow.id } })).tvdbId!;
    const file = tvTimeTrackingV2([tvTimeWatch(tvdb, 'File Title', 1, 1, '2022-05-01 20:11:05'), tvTimeWatch(tvdb, 'File Title', 1, 2, '2022-05-02 20:11:05')]);
    const [document] = parseTvTimeFiles([{ name: 'tracking-prod-records-v2.csv', bytes: file }]);
    await applyImportDocument({ accountId: account.id, document: document! });
    const stored = await db().show.findUniqueOrThrow({ where: { id: catalogShow.id }, include: { episodes: { orderBy: { number: 'asc' } } } });
    expect([stored.title, stored.poster]).toEqual(['Catalog Title', 'https://images.example/p.jpg']);
    expect(stored.episodes.map((episode) => [episode.number, episode.title, episode.airDate])).toEqual([[1, 'Episode 1', '2020-01-01'], [2, null, null]]);
    const states = await db().watchState.findMany({ where: { accountId: account.id } });
    expect(states.map((state) => state.changedAt.toISOString()).sort()).toEqual(['2022-05-01T20:11:05.000Z', '2022-05-02T20:11:05.000Z']);
  });

  it("keeps the account's explicit follow and archive states", async () => {
    const account = await makeAccount();
    const { show, document } = traktHistory();
    await applyImportDocument({ accountId: account.id, document });
    const showId = (await db().show.findUniqueOrThrow({ where: { tmdbId: show.ids.tmdb! } })).id;
    await setFollow({ accountId: account.id, kind: 'show', id: showId, followed: false, archived: true });
    const later = parseTraktFile(json([traktEpisodePlay(9, '2025-04-01T21:00:00.000Z', show, 1, 3)]), 'watched-history-2.json');
    await applyImportDocument({ accountId: account.id, document: later });
    const row = await db().libraryItem.findFirstOrThrow({ where: { accountId: account.id, showId } });
    expect([row.followed, row.archived]).toEqual([false, true]);
  });

  it('an account that only archived an unfollowed show keeps it unfollowed (follow or archive set explicitly: both stay)', async () => {
    const account = await makeAccount();
    const { show } = traktHistory();
    const stored = await makeShow({ episodes: [{ number: 3, airDate: '2025-03-01' }] });
    await db().show.update({ where: { id: stored.id }, data: { tmdbId: show.ids.tmdb!, tvdbId: show.ids.tvdb ?? null } });
    await setFollow({ accountId: account.id, kind: 'show', id: stored.id, archived: true });
    const later = parseTraktFile(json([traktEpisodePlay(9, '2025-04-01T21:00:00.000Z', show, 1, 3)]), 'watched-history-2.json');
    await applyImportDocument({ accountId: account.id, document: later });
    const row = await db().libraryItem.findFirstOrThrow({ where: { accountId: account.id, showId: stored.id } });
    expect([row.followed, row.archived, row.followedAt]).toEqual([false, true, null]);
  });

  it('a stated unfollow applies (and then counts as explicit) when the account set nothing itself', async () => {
    const account = await makeAccount();
    const tvdb = unique();
    const followed = new TextEncoder().encode(`user_id,tv_show_id,active,archived,tv_show_name\r\n1,${tvdb},0,0,Gone Show\r\n`);
    const [unfollow] = parseTvTimeFiles([{ name: 'followed_tv_show.csv', bytes: followed }]);
    await applyImportDocument({ accountId: account.id, document: unfollow! });
    const [watch] = parseTvTimeFiles([{ name: 'tracking-prod-records-v2.csv', bytes: tvTimeTrackingV2([tvTimeWatch(tvdb, 'Gone Show', 1, 1, '2022-05-01 20:11:05')]) }]);
    await applyImportDocument({ accountId: account.id, document: watch! });
    const row = await db().libraryItem.findFirstOrThrow({ where: { accountId: account.id } });
    expect([row.followed, row.followExplicit]).toEqual([false, true]);
  });

  it('never un-watches what the account changed after the file, and updates what it changed before', async () => {
    const account = await makeAccount();
    const { show, document } = traktHistory();
    await applyImportDocument({ accountId: account.id, document });
    const episodes = await db().episode.findMany({ where: { show: { tmdbId: show.ids.tmdb! }, season: 1 }, orderBy: { number: 'asc' } });
    // Unwatched after the file's plays: stays unwatched. Unwatched "before" them: watched again.
    await setWatched({ accountId: account.id, kind: 'episode', id: episodes[0]!.id, watched: false, at: new Date('2025-06-01T00:00:00Z') });
    await setWatched({ accountId: account.id, kind: 'episode', id: episodes[1]!.id, watched: false, at: new Date('2025-03-03T00:00:00Z') });
    const again = await applyImportDocument({ accountId: account.id, document });
    expect(again.imported.history).toBe(0);
    const states = await db().watchState.findMany({ where: { accountId: account.id, episodeId: { in: episodes.map((episode) => episode.id) } } });
    const watchedOf = (episodeId: number) => states.find((state) => state.episodeId === episodeId)!.watched;
    expect(episodes.map((episode) => watchedOf(episode.id))).toEqual([false, true]);
  });

  it('handles documents larger than one batch (1 200 episodes, 600 movies) and dedupes them on a second import', async () => {
    const account = await makeAccount();
    const shows = Array.from({ length: 3 }, () => traktShow(`Big ${unique()}`, unique(), unique()));
    const file = [
      ...Array.from({ length: 1200 }, (_, index) => traktEpisodePlay(index, new Date(Date.UTC(2024, 0, 1) + index * 60_000).toISOString(), shows[index % 3]!, 1 + (index % 4), index)),
      ...Array.from({ length: 600 }, (_, index) => traktMoviePlay(5000 + index, '2024-06-01T00:00:00.000Z', `Movie ${index}`, unique())),
    ];
    const document = parseTraktFile(json(file), 'watched-history.json');
    const first = await applyImportDocument({ accountId: account.id, document });
    expect(first.imported).toEqual({ shows: 3, episodes: 1200, movies: 600, games: 0, history: 1800 });
    const second = await applyImportDocument({ accountId: account.id, document });
    expect(second.imported.history).toBe(0);
    expect(await counts(account.id)).toEqual({ library: 603, events: 1800, states: 1800 });
  });

  it('applies a document larger than one slice with the same rules as one pass: an item named twice, at both ends of the file, is merged as one', async () => {
    const account = await makeAccount();
    const at = (minute: number) => new Date(Date.UTC(2024, 0, 1) + minute * 60_000);
    const episodes = (count: number, from: number) => Array.from({ length: count }, (_, index) => ({ season: 1, number: index + 1, history: [{ watched: true, at: at(from + index) }] }));
    const show = (tmdb: number, count: number, from: number, followed?: boolean): ImportShow => ({ kind: 'show', ids: { tmdb }, title: `Sliced ${tmdb}`, followed, episodes: episodes(count, from) });
    const [a, b, c] = [unique(), unique(), unique()];
    const movies = Array.from({ length: sliceWeight + 10 }, (_, index): ImportTitle => ({ kind: 'movie', ids: { tmdb: 9_000_000 + a * 10 + index }, title: `M${index}`, history: [{ watched: true, at: at(index) }] }));
    const repeatedMovie: ImportTitle = { ...movies[0]!, followed: false, history: [{ watched: false, at: at(1_000_000) }] };
    const document: ImportDocument = {
      source: 'airdate',
      fileName: 'library.json',
      // Shows a and b fill the first slice (sliceWeight), c is in the next one; a is named again last.
      shows: [show(a, sliceWeight / 2, 0, true), show(b, sliceWeight / 2, 0), show(c, 10, 0), { ...show(a, 2, 500_000, false), episodes: [{ season: 1, number: 1, history: [{ watched: false, at: at(500_000) }] }] }],
      titles: [...movies, repeatedMovie],
      skipped: [],
    };
    const result = await applyImportDocument({ accountId: account.id, document });
    expect(result.imported).toEqual({ shows: 3, episodes: sliceWeight + 10, movies: sliceWeight + 10, games: 0, history: sliceWeight + 10 + 1 + sliceWeight + 10 + 1 });
    // As one pass would: the later stated flag wins (the first one did not yet count as the account's own).
    const showA = await db().show.findUniqueOrThrow({ where: { tmdbId: a } });
    const library = await db().libraryItem.findFirstOrThrow({ where: { accountId: account.id, showId: showA.id } });
    expect([library.followed, library.followExplicit]).toEqual([false, true]);
    const movie = await db().movie.findUniqueOrThrow({ where: { tmdbId: movies[0]!.ids.tmdb! } });
    expect((await db().libraryItem.findFirstOrThrow({ where: { accountId: account.id, movieId: movie.id } })).followed).toBe(false);
    // Both entries' history, merged: watched, then unwatched last, so no watched state is kept.
    const pilot = await db().episode.findFirstOrThrow({ where: { showId: showA.id, season: 1, number: 1 } });
    for (const where of [{ movieId: movie.id }, { episodeId: pilot.id }]) {
      const history = await db().watchEvent.findMany({ where: { accountId: account.id, ...where }, orderBy: { at: 'asc' } });
      expect(history.map((entry) => entry.watched)).toEqual([true, false]);
      expect(await db().watchState.count({ where: { accountId: account.id, ...where } })).toBe(0);
    }
    expect(await counts(account.id)).toEqual({ library: 3 + sliceWeight + 10, events: result.imported.history, states: 2 * (sliceWeight + 10) - 2 });
  });

  it('writes nothing for a document without items, and does not bump the feed version', async () => {
    const account = await makeAccount();
    const version = await feedVersion(account.id);
    const result = await applyImportDocument({ accountId: account.id, document: parseTraktFile(json([]), 'watched-history.json') });
    expect(result.imported).toEqual({ shows: 0, episodes: 0, movies: 0, games: 0, history: 0 });
    expect(await feedVersion(account.id)).toBe(version);
  });
});

describe('applyImportDocuments (one request)', () => {
  it('writes all documents in one transaction: distinct counts across them, one feed version bump, skips of every file', async () => {
    const account = await makeAccount();
    const first = traktHistory();
    const second = traktHistory();
    // The same show again in a third file: counted once.
    const third = parseTraktFile(json([traktEpisodePlay(9, '2025-04-01T21:00:00.000Z', first.show, 1, 3)]), 'watched-history-3.json');
    third.skipped.push({ item: 'row 2', reason: 'no date' });
    const version = await feedVersion(account.id);
    const result = await applyImportDocuments({ accountId: account.id, documents: () => [first.document, second.document, third] });
    expect(result.imported).toEqual({ shows: 2, episodes: 7, movies: 2, games: 0, history: 11 });
    expect(result.unmatched).toHaveLength(2);
    expect(result.skipped).toEqual([{ file: 'watched-history-3.json', item: 'row 2', reason: 'no date' }]);
    expect(await feedVersion(account.id)).toBe(version + 1);
    expect(await counts(account.id)).toEqual({ library: 4, events: 11, states: 9 });
  });

  it('writes nothing at all when a later document fails, the earlier ones included', async () => {
    const account = await makeAccount();
    const first = traktHistory();
    const [version, catalog] = [await feedVersion(account.id), await catalogVersion()];
    function* documents() {
      yield first.document;
      yield traktHistory().document;
      // A file that fails as it is parsed again (what the request's second pass does before
      // applying each file), after two documents' rows were written in the transaction.
      yield parseTraktFile(json({ not: 'a history' }), 'watched-history-3.json');
    }
    await expect(applyImportDocuments({ accountId: account.id, documents })).rejects.toThrow(/watched-history-3\.json/);
    expect(await counts(account.id)).toEqual({ library: 0, events: 0, states: 0 });
    expect(await db().show.count({ where: { tmdbId: first.show.ids.tmdb! } })).toBe(0);
    expect([await feedVersion(account.id), await catalogVersion()]).toEqual([version, catalog]);
  });
});
