import { describe, expect, it } from 'vitest';
import { FormatError } from '../../src/media-servers/sources/media-event.ts';
import { parseEmby } from '../../src/media-servers/sources/parse-emby.ts';
import { parseGeneric } from '../../src/media-servers/sources/parse-generic.ts';
import { parseJellyfin } from '../../src/media-servers/sources/parse-jellyfin.ts';
import { parsePlex } from '../../src/media-servers/sources/parse-plex.ts';
import { fixture, formEncoded } from './fixtures.ts';

/** What matching reads of an event (the rest is the server's own bookkeeping). */
const essentials = ({ eventKey, at, ...event }: ReturnType<typeof parseJellyfin>) => ({ ...event, keyed: eventKey !== undefined, at: at?.toISOString() });

const severanceEpisode2 = { kind: 'episode', title: 'Half Loop', season: 1, episode: 2 };

describe('Jellyfin, official plugin ("Send All Properties")', () => {
  it('reads a played stop of an episode: its own ids, the series name, season and number', () => {
    expect(essentials(parseJellyfin(fixture('jellyfin/official-episode-playback-stop.json')))).toEqual({
      source: 'jellyfin',
      event: 'PlaybackStop',
      action: 'played',
      user: 'sam',
      ...severanceEpisode2,
      ids: { tvdb: 8000002, tmdb: 1950002, imdb: 'tt11650302' },
      show: { title: 'Severance', ids: {} },
      keyed: true,
      at: '2026-11-20T21:03:11.123Z',
    });
  });

  it('reads the same body form-encoded (every value a string, True/False) to the same event', () => {
    const body = fixture('jellyfin/official-episode-playback-stop.json');
    const fromForm = Object.fromEntries(new URLSearchParams(formEncoded(body)));
    expect(parseJellyfin(fromForm)).toEqual(parseJellyfin(body));
  });

  it('a stop before the end is stopped, with how far it got; a start and progress are progress; an added item is other', () => {
    expect(parseJellyfin(fixture('jellyfin/official-episode-playback-stop-early.json'))).toMatchObject({ action: 'stopped', stoppedAt: 18 });
    const film = { ...fixture('jellyfin/official-movie-playback-stop.json'), PlayedToCompletion: false, PlaybackPositionTicks: 400_000_000, RunTimeTicks: 100_000_000_000 };
    expect(parseJellyfin(film)).toMatchObject({ action: 'stopped', stoppedAt: 0.4 });
    expect(parseJellyfin({ ...film, RunTimeTicks: undefined }).stoppedAt).toBeUndefined();
    expect(parseJellyfin(fixture('jellyfin/official-episode-playback-start.json')).action).toBe('progress');
    expect(parseJellyfin(fixture('jellyfin/official-episode-playback-progress.json')).action).toBe('progress');
    expect(parseJellyfin(fixture('jellyfin/official-item-added.json')).action).toBe('other');
  });

  it('ids matching cannot use are kept with why: an AniDB id, a malformed IMDb id, the show\'s AniDB id', () => {
    const anime = { ...fixture('jellyfin/official-episode-playback-stop.json'), Provider_tvdb: undefined, Provider_imdb: 'nm0000001', Provider_tmdb: undefined, Provider_anidb: '17617' };
    expect(parseJellyfin(anime)).toMatchObject({
      ids: {},
      unusedIds: [
        { provider: 'imdb', id: 'nm0000001', why: 'not an IMDb title id (tt and digits)' },
        { provider: 'anidb', id: '17617', why: 'Airdate matches by TheTVDB, TMDB and IMDb ids only' },
      ],
    });
    const community = fixture('jellyfin/community-episode-stop-played.json');
    const withAnidb = { ...community, Series: { ...(community.Series as object), ProviderIds: { AniDB: '17617' } } };
    expect(parseJellyfin(withAnidb).unusedIds).toEqual([{ provider: "show's AniDB", id: '17617', why: 'Airdate matches by TheTVDB, TMDB and IMDb ids only' }]);
  });

  it('UserDataSaved with TogglePlayed is a manual mark, played or unplayed', () => {
    expect(parseJellyfin(fixture('jellyfin/official-episode-userdatasaved-played.json')).action).toBe('marked-played');
    expect(parseJellyfin(fixture('jellyfin/official-episode-userdatasaved-unplayed.json')).action).toBe('marked-unplayed');
    const rated = { ...fixture('jellyfin/official-episode-userdatasaved-played.json'), SaveReason: 'UpdateUserRating' };
    expect(parseJellyfin(rated).action).toBe('other');
  });

  it('a multi-episode file carries its last episode; a film its year', () => {
    const multi = parseJellyfin(fixture('jellyfin/official-episode-multi-playback-stop.json'));
    expect([multi.season, multi.episode, multi.episodeEnd]).toEqual([1, 3, 4]);
    const film = parseJellyfin(fixture('jellyfin/official-movie-playback-stop.json'));
    expect(essentials(film)).toMatchObject({ kind: 'movie', title: 'Dune: Part Two', year: 2024, ids: { tmdb: 693134, imdb: 'tt15239678' } });
    expect(film.show).toBeUndefined();
  });

  it('a repeat of one delivery has the same event key; another event of the item has another', () => {
    const stop = fixture('jellyfin/official-episode-playback-stop.json');
    expect(parseJellyfin(stop).eventKey).toBe(parseJellyfin(structuredClone(stop)).eventKey);
    expect(parseJellyfin({ ...stop, UtcTimestamp: '2026-11-21T21:03:11Z' }).eventKey).not.toBe(parseJellyfin(stop).eventKey);
  });
});

describe('Jellyfin, community plugin', () => {
  it('reads Stop with UserData.Played as played, with the series ids', () => {
    expect(essentials(parseJellyfin(fixture('jellyfin/community-episode-stop-played.json')))).toMatchObject({
      event: 'Stop',
      action: 'played',
      user: 'sam',
      ...severanceEpisode2,
      ids: { tvdb: 8000002, imdb: 'tt11650302' },
      show: { title: 'Severance', ids: { tvdb: 371980, tmdb: 95396, imdb: 'tt11280740' } },
    });
  });

  it('MarkPlayed is a manual mark; Pause is progress', () => {
    expect(parseJellyfin(fixture('jellyfin/community-episode-markplayed.json'))).toMatchObject({ action: 'marked-played', episode: 5, ids: { tvdb: 8000005 } });
    expect(parseJellyfin(fixture('jellyfin/community-episode-pause.json')).action).toBe('progress');
  });
});

describe('Plex', () => {
  it('media.scrobble of an episode: its own Guid ids (not the show’s), the show title, season, number, the Plex user', () => {
    expect(essentials(parsePlex(fixture('plex/episode-scrobble.json')))).toEqual({
      source: 'plex',
      event: 'media.scrobble',
      action: 'played',
      user: 'alex',
      ...severanceEpisode2,
      ids: { imdb: 'tt11650302', tmdb: 1950002, tvdb: 8000002 },
      show: { title: 'Severance', ids: {} },
      keyed: false,
      at: undefined,
    });
  });

  it('a legacy agent’s guid names the show by its TheTVDB id with season and episode', () => {
    expect(parsePlex(fixture('plex/episode-scrobble-legacy-agent.json'))).toMatchObject({ ids: {}, show: { title: 'Severance', ids: { tvdb: 371980 } }, season: 1, episode: 6 });
    const imdbFilm = { ...fixture('plex/movie-scrobble.json'), Metadata: { type: 'movie', title: 'Heat', guid: 'com.plexapp.agents.imdb://tt0113277?lang=en' } };
    expect(parsePlex(imdbFilm)).toMatchObject({ kind: 'movie', ids: { imdb: 'tt0113277' } });
  });

  it('play, pause and stop are progress; rate and library.new are other; a film is a movie', () => {
    for (const name of ['plex/episode-play.json', 'plex/episode-pause.json', 'plex/episode-stop.json']) expect(parsePlex(fixture(name)).action).toBe('progress');
    expect(parsePlex(fixture('plex/movie-rate.json')).action).toBe('other');
    expect(parsePlex(fixture('plex/library-new.json')).action).toBe('other');
    expect(parsePlex(fixture('plex/movie-scrobble.json'))).toMatchObject({ kind: 'movie', year: 2024, ids: { tmdb: 693134, imdb: 'tt15239678', tvdb: 336356 } });
  });
});

describe('Emby', () => {
  it('playback.stop played to completion: the episode’s one own id, series name, season, number, the event time', () => {
    expect(essentials(parseEmby(fixture('emby/episode-playback-stop-completed.json')))).toEqual({
      source: 'emby',
      event: 'playback.stop',
      action: 'played',
      user: 'sam',
      ...severanceEpisode2,
      ids: { tvdb: 8000002 },
      show: { title: 'Severance', ids: {} },
      keyed: true,
      at: '2026-11-20T21:03:11.000Z',
    });
  });

  it('a multi-episode file (IndexNumberEnd) carries its last episode; an end before the start is dropped', () => {
    const body = fixture('emby/episode-playback-stop-completed.json');
    const item = body.Item as Record<string, unknown>;
    expect(parseEmby({ ...body, Item: { ...item, IndexNumber: 3, IndexNumberEnd: 4 } })).toMatchObject({ episode: 3, episodeEnd: 4 });
    expect(parseEmby({ ...body, Item: { ...item, IndexNumber: 3, IndexNumberEnd: 2 } }).episodeEnd).toBeUndefined();
  });

  it('a partial stop is stopped and a start is progress; markplayed/markunplayed are manual marks; library.new is other', () => {
    expect(parseEmby(fixture('emby/episode-playback-stop-partial.json'))).toMatchObject({ action: 'stopped', stoppedAt: 18 });
    expect(parseEmby(fixture('emby/episode-playback-start.json')).action).toBe('progress');
    expect(parseEmby(fixture('emby/movie-markplayed.json'))).toMatchObject({ action: 'marked-played', kind: 'movie', year: 2024, ids: { tmdb: 693134 } });
    expect(parseEmby(fixture('emby/movie-markunplayed.json')).action).toBe('marked-unplayed');
    expect(parseEmby(fixture('emby/library-new.json')).action).toBe('other');
  });
});

describe('generic JSON', () => {
  it('reads show ids with season and episode, the event id and time', () => {
    expect(essentials(parseGeneric(fixture('generic/episode-by-show-ids.json')))).toEqual({
      source: 'generic',
      event: 'played',
      action: 'played',
      user: 'sam',
      kind: 'episode',
      ids: {},
      show: { title: 'Severance', ids: { tvdb: 371980 } },
      season: 1,
      episode: 8,
      keyed: true,
      at: '2026-11-20T21:03:00.000Z',
    });
  });

  it('names the first problem of a body that is not the generic one', () => {
    const problem = (body: unknown) => {
      try {
        parseGeneric(body);
      } catch (error) {
        expect(error).toBeInstanceOf(FormatError);
        return (error as Error).message;
      }
      throw new Error('parsed');
    };
    expect(problem({})).toMatch(/kind: kind must be episode, movie or game/);
    expect(problem({ kind: 'episode', event: 'finished' })).toMatch(/event must be played, unplayed or progress/);
    expect(problem({ kind: 'movie', at: 'yesterday' })).toMatch(/at must be an ISO 8601 time/);
    expect(problem([])).toMatch(/expected the generic JSON body/);
  });
});

describe('what is not a source’s body', () => {
  it('each parser refuses another server’s body, naming what it expected', () => {
    const plex = fixture('plex/episode-scrobble.json');
    const jellyfin = fixture('jellyfin/official-episode-playback-stop.json');
    expect(() => parseJellyfin(plex)).toThrow(/expected a Jellyfin webhook body/);
    expect(() => parsePlex(jellyfin)).toThrow(/expected a Plex webhook: multipart\/form-data with the JSON in a "payload" part/);
    expect(() => parseEmby(plex)).toThrow(/expected an Emby webhook body/);
    for (const hostile of [null, 'text', 42, [], { NotificationType: 7 }]) expect(() => parseJellyfin(hostile)).toThrow(FormatError);
  });

  it('ids that are not ids are dropped, not trusted: negative, fractional, not tt…, huge', () => {
    const body = { ...fixture('jellyfin/official-episode-playback-stop.json'), Provider_tvdb: '-4', Provider_tmdb: '1.5', Provider_imdb: 'nm0000001' };
    expect(parseJellyfin(body).ids).toEqual({});
    expect(parseJellyfin({ ...body, Provider_tvdb: '99999999999999' }).ids).toEqual({});
  });
});
