import type { ChannelEvent } from './channel-events.ts';
import type { EpisodeRef, NotificationEvent, ShowRef } from './notification-text.ts';

/**
 * Which message each channel gets for an account's new releases, as a pure rule: the episodes of
 * one show out at once are one message ("3 new episodes of Severance"); one episode that opens a
 * series or a season, or ends a season, is its premiere or finale; a film and a game are theirs.
 * A channel gets what it chose: a premiere out with other episodes reaches a channel that takes
 * premieres but not episodes as its premiere, and a lone premiere reaches one that takes episodes
 * but not premieres as an episode.
 */

/** One released item as the release check found it (releases.ts). */
export type ReleasedEntry =
  | { kind: 'episode'; itemKey: string; show: ShowRef; episode: EpisodeRef; lastOfSeason: boolean }
  | { kind: 'movie' | 'game'; itemKey: string; title: { id: number; title: string; poster: string | null }; date: string };

/** A message for one channel, and the items it tells about (the first is the one its row is keyed by). */
export interface ReleaseMessage {
  event: NotificationEvent;
  itemKeys: string[];
}

/** What one episode alone is: a series or season premiere, a season finale, or an episode. */
export function episodeEvent(episode: EpisodeRef, lastOfSeason: boolean): ChannelEvent {
  // Specials (season 0) have no premiere or finale.
  if (episode.season === 0) return 'episodes-released';
  if (episode.number === 1) return episode.season <= 1 ? 'series-premiere' : 'season-premiere';
  if (lastOfSeason) return 'season-finale';
  return 'episodes-released';
}

function specialEvent(type: 'series-premiere' | 'season-premiere' | 'season-finale', show: ShowRef, episode: EpisodeRef): NotificationEvent {
  return { type, show, episode };
}

/** The message of one show's released episodes for a channel taking `events`, or null when it takes none that fits. */
function showMessage(entries: (ReleasedEntry & { kind: 'episode' })[], events: ReadonlySet<ChannelEvent>): ReleaseMessage | null {
  const itemKeys = entries.map((entry) => entry.itemKey);
  const show = entries[0]!.show;
  const specials = entries
    .map((entry) => ({ entry, event: episodeEvent(entry.episode, entry.lastOfSeason) }))
    .filter((special): special is { entry: (typeof entries)[number]; event: 'series-premiere' | 'season-premiere' | 'season-finale' } => special.event !== 'episodes-released');
  if (entries.length === 1 && specials.length === 1 && events.has(specials[0]!.event)) {
    return { event: specialEvent(specials[0]!.event, show, entries[0]!.episode), itemKeys };
  }
  if (events.has('episodes-released')) return { event: { type: 'episodes-released', show, episodes: entries.map((entry) => entry.episode) }, itemKeys };
  const chosen = specials.find((special) => events.has(special.event));
  return chosen ? { event: specialEvent(chosen.event, show, chosen.entry.episode), itemKeys } : null;
}

/** The messages for one channel taking `events`, episodes grouped by show in order. */
export function releaseMessages(entries: readonly ReleasedEntry[], events: ReadonlySet<ChannelEvent>): ReleaseMessage[] {
  const messages: ReleaseMessage[] = [];
  const shows = new Map<number, (ReleasedEntry & { kind: 'episode' })[]>();
  for (const entry of entries) {
    if (entry.kind === 'episode') {
      const group = shows.get(entry.show.id) ?? [];
      group.push(entry);
      shows.set(entry.show.id, group);
    } else if (entry.kind === 'movie' && events.has('film-released')) {
      messages.push({ event: { type: 'film-released', film: entry.title, release: 'theatrical', date: entry.date }, itemKeys: [entry.itemKey] });
    } else if (entry.kind === 'game' && events.has('game-released')) {
      messages.push({ event: { type: 'game-released', game: entry.title, date: entry.date }, itemKeys: [entry.itemKey] });
    }
  }
  for (const group of shows.values()) {
    group.sort((a, b) => a.episode.season - b.episode.season || a.episode.number - b.episode.number);
    const message = showMessage(group, events);
    if (message) messages.push(message);
  }
  return messages;
}
