import { serveCatalog } from '../test/catalog/support/catalog-peer.ts';
import { tmdbRoute, type TmdbShow } from '../test/catalog/support/tmdb-fixture.ts';
import { graphql, outcomeOf, send, tally, type Answer } from './isolation-client.ts';
import type { Measured } from './isolation-victim.ts';
import type { ScenarioContext } from './isolation-writes.ts';

/**
 * bench:isolation's catalog (issue 31, item 6): a fake TMDB on a free loopback port that counts
 * every request (test/catalog's peer and fixture, answering as TMDB v3 does), and the media-server
 * deliveries that make the server ask it.
 */

/** The show the deliveries name, stored by the seed (isolation-seed.ts) and served by the fake TMDB. */
export const deliveryShow = { tmdb: 91_001, tvdb: 92_001, title: 'Harbour Lights', seasons: 20, episodesPerSeason: 10 } as const;
/** The season the deliveries name: neither the store nor the catalog has it (a season numbered by year, say). */
const missingSeason = deliveryShow.seasons + 1;

export type FakeTmdb = Awaited<ReturnType<typeof startFakeTmdb>>;

/** Starts the fake TMDB the servers are pointed at (AIRDATE_TMDB_URL, TMDB_API_KEY). */
export async function startFakeTmdb() {
  const key = 'bench-isolation-tmdb-key';
  const seasons: TmdbShow['seasons'] = {};
  for (let season = 1; season <= deliveryShow.seasons; season += 1) {
    seasons[season] = Array.from({ length: deliveryShow.episodesPerSeason }, (_, index) => ({ episode_number: index + 1, name: `Episode ${index + 1}`, air_date: '2020-01-01' }));
  }
  const show: TmdbShow = { id: deliveryShow.tmdb, name: deliveryShow.title, poster_path: null, overview: '', tvdbId: deliveryShow.tvdb, seasons };
  const peer = await serveCatalog(tmdbRoute({ shows: [show], movies: [] }, key));
  return {
    env: { TMDB_API_KEY: key, AIRDATE_TMDB_URL: peer.url },
    /** Requests so far: a mark to count from. */
    mark: () => peer.requests.length,
    /** Requests since `mark` but the title searches (the victim's: a burst's cost is its lookups). */
    lookupsSince: (mark: number) => peer.requests.slice(mark).filter((request) => !request.path.startsWith('/search/')).length,
    close: peer.close,
  };
}

/**
 * A Jellyfin delivery (the community plugin's body, which names the series by its TMDB and TheTVDB
 * ids) of episode `number` of the missing season, with an episode id of its own no catalog knows.
 */
function jellyfinPlay(number: number, play: number) {
  return {
    Event: 'Scrobble',
    Item: {
      Name: `Episode ${number}`,
      Id: `bench-item-${number}-${play}`,
      Type: 'Episode',
      IndexNumber: number,
      ParentIndexNumber: missingSeason,
      SeriesName: deliveryShow.title,
      ProviderIds: { Tvdb: String(93_000_000 + number) },
      UserData: { Played: true, LastPlayedDate: new Date(Date.UTC(2026, 0, 1, 0, play)).toISOString() },
    },
    Series: { Name: deliveryShow.title, ProviderIds: { Tmdb: String(deliveryShow.tmdb), Tvdb: String(deliveryShow.tvdb) } },
    User: { Name: 'sam', Id: 'bench-user' },
    Server: { Id: 'bench-server', Name: 'jellyfin' },
  };
}

/** A Plex delivery (multipart `payload`) of the same, from the legacy TMDB agent: the show's TMDB id, season and episode. */
function plexPlay(number: number): FormData {
  const form = new FormData();
  form.append(
    'payload',
    JSON.stringify({
      event: 'media.scrobble',
      Account: { title: 'alex' },
      Metadata: { type: 'episode', title: `Episode ${number}`, grandparentTitle: deliveryShow.title, parentIndex: missingSeason, index: number, guid: `com.plexapp.agents.themoviedb://${deliveryShow.tmdb}/${missingSeason}/${number}?lang=en` },
    }),
  );
  return form;
}

/** What a delivery's answer says came of it (`matched`, `unmatched`, …), or its status. */
const resultOf = (answer: Answer) => (answer.status === 200 ? String(answer.json?.result) : outcomeOf(answer));

/**
 * 6. The attacker's Jellyfin and Plex connections deliver plays of a season neither the store nor
 * TMDB has. First one delivery of each alone and the same episode again (the catalog requests each
 * cost), then BENCH_DELIVERIES (30) at once, half from each, other episodes, while the victim
 * searches the catalog interactively (its searchCatalog asks TMDB too).
 */
export async function catalogDeliveries(context: ScenarioContext, tmdb: FakeTmdb): Promise<Measured[]> {
  const token = { token: context.seed.attacker.token };
  const paths: Record<string, string> = {};
  for (const source of ['JELLYFIN', 'PLEX']) {
    const answer = await graphql(context.origin, token, 'mutation($s: MediaServerSource!) { connectMediaServer(source: $s) { __typename ... on MutationConnectMediaServerSuccess { data { path } } } }', { s: source });
    paths[source] = answer.json?.data?.connectMediaServer?.data?.path;
    if (!paths[source]) throw new Error(`connecting ${source} failed: ${answer.status} ${answer.text.slice(0, 200)}`);
  }
  let plays = 0;
  const deliver = (source: string, number: number) =>
    source === 'JELLYFIN'
      ? send(`${context.origin}${paths.JELLYFIN}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(jellyfinPlay(number, plays++)) })
      : send(`${context.origin}${paths.PLEX}`, { method: 'POST', body: plexPlay(number) });
  /** One delivery alone: what it came to and the catalog requests it cost. */
  const alone = async (source: string, number: number) => {
    const mark = tmdb.mark();
    const answer = await deliver(source, number);
    return `${resultOf(answer)}, ${tmdb.lookupsSince(mark)} catalog requests`;
  };
  const single: string[] = [];
  for (const source of ['JELLYFIN', 'PLEX']) single.push(`${source.toLowerCase()}: first ${await alone(source, 1)}, same episode again ${await alone(source, 1)}`);
  console.log(`  deliveries alone: ${single.join('; ')}`);
  const count = Number(process.env.BENCH_DELIVERIES ?? 30);
  const phase = await context.phase(
    `deliveries: ${count} at once (Jellyfin and Plex), season ${missingSeason} of a stored show`,
    async () => {
      const mark = tmdb.mark();
      const started = performance.now();
      const answers = await Promise.all(Array.from({ length: count }, (_, index) => deliver(index % 2 === 0 ? 'JELLYFIN' : 'PLEX', 2 + Math.floor(index / 2))));
      const seconds = (performance.now() - started) / 1000;
      const lookups = tmdb.lookupsSince(mark);
      return `alone: ${single.join('; ')}; ${count} at once: ${tally(answers.map(resultOf))} in ${seconds.toFixed(1)} s, ${lookups} catalog requests (${(lookups / count).toFixed(1)} a delivery)`;
    },
    { search: true },
  );
  return [phase];
}
