import { db } from '../../src/db/client.ts';
import { setFollow, setWatched } from '../../src/library/library.ts';
import { makeAccount, makeGame, makeMovie, makeShow } from '../support/factories.ts';

/** Fuzz runs: fixed in CI (deterministic), more with AIRDATE_FUZZ_RUNS, another seed with AIRDATE_FUZZ_SEED. */
export const fuzzOptions = {
  numRuns: Number(process.env.AIRDATE_FUZZ_RUNS ?? 300),
  seed: Number(process.env.AIRDATE_FUZZ_SEED ?? 20261123),
  endOnFailure: true,
};

/**
 * An account with a small library of everything a request can touch: followed shows with
 * episodes (one archived), a movie and a game, some of them watched. Returns it with the ids.
 */
export async function makeLibraryAccount() {
  const account = await makeAccount({ timezone: 'Europe/Berlin' });
  const shows = await Promise.all(
    ['Alpha Hour', 'Beta, Gamma; and \\ Co', 'Ünïcödé 日本 😀'].map((title) =>
      makeShow({ title, episodes: [1, 2, 3, 4].map((number) => ({ number, airDate: `2026-11-${String(18 + number).padStart(2, '0')}` })) }),
    ),
  );
  const movie = await makeMovie({ title: 'Northbound Static', releaseDate: '2026-11-24' });
  const game = await makeGame({ title: 'Lantern Run', releaseDate: '2026-11-23' });
  for (const show of shows) await setFollow({ accountId: account.id, kind: 'show', id: show.id, followed: true });
  await setFollow({ accountId: account.id, kind: 'show', id: shows[2]!.id, archived: true });
  await setFollow({ accountId: account.id, kind: 'movie', id: movie.id, followed: true });
  await setFollow({ accountId: account.id, kind: 'game', id: game.id, followed: true });
  await setWatched({ accountId: account.id, kind: 'episode', id: shows[0]!.episodes[0]!.id, watched: true, source: 'api' });
  await setWatched({ accountId: account.id, kind: 'movie', id: movie.id, watched: true, source: 'api' });
  return { ...account, shows, movie, game };
}

/**
 * Everything a request could change about an account (its settings, token, library, watched
 * states, history) and the shared catalog's size, as one comparable value.
 */
export async function accountState(accountId: number): Promise<unknown> {
  const client = db();
  const [account, channels, token, library, states, history, catalog] = await Promise.all([
    client.account.findUniqueOrThrow({ where: { id: accountId }, select: { name: true, timezone: true, webhookSecretEnc: true } }),
    client.notificationChannel.findMany({ where: { accountId }, orderBy: { id: 'asc' }, select: { kind: true, targetEnc: true, events: true, enabled: true, disabledAt: true } }),
    client.apiToken.findUnique({ where: { accountId }, select: { digest: true } }),
    client.libraryItem.findMany({ where: { accountId }, orderBy: { id: 'asc' }, select: { kind: true, showId: true, movieId: true, gameId: true, followed: true, archived: true } }),
    client.watchState.findMany({ where: { accountId }, orderBy: { id: 'asc' }, select: { kind: true, episodeId: true, movieId: true, gameId: true, watched: true } }),
    client.watchEvent.count({ where: { accountId } }),
    Promise.all([client.show.count(), client.episode.count(), client.movie.count(), client.game.count()]),
  ]);
  return { account, channels, token, library, states, history, catalog };
}
