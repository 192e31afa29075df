import { describe, expect, it } from 'vitest';
import { db } from '../../src/db/client.ts';
import { addDays, localDate } from '../../src/time/dates.ts';
import { useTestApp } from '../support/database.ts';
import { makeAccount, makeMovie, makeShow } from '../support/factories.ts';
import { call, graphql } from '../support/http.ts';

/**
 * The web app's marks over GraphQL (src/library/marks.ts): bulk marks of a show with each date
 * choice, aired episodes only, specials apart, the watch history page, undo, and another
 * account's ids refused with nothing written. Runs on SQLite and PostgreSQL.
 */
const { app } = await useTestApp();
const today = localDate('UTC', new Date());

const MarkEpisodes = `mutation ($input: MarkEpisodesInput!) { markEpisodes(input: $input) {
  __typename ... on MutationMarkEpisodesSuccess { data { changed itemIds historyIds } } ... on Error { code message } } }`;
const MarkWatched = `mutation ($input: MarkWatchedInput!) { markWatched(input: $input) {
  __typename ... on MutationMarkWatchedSuccess { data { changed itemIds historyIds } } ... on Error { code message } } }`;
const Undo = `mutation ($ids: [Int!]!) { undoMarks(ids: $ids) { __typename ... on MutationUndoMarksSuccess { data { removed changed } } ... on Error { code message } } }`;
const History = `query ($kind: WatchKind, $first: Int, $offset: Int) { watchHistory(kind: $kind) { total entries(first: $first, offset: $offset) {
  databaseId kind watched at dateUnknown episode { code show { title } } movie { title } } } }`;

/** A show with two aired seasons of two episodes, a special, and one episode airing in a week. */
async function fixture() {
  const account = await makeAccount();
  const show = await makeShow({
    episodes: [
      { season: 0, number: 1, airDate: addDays(today, -30) },
      { season: 1, number: 1, airDate: '2020-01-01' },
      { season: 1, number: 2, airDate: '2020-01-08' },
      { season: 2, number: 1, airDate: addDays(today, -1) },
      { season: 2, number: 2, airDate: null },
      { season: 2, number: 3, airDate: addDays(today, 7) },
    ],
  });
  const [special, s1e1, s1e2, s2e1, s2e2, s2e3] = show.episodes;
  return { account, show, special: special!, s1e1: s1e1!, s1e2: s1e2!, s2e1: s2e1!, s2e2: s2e2!, s2e3: s2e3! };
}

const watchedIds = async (accountId: number) =>
  (await db().watchState.findMany({ where: { accountId, watched: true }, select: { episodeId: true, movieId: true } })).map((row) => row.episodeId ?? row.movieId).sort((a, b) => a! - b!);

describe('markEpisodes', () => {
  it('marks a season with its air dates, only what has aired, and writes one history entry each', async () => {
    const { account, show, s1e1, s1e2 } = await fixture();
    const response = await graphql(app, account.token, MarkEpisodes, { input: { showId: show.id, season: 1, watched: true, date: 'AIR_DATE' } });
    expect(response.json.data.markEpisodes.data).toMatchObject({ changed: 2, itemIds: [s1e1.id, s1e2.id] });
    const history = await graphql(app, account.token, History, { kind: 'EPISODE' });
    expect(history.json.data.watchHistory.total).toBe(2);
    // Newest first: the air dates, at noon UTC.
    expect(history.json.data.watchHistory.entries.map((entry: { at: string; episode: { code: string } }) => [entry.episode.code, entry.at])).toEqual([
      ['S01E02', '2020-01-08T12:00:00.000Z'],
      ['S01E01', '2020-01-01T12:00:00.000Z'],
    ]);
  });

  it('"up to here" takes the aired regular episodes up to it, never specials unless asked, and the unknown date is said', async () => {
    const { account, show, s1e1, s1e2, s2e1, s2e3, special } = await fixture();
    const upTo = await graphql(app, account.token, MarkEpisodes, { input: { showId: show.id, upToEpisodeId: s2e3.id, watched: true, date: 'UNKNOWN' } });
    // S02E02 has no air date and S02E03 airs next week: not aired, not marked.
    expect(upTo.json.data.markEpisodes.data.itemIds).toEqual([s1e1.id, s1e2.id, s2e1.id]);
    expect(await watchedIds(account.id)).toEqual([s1e1.id, s1e2.id, s2e1.id]);
    const entries = (await graphql(app, account.token, History, {})).json.data.watchHistory.entries;
    expect(entries.every((entry: { dateUnknown: boolean }) => entry.dateUnknown)).toBe(true);
    // The export has no time to give them: watched, without a history entry.
    const exported = (await call(app, 'GET', '/api/export', { token: account.token })).text;
    const exportedEpisodes = JSON.parse(exported).shows.find((row: { title: string }) => row.title === show.title).episodes;
    expect(exportedEpisodes.find((episode: { season: number; number: number }) => episode.season === 1 && episode.number === 1)).toMatchObject({ watched: true, history: [] });

    // Specials when asked; the whole show with NOW; the same again changes nothing.
    const all = await graphql(app, account.token, MarkEpisodes, { input: { showId: show.id, includeSpecials: true, watched: true } });
    expect(all.json.data.markEpisodes.data.itemIds).toEqual([special.id]);
    const again = await graphql(app, account.token, MarkEpisodes, { input: { showId: show.id, includeSpecials: true, watched: true } });
    expect(again.json.data.markEpisodes.data).toEqual({ changed: 0, itemIds: [], historyIds: [] });

    // Unmarking up to S01E02 takes season 1 only, and the feed version moved: the summary sees it.
    const before = await db().account.findUniqueOrThrow({ where: { id: account.id } });
    const unmark = await graphql(app, account.token, MarkEpisodes, { input: { showId: show.id, upToEpisodeId: s1e2.id, watched: false } });
    expect(unmark.json.data.markEpisodes.data.itemIds).toEqual([s1e1.id, s1e2.id]);
    expect((await db().account.findUniqueOrThrow({ where: { id: account.id } })).feedVersion).toBe(before.feedVersion + 1);
    expect(await watchedIds(account.id)).toEqual([special.id, s2e1.id].sort((a, b) => a - b));
  });

  it('the summary follows a bulk mark at once (the kept snapshot is not reused)', async () => {
    const { account, show, s1e2, s2e1 } = await fixture();
    await call(app, 'POST', '/api/machine/follow', { token: account.token, body: { kind: 'show', id: show.id, followed: true } });
    // Read the summary once so this process keeps the snapshot, then mark through GraphQL.
    await call(app, 'POST', '/api/machine/watched', { token: account.token, body: { kind: 'episode', id: show.episodes[1]!.id, watched: true } });
    const first = (await call(app, 'GET', '/api/machine/summary', { token: account.token })).json;
    expect(first.next.id).toBe(s1e2.id);
    await graphql(app, account.token, MarkEpisodes, { input: { showId: show.id, season: 1, watched: true } });
    const second = (await call(app, 'GET', '/api/machine/summary', { token: account.token })).json;
    expect(second.next.id).toBe(s2e1.id);
    // The show's own next episode is the same rule's.
    const next = await graphql(app, account.token, `query ($id: Int!) { show(id: $id) { upNext { databaseId } } }`, { id: show.id });
    expect(next.json.data.show.upNext.databaseId).toBe(s2e1.id);
  });

  it("refuses a missing show, another show's episode and bad input, writing nothing", async () => {
    const { account, show } = await fixture();
    const other = await makeShow({ episodes: [{ number: 1, airDate: '2020-01-01' }] });
    const cases: [Record<string, unknown>, string][] = [
      [{ showId: show.id + 1_000_000, watched: true }, 'NOT_FOUND'],
      [{ showId: show.id, upToEpisodeId: other.episodes[0]!.id, watched: true }, 'NOT_FOUND'],
      [{ showId: 0, watched: true }, 'BAD_INPUT'],
      [{ showId: show.id, season: -1, watched: true }, 'BAD_INPUT'],
    ];
    for (const [input, code] of cases) {
      const response = await graphql(app, account.token, MarkEpisodes, { input });
      expect(response.json.data.markEpisodes.code).toBe(code);
    }
    expect(await db().watchEvent.count({ where: { accountId: account.id } })).toBe(0);
  });
});

describe('bulk marks among other writes', () => {
  it('a burst of bulk marks, single toggles and undos at once all answer, and the states match the history', async () => {
    const account = await makeAccount();
    const show = await makeShow({ episodes: Array.from({ length: 40 }, (_, index) => ({ season: 1 + Math.floor(index / 10), number: 1 + (index % 10), airDate: '2020-01-01' })) });
    const ids = show.episodes.map((episode) => episode.id);
    const bulk = [1, 2, 3, 4].map((season) => graphql(app, account.token, MarkEpisodes, { input: { showId: show.id, season, watched: true } }));
    const toggles = ids.slice(0, 20).map((id) => call(app, 'POST', '/api/machine/watched', { token: account.token, body: { kind: 'episode', id, watched: true } }));
    const answers = await Promise.all([...bulk, ...toggles]);
    expect(answers.map((answer) => answer.status)).toEqual(Array(answers.length).fill(200));
    expect(bulk.length).toBe(4);
    for (const answer of answers.slice(0, 4)) expect(answer.json.data?.markEpisodes.__typename, JSON.stringify(answer.json)).toBe('MutationMarkEpisodesSuccess');
    expect(await watchedIds(account.id)).toEqual([...ids].sort((a, b) => a - b));
    // Each episode changed once: one history entry each, whoever wrote it.
    expect(await db().watchEvent.count({ where: { accountId: account.id } })).toBe(40);
    // Undo every entry in two requests at once (disjoint halves): nothing left watched.
    const entries = (await db().watchEvent.findMany({ where: { accountId: account.id }, select: { id: true } })).map((entry) => entry.id);
    const undos = await Promise.all([entries.slice(0, 20), entries.slice(20)].map((half) => graphql(app, account.token, Undo, { ids: half })));
    expect(undos.map((answer) => answer.json.data.undoMarks.data.removed)).toEqual([20, 20]);
    expect(await watchedIds(account.id)).toEqual([]);
  });
});

describe('markWatched and undoMarks', () => {
  it('marks a movie with its release date, and undo puts it back and removes the entry', async () => {
    const account = await makeAccount();
    const movie = await makeMovie({ releaseDate: '2021-05-05' });
    const marked = (await graphql(app, account.token, MarkWatched, { input: { kind: 'MOVIE', ids: [movie.id], watched: true, date: 'AIR_DATE' } })).json.data.markWatched.data;
    expect(marked.changed).toBe(1);
    const history = (await graphql(app, account.token, History, { kind: 'MOVIE' })).json.data.watchHistory;
    expect(history.entries).toEqual([expect.objectContaining({ kind: 'MOVIE', at: '2021-05-05T12:00:00.000Z', movie: { title: movie.title } })]);
    const undone = await graphql(app, account.token, Undo, { ids: marked.historyIds });
    expect(undone.json.data.undoMarks.data).toEqual({ removed: 1, changed: 1 });
    expect(await watchedIds(account.id)).toEqual([]);
    expect((await graphql(app, account.token, History, {})).json.data.watchHistory.total).toBe(0);
  });

  it('undoing an unmark brings the watch back; undoing one of two marks keeps the earlier', async () => {
    const account = await makeAccount();
    const movie = await makeMovie();
    const mark = (watched: boolean) => graphql(app, account.token, MarkWatched, { input: { kind: 'MOVIE', ids: [movie.id], watched } }).then((response) => response.json.data.markWatched.data);
    await mark(true);
    const unmark = await mark(false);
    await graphql(app, account.token, Undo, { ids: unmark.historyIds });
    expect(await watchedIds(account.id)).toEqual([movie.id]);
  });

  it("another account's history entries and a missing item are refused, nothing changes", async () => {
    const [owner, intruder] = [await makeAccount(), await makeAccount()];
    const movie = await makeMovie();
    const marked = (await graphql(app, owner.token, MarkWatched, { input: { kind: 'MOVIE', ids: [movie.id], watched: true } })).json.data.markWatched.data;
    const refused = await graphql(app, intruder.token, Undo, { ids: marked.historyIds });
    expect(refused.json.data.undoMarks.code).toBe('NOT_FOUND');
    expect(await watchedIds(owner.id)).toEqual([movie.id]);
    expect((await graphql(app, intruder.token, History, {})).json.data.watchHistory).toEqual({ total: 0, entries: [] });

    const missing = await graphql(app, owner.token, MarkWatched, { input: { kind: 'MOVIE', ids: [movie.id, movie.id + 1_000_000], watched: false } });
    expect(missing.json.data.markWatched.code).toBe('NOT_FOUND');
    expect(await watchedIds(owner.id)).toEqual([movie.id]);
    const tooMany = await graphql(app, owner.token, MarkWatched, { input: { kind: 'MOVIE', ids: Array.from({ length: 5_001 }, (_, index) => index + 1), watched: true } });
    expect(tooMany.json.data.markWatched).toMatchObject({ code: 'BAD_INPUT', message: 'ids may name at most 5000 items' });
  });

  it('the history pages newest first, filters by kind, and shows the viewer state on items', async () => {
    const account = await makeAccount();
    const movie = await makeMovie();
    const show = await makeShow({ episodes: [{ number: 1, airDate: '2020-01-01' }, { number: 2, airDate: '2020-01-02' }] });
    await graphql(app, account.token, MarkEpisodes, { input: { showId: show.id, watched: true, date: 'AIR_DATE' } });
    await graphql(app, account.token, MarkWatched, { input: { kind: 'MOVIE', ids: [movie.id], watched: true } });
    const page = (offset: number) => graphql(app, account.token, History, { first: 1, offset }).then((response) => response.json.data.watchHistory);
    expect((await page(0)).entries[0].kind).toBe('MOVIE');
    expect((await page(1)).entries[0].episode.code).toBe('S01E02');
    expect((await page(2)).entries[0].episode.code).toBe('S01E01');
    expect((await page(3)).entries).toEqual([]);
    const state = await graphql(app, account.token, `query ($id: Int!) { show(id: $id) { watchedEpisodeCount libraryEntry { followed } episodes { code watched } } }`, { id: show.id });
    expect(state.json.data.show).toEqual({ watchedEpisodeCount: 2, libraryEntry: null, episodes: [{ code: 'S01E01', watched: true }, { code: 'S01E02', watched: true }] });
    // The library tells a movie from a show (a movie row has a tvdbId column too), with its watched flag.
    await call(app, 'POST', '/api/machine/follow', { token: account.token, body: { kind: 'movie', id: movie.id, followed: true } });
    const library = await graphql(app, account.token, `{ library(kind: MOVIE) { edges { node { item { __typename ... on Movie { databaseId watched libraryEntry { followed } } } } } } }`);
    expect(library.json.data.library.edges).toEqual([{ node: { item: { __typename: 'Movie', databaseId: movie.id, watched: true, libraryEntry: { followed: true } } } }]);
    // Another account sees the same catalog show without this account's marks.
    const other = await makeAccount();
    const seen = await graphql(app, other.token, `query ($id: Int!) { show(id: $id) { watchedEpisodeCount episodes { watched } } }`, { id: show.id });
    expect(seen.json.data.show).toEqual({ watchedEpisodeCount: 0, episodes: [{ watched: false }, { watched: false }] });
  });
});

describe("a mark's feed version and a show's seasons (issue 33: one mark, one refetch of what changed)", () => {
  const Versioned = `mutation ($input: MarkWatchedInput!) { markWatched(input: $input) { ... on MutationMarkWatchedSuccess { data { changed feedVersion } } } }`;
  const Seasons = `query ($id: Int!) { show(id: $id) { seasons { number episodeCount airedCount watchedCount watchedAiredCount } upNext { code } } }`;

  it("answers the feed version the write made (the live stream's event carries it), null when nothing changed; undo too", async () => {
    const { account, s1e1 } = await fixture();
    const before = (await db().account.findUniqueOrThrow({ where: { id: account.id } })).feedVersion;
    const mark = await graphql(app, account.token, Versioned, { input: { kind: 'EPISODE', ids: [s1e1.id], watched: true } });
    const after = (await db().account.findUniqueOrThrow({ where: { id: account.id } })).feedVersion;
    expect(after).toBe(before + 1);
    expect(mark.json.data.markWatched.data).toEqual({ changed: 1, feedVersion: after });
    const again = await graphql(app, account.token, Versioned, { input: { kind: 'EPISODE', ids: [s1e1.id], watched: true } });
    expect(again.json.data.markWatched.data).toEqual({ changed: 0, feedVersion: null });
    const history = (await graphql(app, account.token, History, {})).json.data.watchHistory.entries;
    const undo = await graphql(app, account.token, `mutation ($ids: [Int!]!) { undoMarks(ids: $ids) { ... on MutationUndoMarksSuccess { data { feedVersion } } } }`, { ids: [history[0].databaseId] });
    expect(undo.json.data.undoMarks.data.feedVersion).toBe(after + 1);
    expect((await db().account.findUniqueOrThrow({ where: { id: account.id } })).feedVersion).toBe(after + 1);
  });

  it("counts each season's episodes, aired ones and the viewer's watched ones, specials as season 0; another account's marks never count", async () => {
    const { account, show, s1e1, s2e3, special } = await fixture();
    const other = await makeAccount();
    await graphql(app, other.token, MarkWatched, { input: { kind: 'EPISODE', ids: show.episodes.map((episode) => episode.id), watched: true } });
    await graphql(app, account.token, MarkWatched, { input: { kind: 'EPISODE', ids: [s1e1.id, s2e3.id, special.id], watched: true } });
    const answer = (await graphql(app, account.token, Seasons, { id: show.id })).json.data.show;
    expect(answer.seasons).toEqual([
      { number: 0, episodeCount: 1, airedCount: 1, watchedCount: 1, watchedAiredCount: 1 },
      { number: 1, episodeCount: 2, airedCount: 2, watchedCount: 1, watchedAiredCount: 1 },
      // S02E02 has no date, S02E03 airs next week (watched ahead: counted watched, not aired).
      { number: 2, episodeCount: 3, airedCount: 1, watchedCount: 1, watchedAiredCount: 0 },
    ]);
    // The summary's rule: after the furthest watched (S02E03, watched ahead), nothing aired is left.
    expect(answer.upNext).toBeNull();
    const fresh = (await graphql(app, (await makeAccount()).token, Seasons, { id: show.id })).json.data.show;
    expect(fresh.seasons.map((season: { watchedCount: number }) => season.watchedCount)).toEqual([0, 0, 0]);
  });
});
