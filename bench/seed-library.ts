import { db } from '../src/db/client.ts';
import { addDays, localDate } from '../src/time/dates.ts';

/** Sizes of the benchmark library (issue: 500 shows × 50 episodes, 100 movies, 100 games). */
export interface LibrarySize {
  shows: number;
  episodesPerShow: number;
  movies: number;
  games: number;
}

/**
 * Seeds one account's library: weekly episodes around `today` (so the week list has about one
 * episode per show), a few seasons per show, some specials, a realistic share already watched,
 * and movies and games releasing over the coming months. Returns the account id.
 */
export async function seedLibrary(accountId: number, today: string, size: LibrarySize): Promise<void> {
  const client = db();
  const seed = `${accountId}-${Date.now()}`;
  for (let index = 0; index < size.shows; index += 1) {
    await client.show.create({ data: { title: `Bench Show ${index} ${seed}`, poster: `https://images.example/show-${index}.jpg` } });
  }
  const shows = await client.show.findMany({ where: { title: { endsWith: seed } }, select: { id: true }, orderBy: { id: 'asc' } });
  const episodes = shows.flatMap((show, index) =>
    Array.from({ length: size.episodesPerShow }, (_, position) => ({
      showId: show.id,
      // Every 25th episode is a special (season 0), the rest run in seasons of 24.
      season: position % 25 === 24 ? 0 : 1 + Math.floor(position / 25),
      number: position % 25 === 24 ? 1 + Math.floor(position / 25) : 1 + (position % 25),
      title: `Episode ${position + 1}`,
      airDate: addDays(today, (position - (size.episodesPerShow - 8)) * 7 + (index % 7)),
    })),
  );
  await client.episode.createMany({ data: episodes });
  await client.libraryItem.createMany({
    data: shows.map((show) => ({ accountId, kind: 'show', showId: show.id, followed: true, followExplicit: true, followedAt: new Date() })),
  });
  const stored = await client.episode.findMany({ where: { show: { title: { endsWith: seed } } }, select: { id: true, showId: true, season: true, number: true }, orderBy: { id: 'asc' } });
  const watchedUpTo = new Map(shows.map((show, index) => [show.id, (index * 7) % 30]));
  const watched = stored.filter((episode) => episode.season === 1 && episode.number <= (watchedUpTo.get(episode.showId) ?? 0));
  const changedAt = new Date();
  await client.watchState.createMany({ data: watched.map((episode, index) => ({ accountId, kind: 'episode', episodeId: episode.id, watched: true, changedAt: new Date(changedAt.getTime() - index * 60_000) })) });

  for (const kind of ['movie', 'game'] as const) {
    const count = kind === 'movie' ? size.movies : size.games;
    const rows = Array.from({ length: count }, (_, index) => ({ title: `Bench ${kind} ${index} ${seed}`, releaseDate: addDays(today, index - 20) }));
    if (kind === 'movie') await client.movie.createMany({ data: rows });
    else await client.game.createMany({ data: rows });
    const ids = kind === 'movie'
      ? await client.movie.findMany({ where: { title: { endsWith: seed } }, select: { id: true } })
      : await client.game.findMany({ where: { title: { endsWith: seed } }, select: { id: true } });
    await client.libraryItem.createMany({
      data: ids.map(({ id }) => ({ accountId, kind, ...(kind === 'movie' ? { movieId: id } : { gameId: id }), followed: true, followExplicit: true })),
    });
  }
}

/** Issue 14's library: 500 shows × 50 episodes, 100 movies, 100 games. */
export const issueLibrary: LibrarySize = { shows: 500, episodesPerShow: 50, movies: 100, games: 100 };

/**
 * Seeds issue 14's library for `accountId` around today in UTC (the bench accounts' zone), prints
 * how long it took on `databaseKind`, and returns that today.
 */
export async function seedIssueLibrary(accountId: number, databaseKind: string): Promise<string> {
  const today = localDate('UTC', new Date());
  const started = performance.now();
  await seedLibrary(accountId, today, issueLibrary);
  console.log(`${databaseKind}: seeded 500 shows × 50 episodes, 100 movies, 100 games in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return today;
}
