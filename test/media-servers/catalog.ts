import { db } from '../../src/db/client.ts';

/**
 * The catalog rows the fixtures name (test/media-servers/fixtures): Severance with its show ids
 * and, per episode, its own TheTVDB (8000000 + n), TMDB (1950000 + n) and IMDb (tt116503nn) ids as
 * the offline file and the catalogs store them; a film and a game. Stored once per test file.
 */
export async function storeFixtureCatalog() {
  const severance = await db().show.create({
    data: {
      tvdbId: 371980,
      tmdbId: 95396,
      imdbId: 'tt11280740',
      title: 'Severance',
      episodes: {
        create: Array.from({ length: 9 }, (_, index) => ({
          season: 1,
          number: index + 1,
          tvdbId: 8000001 + index,
          tmdbId: 1950001 + index,
          imdbId: `tt116503${String(index + 1).padStart(2, '0')}`,
          title: `Episode ${index + 1}`,
          airDate: `2022-02-${String(18 + index).padStart(2, '0')}`,
        })),
      },
    },
    include: { episodes: { orderBy: { number: 'asc' } } },
  });
  const dune = await db().movie.create({ data: { tmdbId: 693134, imdbId: 'tt15239678', title: 'Dune: Part Two', releaseDate: '2024-03-01' } });
  const eldenRing = await db().game.create({ data: { igdbId: 119133, title: 'Elden Ring', releaseDate: '2022-02-25' } });
  return { severance, episode: (number: number) => severance.episodes[number - 1]!, dune, eldenRing };
}
