import { InputError } from '../errors.ts';
import { addDays, isValidLocalDate } from '../time/dates.ts';
import type { OfflineCatalogFile } from './offline-catalog.ts';

/**
 * A demo offline catalog with dates around `today`, so a new user sees a populated feed (up next,
 * airing today, this week, releasing, calendar) within a minute of cloning. Everything is made
 * up: ids sit far above the ranges the real catalogs hand out, posters point at images.example.
 */

type DemoShow = NonNullable<OfflineCatalogFile['shows']>[number];
type DemoEpisode = NonNullable<DemoShow['episodes']>[number];

const poster = (slug: string) => `https://images.example/demo/${slug}.jpg`;

/** One episode per `stepDays`, the first `firstOffset` days from today. */
function run(
  today: string,
  season: number,
  titles: string[],
  options: { firstNumber?: number; firstOffset: number; stepDays?: number; runtime?: number },
): DemoEpisode[] {
  const { firstNumber = 1, firstOffset, stepDays = 7, runtime = 44 } = options;
  return titles.map((title, index) => ({
    season,
    number: firstNumber + index,
    title,
    air_date: addDays(today, firstOffset + index * stepDays),
    // Running times in minutes (the statistics' hours watched); a finale runs longer.
    runtime: index === titles.length - 1 ? runtime + 12 : runtime,
  }));
}

/** The daily show: one episode per day from two weeks back to a week ahead, today being episode 102. */
function dailyEpisodes(today: string): DemoEpisode[] {
  const guests = ['Mara Quill', 'Dev Anand Rao', 'The Tin Orchard', 'Lucia Brandt', 'Oskar Veil', 'Priya Hollis', 'Jo Mercer'];
  const episodes: DemoEpisode[] = [];
  for (let offset = -14; offset <= 7; offset += 1) {
    episodes.push({
      season: 4,
      number: 102 + offset,
      title: `Guest: ${guests[(offset + 14) % guests.length]}`,
      air_date: addDays(today, offset),
      runtime: 22,
    });
  }
  return episodes;
}

/**
 * Builds the demo catalog for `today` (`YYYY-MM-DD`). Deterministic: the same date gives the same
 * catalog, so re-running the command and syncing changes nothing.
 */
export function buildDemoCatalog(today: string): OfflineCatalogFile {
  if (!isValidLocalDate(today)) throw new InputError(`expected a YYYY-MM-DD date, got "${today}"`, 'today');
  return {
    shows: [
      {
        // The ids export files key items by (offline-catalog.md): imports from TV Time, Trakt or
        // Grouvee match the demo's items by them too.
        ids: { tmdb: 9_100_001, tvdb: 9_200_001, imdb: 'tt91000001' },
        title: 'The Lantern Keepers',
        poster: poster('the-lantern-keepers'),
        overview: 'Three estranged siblings inherit a lighthouse that keeps more than ships off the rocks.',
        episodes: [
          // Season 1 airs weekly from six weeks ago; episode 7 airs today.
          ...run(
            today,
            1,
            ['First Light', 'Salt and Iron', 'The Fog Bell', 'Low Tide', 'A Keeper’s Log', 'Undertow', 'The Lamp Room'],
            { firstOffset: -42 },
          ),
          ...run(today, 1, ['Breakwater', 'Signal Fires', 'Dawn Watch'], { firstNumber: 8, firstOffset: 7 }),
          // Specials (season 0) never count in up next, but do show up in date feeds.
          { season: 0, number: 1, title: 'Inside the Lighthouse', air_date: addDays(today, -10), ids: { tvdb: 9_210_001, imdb: 'tt91000002' } },
          { season: 0, number: 2, title: 'Cast Reunion', air_date: null },
        ],
      },
      {
        ids: { tmdb: 9_100_002, tvdb: 9_200_002 },
        title: 'Midnight Ledger',
        poster: poster('midnight-ledger'),
        overview: 'A late-night talk show about money, mischief and the people who count it.',
        episodes: dailyEpisodes(today),
      },
      {
        ids: { tvdb: 9_200_003 },
        title: 'Harbor of Glass',
        poster: poster('harbor-of-glass'),
        overview: 'A coastal town rebuilds after the storm, one shop window at a time. Premieres tomorrow.',
        episodes: run(today, 1, ['Shattered', 'Sand and Fire', 'The Glassblower', 'Open for Business', 'Reflections'], {
          firstOffset: 1,
        }),
      },
      {
        ids: { tmdb: 9_100_004 },
        title: 'Copperline',
        poster: poster('copperline'),
        overview: 'Engineers race to finish a transcontinental railway before the money runs out.',
        episodes: [
          ...run(today, 2, ['Groundbreak', 'The Survey', 'Trestle', 'Dynamite Season', 'Payroll', 'The Pass'], {
            firstOffset: -39,
          }),
          ...run(today, 2, ['Snowshed', 'Golden Spike'], { firstNumber: 7, firstOffset: 3 }),
          // The network has not announced the last two dates yet.
          { season: 2, number: 9, title: 'Terminus', air_date: null },
          { season: 2, number: 10, title: null, air_date: null },
        ],
      },
      {
        ids: { tmdb: 9_100_005, tvdb: 9_200_005 },
        title: 'Quiet Orbit',
        poster: poster('quiet-orbit'),
        overview: 'The last crew of a research station decides whether to come home.',
        episodes: [
          ...run(today, 1, ['Station Keeping', 'Long Shadow', 'Telemetry', 'Burn Window', 'Drift', 'Return Vector'], {
            firstOffset: -41,
          }),
          ...run(today, 2, ['Re-entry'], { firstOffset: 27 }),
        ],
      },
    ],
    movies: [
      {
        ids: { tmdb: 9_300_001, imdb: 'tt93000001' },
        title: 'The Glass Cartographer',
        poster: poster('the-glass-cartographer'),
        overview: 'A mapmaker charts a city that rearranges itself every night.',
        release_date: today,
        runtime: 118,
      },
      {
        ids: { tmdb: 9_300_002 },
        title: 'Northbound Static',
        poster: poster('northbound-static'),
        overview: 'Two radio hosts drive the length of the country to find the source of a signal.',
        release_date: addDays(today, 1),
        runtime: 96,
      },
      {
        ids: { tmdb: 9_300_003 },
        title: 'Saltwater Requiem',
        poster: poster('saltwater-requiem'),
        overview: 'A retired diver is pulled back for one last salvage. Release date to be announced.',
        release_date: null,
      },
    ],
    games: [
      {
        ids: { igdb: 9_400_001, giantbomb: 9_410_001 },
        title: 'Ember Protocol',
        poster: poster('ember-protocol'),
        overview: 'A tactical stealth game set in a city where every streetlight is watching.',
        release_date: today,
      },
      {
        ids: { igdb: 9_400_002 },
        title: 'Tidebreaker Tactics',
        poster: poster('tidebreaker-tactics'),
        overview: 'Turn-based naval battles across a drowned archipelago.',
        release_date: addDays(today, 1),
      },
      {
        ids: { igdb: 9_400_003 },
        title: 'Hollow Signal',
        poster: poster('hollow-signal'),
        overview: 'A co-op survival game about keeping a radio tower alive through the winter.',
        release_date: null,
      },
    ],
  };
}
