import { randomUUID } from 'node:crypto';
import { db } from '../../src/db/client.ts';
import { showToken } from '../../src/accounts/tokens.ts';
import { createAccount } from '../../src/accounts/accounts.ts';

let serial = 0;
/** A unique positive number for external ids and names within this test process. */
export const unique = (): number => Number(`${process.pid % 10000}${++serial}`) * 7;

/** A fresh account with its API token. */
export async function makeAccount(props: { timezone?: string } = {}) {
  const created = await createAccount({ name: `user-${randomUUID().slice(0, 8)}`, timezone: props.timezone ?? 'UTC' });
  const token = await showToken({ accountId: created.id });
  return { id: created.id, name: created.name, token };
}

export interface EpisodeSpec {
  season?: number;
  number: number;
  title?: string | null;
  airDate: string | null;
}

/** A catalog show with the given episodes (season 1 unless said). */
export async function makeShow(props: { title?: string; poster?: string | null; episodes?: EpisodeSpec[] } = {}) {
  return db().show.create({
    data: {
      tmdbId: unique(),
      title: props.title ?? `Show ${serial}`,
      poster: props.poster ?? null,
      episodes: {
        create: (props.episodes ?? []).map((episode) => ({
          season: episode.season ?? 1,
          number: episode.number,
          title: episode.title === undefined ? `Episode ${episode.number}` : episode.title,
          airDate: episode.airDate,
        })),
      },
    },
    include: { episodes: { orderBy: [{ season: 'asc' }, { number: 'asc' }] } },
  });
}

/** A catalog movie. */
export async function makeMovie(props: { title?: string; releaseDate?: string | null } = {}) {
  return db().movie.create({ data: { tmdbId: unique(), title: props.title ?? `Movie ${serial}`, releaseDate: props.releaseDate ?? null } });
}

/** A catalog game. */
export async function makeGame(props: { title?: string; releaseDate?: string | null } = {}) {
  return db().game.create({ data: { igdbId: unique(), title: props.title ?? `Game ${serial}`, releaseDate: props.releaseDate ?? null } });
}
