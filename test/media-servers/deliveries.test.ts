import { beforeAll, describe, expect, it } from 'vitest';
import { db } from '../../src/db/client.ts';
import { retryUnmatchedDeliveries } from '../../src/media-servers/deliveries.ts';
import { useTestApp } from '../support/database.ts';
import { makeAccount } from '../support/factories.ts';
import { call, graphql } from '../support/http.ts';
import { storeFixtureCatalog } from './catalog.ts';
import { fixture, formEncoded, plexForm } from './fixtures.ts';
import { connectedAccount, deliver, deliveriesOf, watched } from './support.ts';

const { app } = await useTestApp({ AIRDATE_MEDIA_SERVER_PER_MINUTE: '40', AIRDATE_RATE_LIMIT_PER_MINUTE: '0' });
let catalog: Awaited<ReturnType<typeof storeFixtureCatalog>>;
beforeAll(async () => {
  catalog = await storeFixtureCatalog();
});

const episodeKey = (number: number) => `episode:${catalog.episode(number).id}`;
const silent = { warn: () => undefined };

describe('Jellyfin', () => {
  it('a played stop sent as text/plain (the plugin’s default) records the episode, at the event’s time, through the library’s write path', async () => {
    const account = await connectedAccount(app, 'jellyfin');
    const before = await db().account.findUniqueOrThrow({ where: { id: account.id } });
    const response = await deliver(app, account.path, { text: JSON.stringify(fixture('jellyfin/official-episode-playback-stop.json')) });
    expect(response.status).toBe(200);
    expect(response.json).toEqual({ ok: true, result: 'matched', event: 'PlaybackStop', user: 'sam', items: [{ kind: 'episode', title: 'Severance', season: 1, episode: 2, recorded: true }] });
    expect(await watched(account.id)).toEqual([episodeKey(2)]);
    const [entry] = await db().watchEvent.findMany({ where: { accountId: account.id } });
    expect(entry).toMatchObject({ source: 'media-server:jellyfin', at: new Date('2026-11-20T21:03:11.123Z') });
    // The feed version moved: feeds, the calendar's readers and notifications see the watch.
    expect((await db().account.findUniqueOrThrow({ where: { id: account.id } })).feedVersion).toBeGreaterThan(before.feedVersion);
    expect((await call(app, 'GET', '/api/machine/summary', { token: account.token })).status).toBe(200);
  });

  it('the same body form-encoded (the generic form destination) and as application/json is read the same', async () => {
    const body = fixture('jellyfin/official-episode-playback-stop.json');
    const form = await connectedAccount(app, 'jellyfin');
    expect((await deliver(app, form.path, { text: formEncoded(body), type: 'application/x-www-form-urlencoded' })).json).toMatchObject({ result: 'matched' });
    const json = await connectedAccount(app, 'jellyfin');
    expect((await deliver(app, json.path, { json: body })).json).toMatchObject({ result: 'matched' });
    expect(await watched(form.id)).toEqual([episodeKey(2)]);
    expect(await watched(json.id)).toEqual([episodeKey(2)]);
  });

  it('a multi-episode file marks every episode; a film is a film', async () => {
    const account = await connectedAccount(app, 'jellyfin');
    const multi = await deliver(app, account.path, { json: fixture('jellyfin/official-episode-multi-playback-stop.json') });
    expect(multi.json.items.map((item: { episode: number }) => item.episode)).toEqual([3, 4]);
    const film = await deliver(app, account.path, { json: fixture('jellyfin/official-movie-playback-stop.json') });
    expect(film.json.items).toEqual([{ kind: 'movie', title: 'Dune: Part Two', recorded: true }]);
    expect(await watched(account.id)).toEqual([episodeKey(3), episodeKey(4), `movie:${catalog.dune.id}`].sort());
  });

  it('start and progress are acknowledged, and neither recorded nor logged', async () => {
    const account = await connectedAccount(app, 'jellyfin');
    for (const name of ['official-episode-playback-start', 'official-episode-playback-progress']) {
      const response = await deliver(app, account.path, { json: fixture(`jellyfin/${name}.json`) });
      expect(response.json).toMatchObject({ ok: true, result: 'ignored', reason: expect.stringContaining('progress') });
    }
    expect(await watched(account.id)).toEqual([]);
    expect(await deliveriesOf(account.id)).toEqual([]);
  });

  it('a stop before the end is answered and logged as stopped at its per cent, not counted; a film abandoned at 0.4 % too', async () => {
    const account = await connectedAccount(app, 'jellyfin');
    const early = await deliver(app, account.path, { json: fixture('jellyfin/official-episode-playback-stop-early.json') });
    expect(early.json).toEqual({ ok: true, result: 'ignored', event: 'PlaybackStop', user: 'sam', reason: 'stopped at 18 %: not counted (only a play to the end is recorded)' });
    const film = { ...fixture('jellyfin/official-movie-playback-stop.json'), PlayedToCompletion: false, PlaybackPositionTicks: 400_000_000, RunTimeTicks: 100_000_000_000 };
    expect((await deliver(app, account.path, { json: film })).json.reason).toBe('stopped at 0.4 %: not counted (only a play to the end is recorded)');
    expect(await watched(account.id)).toEqual([]);
    expect((await deliveriesOf(account.id)).map((row) => [row.result, row.detail])).toEqual([
      ['ignored', 'Severance S01E02 stopped at 18 %: not counted (only a play to the end is recorded)'],
      ['ignored', 'Dune: Part Two stopped at 0.4 %: not counted (only a play to the end is recorded)'],
    ]);
    // A stop of a user the connection does not count says that instead.
    const other = await connectedAccount(app, 'jellyfin', { users: ['alex'] });
    expect((await deliver(app, other.path, { json: fixture('jellyfin/official-episode-playback-stop-early.json') })).json.reason).toBe('user sam is not among the users that count');
  });

  it('an unmatched delivery names every id it carried, those it cannot use (AniDB) with why', async () => {
    const account = await connectedAccount(app, 'jellyfin');
    const anime = { ...fixture('jellyfin/official-episode-playback-stop.json'), SeriesName: 'Frieren', Provider_tvdb: undefined, Provider_imdb: undefined, Provider_tmdb: undefined, Provider_anidb: '17617', ItemId: 'anime-1' };
    const answer = (await deliver(app, account.path, { json: anime })).json;
    expect(answer).toMatchObject({
      result: 'unmatched',
      reason: 'no stored episode matches title "Frieren" S1E2, and no single followed show has that title; ids seen and not used: anidb 17617 (Airdate matches by TheTVDB, TMDB and IMDb ids only)',
      seen: { ids: {}, unusedIds: [{ provider: 'anidb', id: '17617', why: 'Airdate matches by TheTVDB, TMDB and IMDb ids only' }] },
    });
    expect((await deliveriesOf(account.id))[0]!.detail).toContain('anidb 17617 (Airdate matches by TheTVDB, TMDB and IMDb ids only)');
  });

  it('a manual mark counts only when turned on; unplayed removes only a watch this source recorded', async () => {
    const account = await connectedAccount(app, 'jellyfin');
    const played = fixture('jellyfin/official-episode-userdatasaved-played.json');
    const off = await deliver(app, account.path, { json: played });
    expect(off.json).toMatchObject({ result: 'ignored', reason: expect.stringContaining('manual marks do not count') });
    expect(await watched(account.id)).toEqual([]);

    const on = await connectedAccount(app, 'jellyfin', { manualMarks: true });
    expect((await deliver(app, on.path, { json: played })).json).toMatchObject({ result: 'matched' });
    expect(await watched(on.id)).toEqual([episodeKey(2)]);
    const unplayed = await deliver(app, on.path, { json: fixture('jellyfin/official-episode-userdatasaved-unplayed.json') });
    expect(unplayed.json).toMatchObject({ result: 'removed', items: [{ episode: 2, recorded: true }] });
    expect(await watched(on.id)).toEqual([]);

    // A watch the person recorded through the API is not the server's to remove.
    await call(app, 'POST', '/api/machine/watched', { token: on.token, body: { kind: 'episode', id: catalog.episode(2).id, watched: true } });
    const kept = await deliver(app, on.path, { json: { ...fixture('jellyfin/official-episode-userdatasaved-unplayed.json'), UtcTimestamp: '2026-11-21T10:00:00Z' } });
    expect(kept.json).toMatchObject({ result: 'ignored', reason: expect.stringContaining('not recorded by jellyfin') });
    expect(await watched(on.id)).toEqual([episodeKey(2)]);
  });

  it('the community plugin: Stop played matched by the series ids, MarkPlayed by the episode’s own id', async () => {
    const account = await connectedAccount(app, 'jellyfin', { manualMarks: true });
    expect((await deliver(app, account.path, { json: fixture('jellyfin/community-episode-stop-played.json') })).json).toMatchObject({ result: 'matched' });
    expect((await deliver(app, account.path, { json: fixture('jellyfin/community-episode-markplayed.json') })).json).toMatchObject({ result: 'matched', items: [{ episode: 5 }] });
    expect((await deliver(app, account.path, { json: fixture('jellyfin/community-episode-pause.json') })).json).toMatchObject({ result: 'ignored' });
    expect(await watched(account.id)).toEqual([episodeKey(2), episodeKey(5)].sort());
    const log = await deliveriesOf(account.id);
    expect(log.map((row) => [row.event, row.result])).toEqual([
      ['Stop', 'matched'],
      ['MarkPlayed', 'matched'],
    ]);
    expect(log[0]!.detail).toBe('recorded Severance S01E02 (by show ids)');
    expect(log[1]!.detail).toBe('recorded Severance S01E05 (by show ids)');
  });
});

describe('Plex', () => {
  it('media.scrobble as multipart with its thumbnail part records the episode by its own Guid ids', async () => {
    const account = await connectedAccount(app, 'plex');
    const response = await deliver(app, account.path, { form: plexForm(fixture('plex/episode-scrobble.json'), true) });
    expect(response.json).toEqual({ ok: true, result: 'matched', event: 'media.scrobble', user: 'alex', items: [{ kind: 'episode', title: 'Severance', season: 1, episode: 2, recorded: true }] });
    expect(await watched(account.id)).toEqual([episodeKey(2)]);
  });

  it('a legacy agent’s guid matches by the show’s id with season and episode; a film by its ids', async () => {
    const account = await connectedAccount(app, 'plex');
    expect((await deliver(app, account.path, { form: plexForm(fixture('plex/episode-scrobble-legacy-agent.json')) })).json).toMatchObject({ result: 'matched', items: [{ episode: 6 }] });
    expect((await deliver(app, account.path, { form: plexForm(fixture('plex/movie-scrobble.json'), true) })).json).toMatchObject({ result: 'matched', items: [{ kind: 'movie' }] });
    expect(await watched(account.id)).toEqual([episodeKey(6), `movie:${catalog.dune.id}`].sort());
  });

  it('play, pause, stop are acknowledged and dropped; rate and library.new are logged as ignored', async () => {
    const account = await connectedAccount(app, 'plex');
    for (const name of ['episode-play', 'episode-pause', 'episode-stop', 'movie-rate', 'library-new']) {
      const response = await deliver(app, account.path, { form: plexForm(fixture(`plex/${name}.json`), name === 'library-new') });
      expect(response.json.result).toBe('ignored');
    }
    expect(await watched(account.id)).toEqual([]);
    expect((await deliveriesOf(account.id)).map((row) => [row.event, row.detail])).toEqual([
      ['media.rate', 'event media.rate is not a play'],
      ['library.new', 'event library.new is not a play'],
    ]);
  });

  it('a stop and a scrobble of one play, a second scrobble: one watch; a scrobble after an unmark within the window changes nothing', async () => {
    const account = await connectedAccount(app, 'plex');
    const scrobble = plexForm(fixture('plex/episode-scrobble.json'));
    await deliver(app, account.path, { form: plexForm(fixture('plex/episode-stop.json')) });
    expect((await deliver(app, account.path, { form: scrobble })).json.result).toBe('matched');
    expect((await deliver(app, account.path, { form: plexForm(fixture('plex/episode-scrobble.json')) })).json).toMatchObject({ result: 'duplicate', items: [{ recorded: false }] });
    await call(app, 'POST', '/api/machine/watched', { token: account.token, body: { kind: 'episode', id: catalog.episode(2).id, watched: false } });
    expect((await deliver(app, account.path, { form: plexForm(fixture('plex/episode-scrobble.json')) })).json.result).toBe('duplicate');
    expect(await watched(account.id)).toEqual([]);
    expect(await db().watchEvent.count({ where: { accountId: account.id, watched: true } })).toBe(1);
  });

  it('only the listed Plex users count; the others are logged as ignored', async () => {
    const account = await connectedAccount(app, 'plex', { users: ['Sam'] });
    const alex = await deliver(app, account.path, { form: plexForm(fixture('plex/episode-scrobble.json')) });
    expect(alex.json).toMatchObject({ result: 'ignored', user: 'alex', reason: 'user alex is not among the users that count' });
    const sam = fixture('plex/episode-scrobble.json');
    (sam.Account as { title: string }).title = 'sam';
    expect((await deliver(app, account.path, { form: plexForm(sam) })).json.result).toBe('matched');
    expect(await watched(account.id)).toEqual([episodeKey(2)]);
  });
});

describe('Emby', () => {
  it('playback.stop played to completion, as JSON and as a form’s data field, by the episode’s one id', async () => {
    const body = fixture('emby/episode-playback-stop-completed.json');
    const json = await connectedAccount(app, 'emby');
    expect((await deliver(app, json.path, { json: body })).json).toMatchObject({ result: 'matched', items: [{ episode: 2 }] });
    const form = await connectedAccount(app, 'emby');
    expect((await deliver(app, form.path, { text: new URLSearchParams({ data: JSON.stringify(body) }).toString(), type: 'application/x-www-form-urlencoded' })).json).toMatchObject({ result: 'matched' });
    const multipart = await connectedAccount(app, 'emby');
    const parts = new FormData();
    parts.set('data', JSON.stringify(body));
    expect((await deliver(app, multipart.path, { form: parts })).json).toMatchObject({ result: 'matched' });
    for (const account of [json, form, multipart]) expect(await watched(account.id)).toEqual([episodeKey(2)]);
  });

  it('a partial stop and a start are dropped; markplayed/markunplayed of a film with manual marks on', async () => {
    const account = await connectedAccount(app, 'emby', { manualMarks: true });
    expect((await deliver(app, account.path, { json: fixture('emby/episode-playback-stop-partial.json') })).json.result).toBe('ignored');
    expect((await deliver(app, account.path, { json: fixture('emby/episode-playback-start.json') })).json.result).toBe('ignored');
    expect((await deliver(app, account.path, { json: fixture('emby/movie-markplayed.json') })).json).toMatchObject({ result: 'matched', items: [{ kind: 'movie' }] });
    expect(await watched(account.id)).toEqual([`movie:${catalog.dune.id}`]);
    expect((await deliver(app, account.path, { json: fixture('emby/movie-markunplayed.json') })).json.result).toBe('removed');
    expect(await watched(account.id)).toEqual([]);
  });

  it('a repeated delivery of one event (same server, user, item, event and time) is recorded once and its repeats answered duplicate', async () => {
    const account = await connectedAccount(app, 'emby');
    const body = fixture('emby/episode-playback-stop-completed.json');
    const answers = await Promise.all([1, 2, 3].map(() => deliver(app, account.path, { json: body })));
    expect(answers.map((answer) => answer.json.result).sort()).toEqual(['duplicate', 'duplicate', 'matched']);
    for (const answer of answers.filter((one) => one.json.result === 'duplicate')) {
      expect(answer.json).toEqual({ ok: true, result: 'duplicate', event: 'playback.stop', user: 'sam', reason: expect.stringMatching(/^a repeat of the event delivered at .+Z \(answered matched then\): counted once, nothing recorded again$/) });
    }
    const later = await deliver(app, account.path, { json: body });
    expect(later.json).toMatchObject({ result: 'duplicate' });
    expect(later.json).not.toHaveProperty('items');
    expect((await deliveriesOf(account.id)).map((row) => row.result)).toEqual(['matched', 'duplicate', 'duplicate', 'duplicate']);
    expect(await db().watchEvent.count({ where: { accountId: account.id } })).toBe(1);
  });
});

describe('generic JSON', () => {
  it('records an episode by its show’s ids, one by its own id, a film and a game; eventId makes a repeat count once', async () => {
    const account = await connectedAccount(app, 'generic');
    const byShow = fixture('generic/episode-by-show-ids.json');
    expect((await deliver(app, account.path, { json: byShow })).json).toMatchObject({ result: 'matched', user: 'sam', items: [{ episode: 8 }] });
    expect((await deliver(app, account.path, { json: byShow })).json).toMatchObject({ result: 'duplicate', reason: expect.stringContaining('a repeat of the event') });
    expect((await deliver(app, account.path, { json: fixture('generic/episode-by-own-ids.json') })).json).toMatchObject({ result: 'matched', items: [{ episode: 9 }] });
    expect((await deliver(app, account.path, { json: fixture('generic/movie.json') })).json.result).toBe('matched');
    expect((await deliver(app, account.path, { json: fixture('generic/game.json') })).json).toMatchObject({ items: [{ kind: 'game', title: 'Elden Ring' }] });
    expect(await watched(account.id)).toEqual([episodeKey(8), episodeKey(9), `movie:${catalog.dune.id}`, `game:${catalog.eldenRing.id}`].sort());
    expect(await deliveriesOf(account.id)).toHaveLength(5);
    const unplayed = await deliver(app, account.path, { json: { event: 'unplayed', kind: 'game', ids: { igdb: 119133 } } });
    expect(unplayed.json.result).toBe('removed');
  });
});

describe('Kodi add-ons on the generic URL', () => {
  it('Movary’s add-on (a finished film) and Ryot’s (an episode past 95 %) are recorded as they send; Ryot’s progress below is dropped', async () => {
    const account = await connectedAccount(app, 'generic');
    expect((await deliver(app, account.path, { json: fixture('kodi/movary-addon-movie.json') })).json).toMatchObject({ result: 'matched', event: 'movary-kodi', items: [{ kind: 'movie', title: 'Dune: Part Two' }] });
    expect((await deliver(app, account.path, { json: fixture('kodi/ryot-addon-movie-40.json') })).json).toMatchObject({ result: 'ignored', reason: expect.stringContaining('progress') });
    expect((await deliver(app, account.path, { json: fixture('kodi/ryot-addon-episode-97.json') })).json).toMatchObject({ result: 'matched', event: 'ryot-kodi', items: [{ episode: 6 }] });
    // The add-on sends again as the episode goes on: one watch.
    expect((await deliver(app, account.path, { json: { ...fixture('kodi/ryot-addon-episode-97.json'), progress: 99 } })).json.result).toBe('duplicate');
    expect(await watched(account.id)).toEqual([episodeKey(6), `movie:${catalog.dune.id}`].sort());
  });
});

describe('matching', () => {
  it('by title only when exactly one followed show has it; never a show invented', async () => {
    const noIds = { ...fixture('plex/episode-scrobble.json') };
    noIds.Metadata = { ...(noIds.Metadata as object), Guid: [], index: 7 };
    const stranger = await connectedAccount(app, 'plex');
    const unmatched = await deliver(app, stranger.path, { form: plexForm(noIds) });
    expect(unmatched.json).toMatchObject({
      result: 'unmatched',
      reason: 'no stored episode matches title "Severance" S1E7, and no single followed show has that title',
      seen: { kind: 'episode', show: { title: 'Severance', ids: {} }, season: 1, episode: 7 },
    });

    const follower = await connectedAccount(app, 'plex');
    await call(app, 'POST', '/api/machine/follow', { token: follower.token, body: { kind: 'show', id: catalog.severance.id, followed: true } });
    expect((await deliver(app, follower.path, { form: plexForm(noIds) })).json).toMatchObject({ result: 'matched', items: [{ episode: 7 }] });

    // Two followed shows of that title: ambiguous, nothing recorded.
    const remake = await db().show.create({ data: { tmdbId: 777001, title: 'severance', episodes: { create: [{ season: 1, number: 7, airDate: null }] } } });
    const both = await connectedAccount(app, 'plex');
    for (const id of [catalog.severance.id, remake.id]) await call(app, 'POST', '/api/machine/follow', { token: both.token, body: { kind: 'show', id, followed: true } });
    expect((await deliver(app, both.path, { form: plexForm(noIds) })).json.result).toBe('unmatched');
    expect(await watched(both.id)).toEqual([]);
    expect(await db().show.count({ where: { title: 'Severance' } })).toBe(1);
  });

  it('an unmatched delivery is kept and recorded, at its own time, when the catalog learns its ids', async () => {
    const account = await connectedAccount(app, 'jellyfin');
    const body = { ...fixture('jellyfin/official-episode-playback-stop.json'), SeriesName: 'Pluribus', Provider_tvdb: '9100003', Provider_tmdb: '', Provider_imdb: '' };
    const first = await deliver(app, account.path, { json: body });
    expect(first.json).toMatchObject({ result: 'unmatched', seen: { ids: { tvdb: 9100003 } } });
    const [row] = await deliveriesOf(account.id);
    expect(row).toMatchObject({ result: 'unmatched', pending: expect.any(String) });

    expect(await retryUnmatchedDeliveries({ accountId: account.id, logger: silent })).toEqual({ tried: 1, matched: 0, failures: 0 });
    const show = await db().show.create({ data: { tvdbId: 9100000, title: 'Pluribus', episodes: { create: [{ season: 1, number: 2, tvdbId: 9100003, airDate: '2025-11-07' }] } }, include: { episodes: true } });
    expect(await retryUnmatchedDeliveries({ accountId: account.id, logger: silent })).toEqual({ tried: 1, matched: 1, failures: 0 });
    expect(await watched(account.id)).toEqual([`episode:${show.episodes[0]!.id}`]);
    expect((await db().watchEvent.findFirstOrThrow({ where: { accountId: account.id } })).at).toEqual(new Date('2026-11-20T21:03:11.123Z'));
    const [settled] = await deliveriesOf(account.id);
    expect(settled).toMatchObject({ result: 'matched', pending: null, detail: 'on retry: recorded Pluribus S01E02 (by item ids)' });
  });
});

describe('hostile and wrong deliveries', () => {
  const body = () => fixture('jellyfin/official-episode-playback-stop.json');

  it('401 without a token, with an API token, a made-up one, another source’s, a revoked or a regenerated one', async () => {
    const account = await connectedAccount(app, 'jellyfin');
    const token = new URL(account.path, 'http://x').searchParams.get('token')!;
    expect((await deliver(app, '/api/media-servers/jellyfin', { json: body() })).status).toBe(401);
    expect((await deliver(app, `/api/media-servers/jellyfin?token=${account.token}`, { json: body() })).json.error).toMatch(/an API token does not work here/);
    expect((await deliver(app, `/api/media-servers/jellyfin?token=adw_${'x'.repeat(38)}`, { json: body() })).status).toBe(401);
    expect((await deliver(app, `/api/media-servers/jellyfin?token=${'a'.repeat(5000)}`, { json: body() })).status).toBe(401);
    expect((await deliver(app, `/api/media-servers/plex?token=${token}`, { form: plexForm(fixture('plex/episode-scrobble.json')) })).json).toEqual({ error: 'this token belongs to the jellyfin connection: use its URL' });
    // The token opens nothing else.
    expect((await call(app, 'GET', '/api/machine/summary', { token })).status).toBe(401);
    expect((await graphql(app, token, '{ viewer { name } }')).status).toBe(401);

    const regenerated = await graphql(app, account.token, 'mutation { connectMediaServer(source: JELLYFIN) { ... on MutationConnectMediaServerSuccess { data { path } } } }');
    expect((await deliver(app, account.path, { json: body() })).status).toBe(401);
    const fresh = regenerated.json.data.connectMediaServer.data.path as string;
    expect((await deliver(app, fresh, { json: body() })).status).toBe(200);
    expect((await graphql(app, account.token, 'mutation { revokeMediaServer(source: JELLYFIN) }')).json.data.revokeMediaServer).toBe(true);
    expect((await deliver(app, fresh, { json: body() })).status).toBe(401);
    expect(await watched(account.id)).toEqual([episodeKey(2)]);
  });

  it('400 naming what the source sends for another server’s body, bad JSON, an empty body, the wrong encoding', async () => {
    const jellyfin = await connectedAccount(app, 'jellyfin');
    const plex = await connectedAccount(app, 'plex');
    const emby = await connectedAccount(app, 'emby');
    const generic = await connectedAccount(app, 'generic');
    const cases: [string, Parameters<typeof deliver>[2], RegExp][] = [
      [emby.path, { json: body() }, /expected an Emby webhook body/],
      [plex.path, { json: body() }, /expected a Plex webhook: multipart\/form-data with the JSON in a "payload" part/],
      [jellyfin.path, { form: plexForm(fixture('plex/episode-scrobble.json')) }, /multipart body sent; expected a Jellyfin webhook body/],
      [jellyfin.path, { text: '{"NotificationType": ' }, /request body is not valid JSON; expected a Jellyfin webhook body/],
      [jellyfin.path, { text: '' }, /request body is empty/],
      [plex.path, { form: (() => { const form = new FormData(); form.set('thumb', new Blob([new Uint8Array(8)])); return form; })() }, /no "payload" part/],
      [plex.path, { form: (() => { const form = new FormData(); form.set('payload', '{not json'); return form; })() }, /the "payload" part is not valid JSON/],
      [emby.path, { text: 'Event=playback.stop', type: 'application/x-www-form-urlencoded' }, /no "data" field/],
      [generic.path, { text: 'kind=movie', type: 'application/x-www-form-urlencoded' }, /form fields sent; expected the generic JSON body/],
      [generic.path, { json: { kind: 'show' } }, /kind: kind must be episode, movie or game/],
    ];
    for (const [path, delivery, message] of cases) {
      const response = await deliver(app, path, delivery);
      expect(response.status, String(message)).toBe(400);
      expect(response.json.error).toMatch(message);
    }
    for (const account of [jellyfin, plex, emby, generic]) expect(await deliveriesOf(account.id)).toEqual([]);
  });

  it('413 past the body limits, nothing recorded', async () => {
    const account = await connectedAccount(app, 'jellyfin');
    const huge = JSON.stringify({ ...body(), Overview: 'x'.repeat(300 * 1024) });
    expect((await deliver(app, account.path, { text: huge })).status).toBe(413);
    const plex = await connectedAccount(app, 'plex');
    const form = plexForm(fixture('plex/episode-scrobble.json'));
    form.set('thumb', new Blob([new Uint8Array(5 * 1024 * 1024)], { type: 'image/jpeg' }), 'thumb.jpg');
    expect((await deliver(app, plex.path, { form })).status).toBe(413);
    expect(await watched(account.id)).toEqual([]);
    expect(await watched(plex.id)).toEqual([]);
  });

  it('a connection records into its own account only', async () => {
    const mine = await connectedAccount(app, 'generic');
    const other = await makeAccount();
    await deliver(app, mine.path, { json: fixture('generic/movie.json') });
    expect(await watched(mine.id)).toEqual([`movie:${catalog.dune.id}`]);
    expect(await watched(other.id)).toEqual([]);
    const log = await graphql(app, other.token, '{ viewer { mediaServerConnections { source } mediaServerDeliveries { event } } }');
    expect(log.json.data.viewer).toEqual({ mediaServerConnections: [], mediaServerDeliveries: [] });
  });

  it('a burst of progress events is answered, none written, and never uses up the plays’ rate; past a rate, 429 with Retry-After', async () => {
    const account = await connectedAccount(app, 'jellyfin');
    const progress = JSON.stringify(fixture('jellyfin/official-episode-playback-progress.json'));
    // 40 a minute for plays and other events here (AIRDATE_MEDIA_SERVER_PER_MINUTE), 400 for progress.
    const burst = await Promise.all(Array.from({ length: 60 }, () => deliver(app, account.path, { text: progress })));
    expect(burst.every((response) => response.status === 200 && response.json.result === 'ignored')).toBe(true);
    expect(await deliveriesOf(account.id)).toEqual([]);
    expect((await deliver(app, account.path, { json: fixture('jellyfin/official-episode-playback-stop.json') })).json.result).toBe('matched');
    const added = JSON.stringify(fixture('jellyfin/official-item-added.json'));
    const others = await Promise.all(Array.from({ length: 39 }, (_, index) => deliver(app, account.path, { text: added.replace('"UtcTimestamp":', `"Index":${index},"UtcTimestamp":`) })));
    expect(others.map((response) => response.status)).toEqual(Array(39).fill(200));
    const refused = await deliver(app, account.path, { text: added });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await deliver(app, account.path, { text: progress })).status).toBe(200);
    // Another connection, and the account's own API, are not affected.
    const other = await connectedAccount(app, 'jellyfin');
    expect((await deliver(app, other.path, { text: added })).status).toBe(200);
    expect((await call(app, 'GET', '/api/machine/summary', { token: account.token })).status).toBe(200);
  });
});

describe('the delivery log and the connection through GraphQL', () => {
  it('lists connections with their options and the log newest first, with why a delivery did not match', async () => {
    const account = await connectedAccount(app, 'plex', { users: [' alex ', 'alex', ''], manualMarks: true });
    await deliver(app, account.path, { form: plexForm(fixture('plex/episode-scrobble.json')) });
    const unknown = fixture('plex/movie-scrobble.json');
    unknown.Metadata = { ...(unknown.Metadata as object), title: 'Nope', Guid: [{ id: 'tmdb://1' }] };
    await deliver(app, account.path, { form: plexForm(unknown) });
    const read = await graphql(
      app,
      account.token,
      '{ viewer { mediaServerConnections { source path users manualMarks lastUsedAt } mediaServerDeliveries(first: 5) { source event serverUser result detail waiting } } }',
    );
    const viewer = read.json.data.viewer;
    expect(viewer.mediaServerConnections).toEqual([{ source: 'PLEX', path: account.path, users: ['alex'], manualMarks: true, lastUsedAt: expect.any(String) }]);
    expect(viewer.mediaServerDeliveries).toEqual([
      { source: 'PLEX', event: 'media.scrobble', serverUser: 'alex', result: 'unmatched', detail: 'no stored film matches ids tmdb:1 or the title "Nope" among followed ones', waiting: true },
      { source: 'PLEX', event: 'media.scrobble', serverUser: 'alex', result: 'matched', detail: 'recorded Severance S01E02 (by item ids)', waiting: false },
    ]);
    const tooMany = await graphql(app, account.token, 'mutation($u: [String!]) { setMediaServerOptions(input: { source: PLEX, users: $u }) { __typename ... on InputError { message } } }', {
      u: Array.from({ length: 51 }, (_, index) => `user${index}`),
    });
    expect(tooMany.json.data.setMediaServerOptions).toEqual({ __typename: 'InputError', message: 'at most 50 user names' });
    const notConnected = await graphql(app, account.token, 'mutation { setMediaServerOptions(input: { source: EMBY, manualMarks: true }) { __typename } }');
    expect(notConnected.json.data.setMediaServerOptions.__typename).toBe('NotFoundError');
    expect((await graphql(app, account.token, 'mutation { revokeMediaServer(source: EMBY) }')).json.data.revokeMediaServer).toBe(false);
    // A page holds at most the kept log and the waiting ones.
    const tooLong = await graphql(app, account.token, '{ viewer { mediaServerDeliveries(first: 301) { event } } }');
    expect(tooLong.json.errors[0].message).toBe('Argument "first" must be from 0 to 300; got 301');
  });

  it('keeps the newest deliveries and the unmatched ones waiting, bounded', async () => {
    const account = await connectedAccount(app, 'generic');
    const rows = Array.from({ length: 130 }, (_, index) => ({ accountId: account.id, source: 'generic', at: new Date(), event: 'played', result: index % 2 ? 'unmatched' : 'matched', detail: 'd', answer: '{}', pending: index % 2 ? '{}' : null }));
    await db().mediaServerDelivery.createMany({ data: rows });
    await deliver(app, account.path, { json: fixture('generic/movie.json') });
    const kept = await deliveriesOf(account.id);
    // The newest 100 stand; of the 31 older ones, the 15 unmatched still wait for the catalog.
    expect(kept).toHaveLength(115);
    expect(kept.slice(0, 15).every((row) => row.pending !== null)).toBe(true);
  });
});
