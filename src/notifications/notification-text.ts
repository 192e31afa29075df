import type { LocalDate } from '../time/dates.ts';

/**
 * The words of every notification, written once: from an event, the title, body, link and poster
 * that every channel shows (each channel then escapes and bounds them its own way, in
 * channels/render.ts and its module). Pure: no database, no network, no clock.
 *
 * Text from catalogs (titles, episode names) is plain text, never markup: it is flattened to one
 * line here and escaped by each channel for its own format.
 */

/** A show as events name it. */
export interface ShowRef {
  id: number;
  title: string;
  poster: string | null;
}

/** An episode as events name it; `title` null when the catalog has none. */
export interface EpisodeRef {
  season: number;
  number: number;
  title: string | null;
}

/** A film or game as events name it. */
export interface TitleRef {
  id: number;
  title: string;
  poster: string | null;
}

/** One line of a digest: a show's episode, a film or a game releasing that day. */
export type DigestEntry =
  | { kind: 'episode'; show: ShowRef; episode: EpisodeRef; date: LocalDate }
  | { kind: 'movie' | 'game'; title: TitleRef; date: LocalDate };

/** Everything Airdate tells people about (issue 32's list). */
export type NotificationEvent =
  /** Episodes of one show released at once: one message, however many. */
  | { type: 'episodes-released'; show: ShowRef; episodes: EpisodeRef[] }
  | { type: 'season-premiere'; show: ShowRef; episode: EpisodeRef }
  | { type: 'series-premiere'; show: ShowRef; episode: EpisodeRef }
  | { type: 'season-finale'; show: ShowRef; episode: EpisodeRef }
  | { type: 'film-released'; film: TitleRef; release: 'theatrical' | 'digital'; date: LocalDate }
  | { type: 'game-released'; game: TitleRef; date: LocalDate }
  /** A release date the catalog moved; null: no date (any more, or before). */
  | { type: 'release-date-moved'; item: { kind: 'show' | 'movie' | 'game'; ref: TitleRef; season?: number }; from: LocalDate | null; to: LocalDate | null }
  /** A show's status as a catalog reports it (`catalog`: "TMDB", "TheTVDB"). */
  | { type: 'show-status-changed'; show: ShowRef; status: 'renewed' | 'ended' | 'cancelled'; catalog: string }
  | { type: 'daily-digest'; date: LocalDate; entries: DigestEntry[] }
  /** Season and series premieres of the week starting `weekOf`. */
  | { type: 'weekly-premieres'; weekOf: LocalDate; entries: (DigestEntry & { kind: 'episode' })[] }
  /** A channel turned off after `failures` failures in a row, told on another channel. */
  | { type: 'channel-disabled'; channelName: string; failures: number; lastReason: string }
  /** Messages held during quiet hours, sent as one when they end (their own texts, in order). */
  | { type: 'quiet-hours-summary'; held: NotificationText[] }
  | { type: 'test'; channelName: string };

export type NotificationEventType = NotificationEvent['type'];

/** What every channel says about one event. */
export interface NotificationText {
  event: NotificationEventType;
  /** One line that reads well alone on a lock screen ("Severance S2E3 'Who Is Alive?' is out"). */
  title: string;
  /** Plain text; lines separated by "\n". */
  body: string;
  /** The item's page (absolute), or null. */
  link: string | null;
  /** The poster's absolute http(s) URL, or null. */
  poster: string | null;
  /**
   * What the message is about, so that a newer message replaces an older one where the channel can
   * (web push's Topic): at most 32 characters of [A-Za-z0-9_-].
   */
  topic: string;
  urgency: 'low' | 'normal' | 'high';
}

/** What the text needs from outside: the origin people open, for links. */
export interface TextContext {
  /** `https://airdate.example.com`, no trailing slash. */
  publicOrigin: string;
}

/** Most entries a digest or summary lists by name; the rest are counted ("and 4 more"). */
export const maxListedEntries = 12;

/** The text of `event`. */
export function writeNotification(event: NotificationEvent, context: TextContext): NotificationText {
  const origin = context.publicOrigin.replace(/\/+$/, '');
  const page = (path: string) => `${origin}${path}`;
  const aboutShow = (about: { type: NotificationEventType; show: ShowRef }, title: string, body: string): NotificationText => ({
    event: about.type,
    title,
    body,
    link: page(`/shows/${about.show.id}`),
    poster: safePoster(about.show.poster),
    topic: `show-${about.show.id}`,
    urgency: 'normal',
  });
  switch (event.type) {
    case 'episodes-released': {
      const show = clean(event.show.title);
      const episodes = event.episodes;
      const base = { event: event.type, link: page(`/shows/${event.show.id}`), poster: safePoster(event.show.poster), topic: `show-${event.show.id}`, urgency: 'normal' as const };
      if (episodes.length === 1) {
        const episode = episodes[0]!;
        return { ...base, title: `${show} ${episodeName(episode)} is out`, body: `Season ${episode.season}, episode ${episode.number} of ${show} is out.` };
      }
      return { ...base, title: `${episodes.length} new episodes of ${show}`, body: listed(episodes.map(episodeName)) };
    }
    case 'season-premiere': {
      const season = event.episode.season;
      return aboutShow(event, `${clean(event.show.title)} season ${season} premieres`, `${episodeName(event.episode)} is out: season ${season} has begun.`);
    }
    case 'series-premiere':
      return aboutShow(event, `${clean(event.show.title)} premieres`, `The first episode, ${episodeName(event.episode)}, is out.`);
    case 'season-finale': {
      const season = event.episode.season;
      return aboutShow(event, `${clean(event.show.title)} season ${season} finale is out`, `${episodeName(event.episode)} ends season ${season}.`);
    }
    case 'film-released': {
      const film = clean(event.film.title);
      const theatrical = event.release === 'theatrical';
      return {
        event: event.type,
        title: theatrical ? `${film} is in cinemas` : `${film} is out to stream or buy`,
        body: `${theatrical ? 'In cinemas' : 'Digital release'} from ${formatDay(event.date)}.`,
        link: page('/movies'),
        poster: safePoster(event.film.poster),
        topic: `movie-${event.film.id}`,
        urgency: 'normal',
      };
    }
    case 'game-released': {
      const game = clean(event.game.title);
      return {
        event: event.type,
        title: `${game} is out`,
        body: `Released ${formatDay(event.date)}.`,
        link: page('/games'),
        poster: safePoster(event.game.poster),
        topic: `game-${event.game.id}`,
        urgency: 'normal',
      };
    }
    case 'release-date-moved': {
      const { item } = event;
      const name = clean(item.ref.title) + (item.season === undefined ? '' : ` season ${item.season}`);
      const title =
        event.to === null ? `${name} has no release date any more` : event.from === null ? `${name} is dated: ${formatDay(event.to)}` : `${name} moved to ${formatDay(event.to)}`;
      const body = event.from === null ? 'It had no date before.' : `It was due ${formatDay(event.from)}.`;
      const path = item.kind === 'show' ? `/shows/${item.ref.id}` : item.kind === 'movie' ? '/movies' : '/games';
      return { event: event.type, title, body, link: page(path), poster: safePoster(item.ref.poster), topic: `${item.kind}-${item.ref.id}-date`, urgency: 'low' };
    }
    case 'show-status-changed': {
      const show = clean(event.show.title);
      const catalog = clean(event.catalog);
      const words = { renewed: ['is renewed', 'will return'], ended: ['has ended', 'has ended'], cancelled: ['is cancelled', 'was cancelled'] }[event.status];
      return {
        event: event.type,
        title: `${show} ${words[0]}`,
        body: `As ${catalog} reports it, ${show} ${words[1]}.`,
        link: page(`/shows/${event.show.id}`),
        poster: safePoster(event.show.poster),
        topic: `show-${event.show.id}-status`,
        urgency: 'low',
      };
    }
    case 'daily-digest': {
      const count = event.entries.length;
      return {
        event: event.type,
        title: count === 0 ? 'Nothing of yours airs today' : `Out today: ${count} ${count === 1 ? 'release' : 'releases'}`,
        body: count === 0 ? `Nothing you follow releases on ${formatDay(event.date)}.` : listed(event.entries.map(digestLine), '\n'),
        link: page('/calendar'),
        poster: null,
        topic: `digest-${event.date}`,
        urgency: 'low',
      };
    }
    case 'weekly-premieres': {
      const count = event.entries.length;
      return {
        event: event.type,
        title: count === 0 ? 'No premieres this week' : `Premieres this week: ${count}`,
        body:
          count === 0
            ? `Nothing you follow premieres in the week of ${formatDay(event.weekOf)}.`
            : listed(event.entries.map((entry) => `${formatWeekday(entry.date)}: ${clean(entry.show.title)} ${episodeName(entry.episode)}`), '\n'),
        link: page('/calendar'),
        poster: null,
        topic: `premieres-${event.weekOf}`,
        urgency: 'low',
      };
    }
    case 'channel-disabled': {
      const name = clean(event.channelName);
      return {
        event: event.type,
        title: `Notifications to "${name}" are turned off`,
        body: `It failed ${event.failures} times in a row (last: ${clean(event.lastReason)}). Mend it and turn it on again in Airdate's settings.`,
        link: null,
        poster: null,
        topic: 'channel-disabled',
        urgency: 'high',
      };
    }
    case 'quiet-hours-summary': {
      const count = event.held.length;
      return {
        event: event.type,
        title: `While you were away: ${count} ${count === 1 ? 'notification' : 'notifications'}`,
        body: listed(event.held.map((held) => clean(held.title)), '\n'),
        link: page('/'),
        poster: event.held.find((held) => held.poster !== null)?.poster ?? null,
        topic: 'quiet-hours',
        urgency: 'normal',
      };
    }
    case 'test': {
      const name = clean(event.channelName);
      return {
        event: event.type,
        title: 'Airdate test notification',
        body: `If you can read this, "${name}" works.`,
        link: page('/'),
        poster: null,
        topic: 'test',
        urgency: 'normal',
      };
    }
  }
}

/** `S2E3 'Who Is Alive?'`, or `S2E3` when the episode has no title. */
export function episodeName(episode: EpisodeRef): string {
  const code = `S${episode.season}E${episode.number}`;
  const title = episode.title === null ? '' : clean(episode.title);
  return title === '' ? code : `${code} '${title}'`;
}

function digestLine(entry: DigestEntry): string {
  if (entry.kind === 'episode') return `${clean(entry.show.title)} ${episodeName(entry.episode)}`;
  return `${clean(entry.title.title)} (${entry.kind === 'movie' ? 'film' : 'game'})`;
}

/** Up to maxListedEntries items joined, the rest counted. */
function listed(items: string[], separator?: string): string {
  const shown = items.slice(0, maxListedEntries);
  const rest = items.length - shown.length;
  if (separator !== undefined) return rest > 0 ? [...shown, `and ${rest} more`].join(separator) : shown.join(separator);
  if (rest > 0) return `${shown.join(', ')} and ${rest} more`;
  return shown.length <= 1 ? shown.join('') : `${shown.slice(0, -1).join(', ')} and ${shown.at(-1)}`;
}

/**
 * Catalog text as one plain line: control characters and line breaks become spaces, runs of
 * spaces one, and it is bounded (a catalog's 10,000-character title is not a notification).
 */
export function clean(text: string): string {
  // eslint-disable-next-line no-control-regex
  const flat = text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ').replace(/\s+/g, ' ').trim();
  return [...flat].length > 200 ? `${[...flat].slice(0, 199).join('')}…` : flat;
}

/** A poster only when it is an absolute http(s) URL (a catalog's); anything else is dropped. */
function safePoster(poster: string | null): string | null {
  if (poster === null || !URL.canParse(poster)) return null;
  const url = new URL(poster);
  return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : null;
}

const dayFormat = new Intl.DateTimeFormat('en-GB', { timeZone: 'UTC', day: 'numeric', month: 'long', year: 'numeric' });
const weekdayFormat = new Intl.DateTimeFormat('en-GB', { timeZone: 'UTC', weekday: 'short', day: 'numeric', month: 'short' });

/** `31 January 2025` from `2025-01-31`. */
export function formatDay(date: LocalDate): string {
  return dayFormat.format(new Date(`${date}T00:00:00Z`));
}

/** `Fri 31 Jan` from `2025-01-31`. */
function formatWeekday(date: LocalDate): string {
  return weekdayFormat.format(new Date(`${date}T00:00:00Z`)).replace(',', '');
}
