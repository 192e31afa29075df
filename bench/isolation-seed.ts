import { createAccount } from '../src/accounts/accounts.ts';
import { showToken } from '../src/accounts/tokens.ts';
import { loadConfig } from '../src/config.ts';
import { closeDatabase, db, openDatabase } from '../src/db/client.ts';
import { initSecretKey } from '../src/keys/secret-key.ts';
import { addDays, localDate } from '../src/time/dates.ts';
import { issueLibrary, seedLibrary } from './seed-library.ts';

/**
 * The accounts and catalog rows of `npm run bench:isolation` (bench/isolation.ts), written with
 * the sources of the build under test: the benchmark copies this file into an older commit's tree
 * (BENCH_BASELINE) and runs it there, so that each build's database is migrated and filled by its
 * own code and Prisma client. Reads the data folder or DATABASE_URL from the environment as the
 * server does; prints one JSON line (IsolationSeed) last.
 *
 * - the victim: issue 14's library (seed-library.ts: 500 shows × 50 episodes, 100 movies, 100
 *   games), a password for the real sign-in, and 50 aired episodes its watched toggles flip;
 * - the owner (of the live-update streams): a password, and an episode to mark;
 * - the attacker: 20 shows × 1,000 aired episodes, none watched (the bulk marks' ids), and a show
 *   of 2,700 aired episodes (markEpisodes);
 * - the show the media-server deliveries name: stored under its TMDB and TheTVDB ids with its
 *   seasons, as the benchmark's fake TMDB serves it (isolation-catalog.ts passes it as the
 *   first argument, JSON).
 */

/** What the seed made, as isolation.ts reads it. */
export interface IsolationSeed {
  password: string;
  victim: SeededAccount & { episodes: number[] };
  owner: SeededAccount & { episode: number };
  attacker: SeededAccount & { bulkEpisodes: number[]; longShowId: number; longShowEpisodes: number };
}

interface SeededAccount {
  id: number;
  name: string;
  token: string;
}

/** The show the deliveries name (isolation-catalog.ts deliveryShow). */
interface DeliveryShow {
  tmdb: number;
  tvdb: number;
  title: string;
  seasons: number;
  episodesPerSeason: number;
}
const bulkShows = 20;
const bulkEpisodesPerShow = 1_000;
const longShowEpisodes = 2_700;

const deliveryShow = JSON.parse(process.argv[2] ?? '') as DeliveryShow;
const config = loadConfig(process.env);
await openDatabase(config, { migrate: true });
initSecretKey(config);
const today = localDate('UTC', new Date());
const password = 'bench isolation password';

async function account(name: string): Promise<SeededAccount> {
  const created = await createAccount({ name, timezone: 'UTC', password });
  return { id: created.id, name, token: await showToken({ accountId: created.id }) };
}

/** A show of `count` episodes in seasons of `seasonSize`, all aired before today; its id. */
async function storeShow(data: { title: string; tmdbId?: number; tvdbId?: number }, count: number, seasonSize: number): Promise<number> {
  const show = await db().show.create({ data, select: { id: true } });
  await db().episode.createMany({
    data: Array.from({ length: count }, (_, index) => ({
      showId: show.id,
      season: 1 + Math.floor(index / seasonSize),
      number: 1 + (index % seasonSize),
      title: `Episode ${index + 1}`,
      airDate: addDays(today, -count - 30 + index),
    })),
  });
  return show.id;
}

const follow = (accountId: number, showIds: number[]) =>
  db().libraryItem.createMany({ data: showIds.map((showId) => ({ accountId, kind: 'show', showId, followed: true, followExplicit: true, followedAt: new Date() })) });

const started = performance.now();
const victim = await account('victim');
await seedLibrary(victim.id, today, issueLibrary);
const victimEpisodes = await db().episode.findMany({
  where: { show: { libraryRows: { some: { accountId: victim.id } } }, airDate: { lte: today }, watchStates: { none: { accountId: victim.id } } },
  select: { id: true },
  orderBy: { id: 'asc' },
  take: 50,
});

const owner = await account('owner');

const attacker = await account('attacker');
const bulkShowIds: number[] = [];
for (let index = 0; index < bulkShows; index += 1) bulkShowIds.push(await storeShow({ title: `Bulk Show ${index + 1}` }, bulkEpisodesPerShow, 100));
const longShowId = await storeShow({ title: 'Long Show' }, longShowEpisodes, 100);
await follow(attacker.id, [...bulkShowIds, longShowId]);
const bulkEpisodes = await db().episode.findMany({ where: { showId: { in: bulkShowIds } }, select: { id: true }, orderBy: { id: 'asc' } });

await storeShow(
  { title: deliveryShow.title, tmdbId: deliveryShow.tmdb, tvdbId: deliveryShow.tvdb },
  deliveryShow.seasons * deliveryShow.episodesPerSeason,
  deliveryShow.episodesPerSeason,
);

const seed: IsolationSeed = {
  password,
  victim: { ...victim, episodes: victimEpisodes.map((episode) => episode.id) },
  owner: { ...owner, episode: victimEpisodes[0]!.id },
  attacker: { ...attacker, bulkEpisodes: bulkEpisodes.map((episode) => episode.id), longShowId, longShowEpisodes },
};
await closeDatabase();
console.error(`${config.database.kind}: seeded the victim (500 shows × 50 episodes, 100 movies, 100 games), the owner and the attacker (${bulkShows} × ${bulkEpisodesPerShow} + ${longShowEpisodes} episodes) in ${((performance.now() - started) / 1000).toFixed(1)} s`);
console.log(JSON.stringify(seed));
