import { beforeAll, describe, expect, it } from 'vitest';
import { db } from '../../src/db/client.ts';
import { useTestApp } from '../support/database.ts';
import { storeFixtureCatalog } from './catalog.ts';
import { fixture, plexForm } from './fixtures.ts';
import { connectedAccount, deliver, deliveriesOf, watched } from './support.ts';

/**
 * A real evening on one Plex server, replayed: three Plex users (alex, sam, kim), about a hundred
 * webhook events in the order Plex sends them, delivered to two Airdate accounts whose Plex
 * connections each count one user (the server's webhook carries every user's plays). alex lets
 * autoplay run through Severance S01E01–E05, skipping the credits (the scrobble comes at 90 %,
 * the next episode starts before the stop), pausing now and then; Plex sends E03's scrobble twice;
 * E04 is stopped halfway, resumed later and finished. sam stops Dune: Part Two at 40 %, watches
 * S01E06–E07 from a library on a legacy agent (show id, season, episode), then finishes the film.
 * kim watches E01–E02 and an episode of a show nobody has, and the server adds and rates things.
 */

type Who = 'alex' | 'sam' | 'kim';
interface Step {
  who: Who;
  event: string;
  metadata: Record<string, unknown>;
}

const template = fixture('plex/episode-scrobble.json');
const episodeMetadata = (number: number) => ({
  ...(template.Metadata as Record<string, unknown>),
  title: `Episode ${number}`,
  index: number,
  ratingKey: String(1936543 + number),
  Guid: [{ id: `imdb://tt116503${String(number).padStart(2, '0')}` }, { id: `tmdb://${1950000 + number}` }, { id: `tvdb://${8000000 + number}` }],
});
const legacyEpisode = (number: number) => {
  const { Guid: _ids, ...rest } = episodeMetadata(number);
  return { ...rest, guid: `com.plexapp.agents.thetvdb://371980/1/${number}?lang=en` };
};
const film = { ...(fixture('plex/movie-scrobble.json').Metadata as Record<string, unknown>), Guid: undefined, guid: 'com.plexapp.agents.imdb://tt15239678?lang=en' };
const unknownShow = { ...episodeMetadata(1), grandparentTitle: 'A Show Nobody Has', Guid: [{ id: 'tvdb://9999901' }] };

/** One viewing: play, `pauses` pause/resume pairs, then the ending given. */
function viewing(who: Who, metadata: Record<string, unknown>, pauses: number, ending: string[]): Step[] {
  const steps: Step[] = [{ who, event: 'media.play', metadata }];
  for (let pause = 0; pause < pauses; pause += 1) steps.push({ who, event: 'media.pause', metadata }, { who, event: 'media.resume', metadata });
  return [...steps, ...ending.map((event) => ({ who, event, metadata }))];
}

function evening(): Step[] {
  const alex: Step[] = [];
  for (let number = 1; number <= 5; number += 1) {
    const metadata = episodeMetadata(number);
    if (number === 4) {
      // Stopped halfway, then resumed and finished.
      alex.push(...viewing('alex', metadata, 2, ['media.stop']), ...viewing('alex', metadata, 1, ['media.scrobble', 'media.stop']));
      continue;
    }
    // Credits skipped: the scrobble, then autoplay's next episode would start; the stop still comes.
    alex.push(...viewing('alex', metadata, 4, number === 3 ? ['media.scrobble', 'media.scrobble', 'media.stop'] : ['media.scrobble', 'media.stop']));
  }
  const sam = [
    ...viewing('sam', film, 2, ['media.stop']),
    ...viewing('sam', legacyEpisode(6), 2, ['media.scrobble', 'media.stop']),
    ...viewing('sam', legacyEpisode(7), 1, ['media.scrobble', 'media.stop']),
    ...viewing('sam', film, 1, ['media.scrobble', 'media.stop']),
    { who: 'sam' as const, event: 'media.rate', metadata: film },
  ];
  const kim = [
    ...viewing('kim', episodeMetadata(1), 1, ['media.scrobble', 'media.stop']),
    ...viewing('kim', episodeMetadata(2), 2, ['media.scrobble', 'media.stop']),
    ...viewing('kim', unknownShow, 1, ['media.scrobble', 'media.stop']),
  ];
  const server: Step[] = [8, 9, 9].map((number) => ({ who: 'alex' as const, event: 'library.new', metadata: episodeMetadata(number) }));
  // Interleaved as the evening went: each viewer's own order kept, the three taking turns.
  const streams = [alex, sam, kim, server];
  const merged: Step[] = [];
  const total = streams.reduce((sum, stream) => sum + stream.length, 0);
  while (merged.length < total) {
    for (const stream of streams) {
      const take = stream === alex ? 2 : 1;
      merged.push(...stream.splice(0, take));
    }
  }
  return merged;
}

const payload = (step: Step) => ({ ...template, event: step.event, Account: { id: 1, title: step.who }, Metadata: step.metadata });

const { app } = await useTestApp({ AIRDATE_RATE_LIMIT_PER_MINUTE: '0' });
let catalog: Awaited<ReturnType<typeof storeFixtureCatalog>>;
beforeAll(async () => {
  catalog = await storeFixtureCatalog();
});

describe('a real evening of one Plex server, replayed', () => {
  it('ends with exactly the right watches, one history entry each, and every delivery answered', async () => {
    const alex = await connectedAccount(app, 'plex', { users: ['alex'] });
    const sam = await connectedAccount(app, 'plex', { users: ['sam'] });
    const steps = evening();
    expect(steps.length).toBeGreaterThanOrEqual(100);

    const results = { alex: {} as Record<string, number>, sam: {} as Record<string, number> };
    for (const [index, step] of steps.entries()) {
      // Plex attaches the poster thumbnail to some events; every fourth carries one here.
      for (const [name, account] of [['alex', alex], ['sam', sam]] as const) {
        const response = await deliver(app, account.path, { form: plexForm(payload(step), index % 4 === 0) });
        expect(response.status).toBe(200);
        results[name][response.json.result] = (results[name][response.json.result] ?? 0) + 1;
      }
    }

    const episode = (number: number) => `episode:${catalog.episode(number).id}`;
    expect(await watched(alex.id)).toEqual([1, 2, 3, 4, 5].map(episode).sort());
    expect(await watched(sam.id)).toEqual([episode(6), episode(7), `movie:${catalog.dune.id}`].sort());
    for (const account of [alex, sam]) {
      const history = await db().watchEvent.findMany({ where: { accountId: account.id } });
      expect(history.every((entry) => entry.watched && entry.source === 'media-server:plex')).toBe(true);
      expect(new Set(history.map((entry) => entry.episodeId ?? entry.movieId)).size).toBe(history.length);
    }

    // Every event was answered; progress is neither written nor logged. alex: 5 episodes matched,
    // E03's second scrobble a duplicate, sam's and kim's plays and the server's events ignored.
    const scrobbles = (who: Who) => steps.filter((step) => step.who === who && step.event === 'media.scrobble').length;
    const progress = steps.filter((step) => ['media.play', 'media.pause', 'media.resume', 'media.stop'].includes(step.event)).length;
    const others = steps.length - progress - scrobbles('alex') - scrobbles('sam') - scrobbles('kim');
    expect(results.alex).toEqual({ matched: 5, duplicate: 1, ignored: progress + scrobbles('sam') + scrobbles('kim') + others });
    expect(results.sam).toEqual({ matched: 3, ignored: progress + scrobbles('alex') + scrobbles('kim') + others });
    expect((await deliveriesOf(alex.id)).length).toBe(steps.length - progress);
    expect((await deliveriesOf(sam.id)).filter((row) => row.result === 'matched').map((row) => row.detail)).toEqual([
      'recorded Severance S01E06 (by show ids)',
      'recorded Severance S01E07 (by show ids)',
      'recorded Dune: Part Two (by item ids)',
    ]);
  });
});
