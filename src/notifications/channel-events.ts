import { InputError } from '../errors.ts';
import type { NotificationEventType } from './notification-text.ts';

/**
 * The events a person picks per channel (the grid of events × channels on the settings page).
 * The rest of notification-text.ts's events are not picked: a channel turned off is told on every
 * other channel, a quiet hours summary carries what the channel took anyway, and a test goes to
 * the channel it tests.
 */
export const channelEvents = [
  'episodes-released',
  'season-premiere',
  'series-premiere',
  'season-finale',
  'film-released',
  'game-released',
  'release-date-moved',
  'show-status-changed',
  'daily-digest',
  'weekly-premieres',
] as const satisfies readonly NotificationEventType[];

export type ChannelEvent = (typeof channelEvents)[number];

/** What comes out: the release events the release check sends (docs/notifications.md). */
const releases: readonly ChannelEvent[] = ['episodes-released', 'season-premiere', 'series-premiere', 'season-finale', 'film-released', 'game-released'];

/**
 * A new channel's events when none are given. Push channels (a phone, a chat) hear of each
 * release as it comes out, and of news about followed shows; mail, read once a day, gets the
 * digest, the week's premieres and the news instead of a mail per episode; the signed webhook
 * keeps what it has always sent, the releases.
 */
export function defaultChannelEvents(kind: string): ChannelEvent[] {
  if (kind === 'mail') return ['daily-digest', 'weekly-premieres', 'show-status-changed'];
  if (kind === 'webhook') return [...releases];
  return [...releases, 'release-date-moved', 'show-status-changed'];
}

/** The events as given (each once, in the list's order); InputError for an unknown one. */
export function parseChannelEvents(events: readonly string[]): ChannelEvent[] {
  const unknown = events.filter((event) => !(channelEvents as readonly string[]).includes(event));
  if (unknown.length > 0) throw new InputError(`unknown event ${JSON.stringify(unknown[0]!.slice(0, 40))}: use ${channelEvents.join(', ')}`, 'events');
  return channelEvents.filter((event) => events.includes(event));
}

/** The stored column (comma-separated) as a list; names no longer known are dropped. */
export function storedChannelEvents(stored: string): ChannelEvent[] {
  return channelEvents.filter((event) => stored.split(',').includes(event));
}

/** The list as stored. */
export const storeChannelEvents = (events: readonly ChannelEvent[]): string => events.join(',');
