import { nestedItem } from './nested-item.ts';
import {
  eventKeyOf,
  FormatError,
  isRecord,
  kindOfType,
  readProviderIds,
  stoppedPercent,
  text,
  time,
  truthy,
  whole,
  type MediaAction,
  type MediaEvent,
} from './media-event.ts';

/**
 * Jellyfin. Two plugins' bodies:
 *
 * - The official webhook plugin (jellyfin-plugin-webhook) with "Send All Properties": one flat
 *   object, as JSON sent `text/plain` (the plugin's default) or `application/json`, or
 *   form-encoded by its generic form destination (every value a string: `"True"`, `"3"`). Keys:
 *   `NotificationType`, `ItemType`, `Name`, `SeriesName`, `SeasonNumber`, `EpisodeNumber`,
 *   `EpisodeNumberEnd`, `Year`, `Provider_tvdb`/`Provider_imdb`/`Provider_tmdb` (the item's own
 *   ids: an episode's), `PlayedToCompletion`, `SaveReason`, `Played`, `NotificationUsername`,
 *   `ServerId`, `UserId`, `ItemId`, `UtcTimestamp`.
 * - The older community plugin (jellyfin-plugin-webhooks, "Default" format): `Event`, `Item`
 *   (nested-item.ts) with `UserData.Played`, `Series`, `User.Name`, `Session`, `Server`.
 *
 * Played: `PlaybackStop` with `PlayedToCompletion`; the community plugin's `Scrobble`, or its
 * `Stop` with the item's `UserData.Played`. Manual marks: `UserDataSaved` with `SaveReason`
 * `TogglePlayed` (`Played` true or false); the community plugin's `MarkPlayed`/`MarkUnplayed`.
 * Progress: `PlaybackStart`, `PlaybackProgress`; community `Play`, `Pause`, `Resume`, `Progress`.
 * Stopped (logged, not counted): a stop before the end, with how far it got
 * (`PlaybackPositionTicks` of `RunTimeTicks`; the community plugin's `UserData`'s).
 */
export function parseJellyfin(body: unknown): MediaEvent {
  if (!isRecord(body)) throw new FormatError(expected);
  if (typeof body.NotificationType === 'string') return officialEvent(body);
  if (typeof body.Event === 'string' && isRecord(body.Item)) return communityEvent(body);
  throw new FormatError(expected);
}

const expected =
  'expected a Jellyfin webhook body: the webhook plugin\'s "Send All Properties" object (with NotificationType), as JSON or form fields, or the community plugin\'s JSON (Event and Item)';

const progressTypes = new Set(['PlaybackStart', 'PlaybackProgress']);

function officialEvent(body: Record<string, unknown>): MediaEvent {
  const event = text(body.NotificationType) ?? 'unknown';
  let action: MediaAction = 'other';
  if (event === 'PlaybackStop') action = truthy(body.PlayedToCompletion) ? 'played' : 'stopped';
  else if (progressTypes.has(event)) action = 'progress';
  else if (event === 'UserDataSaved' && text(body.SaveReason) === 'TogglePlayed') action = truthy(body.Played) ? 'marked-played' : 'marked-unplayed';
  const kind = kindOfType(body.ItemType);
  // `Provider_<name>` for each of the item's provider ids, the name in lower case (tvdb, imdb, tmdb, anidb, tmdbcollection, …).
  const provided = readProviderIds(Object.fromEntries(Object.entries(body).flatMap(([key, value]) => (key.startsWith('Provider_') ? [[key.slice('Provider_'.length), value]] : []))));
  const ids = provided.ids;
  const common = {
    source: 'jellyfin' as const,
    event,
    action,
    user: text(body.NotificationUsername),
    ids,
    title: text(body.Name),
    at: time(body.UtcTimestamp),
    eventKey: eventKeyOf('jellyfin', text(body.ServerId), text(body.UserId), text(body.ItemId), event, text(body.UtcTimestamp), action),
    ...(action === 'stopped' ? { stoppedAt: stoppedPercent(body.PlaybackPositionTicks, body.RunTimeTicks) } : {}),
    ...(provided.unused.length > 0 ? { unusedIds: provided.unused } : {}),
  };
  if (kind === 'movie') return { ...common, kind, year: whole(body.Year) };
  if (kind !== 'episode') return common;
  const episode = whole(body.EpisodeNumber);
  const episodeEnd = whole(body.EpisodeNumberEnd);
  return {
    ...common,
    kind,
    show: { title: text(body.SeriesName), ids: {} },
    season: whole(body.SeasonNumber),
    episode,
    episodeEnd: episode !== undefined && episodeEnd !== undefined && episodeEnd > episode ? episodeEnd : undefined,
  };
}

const communityProgress = new Set(['Play', 'Pause', 'Resume', 'Progress']);

function communityEvent(body: Record<string, unknown>): MediaEvent {
  const event = text(body.Event) ?? 'unknown';
  const item = body.Item as Record<string, unknown>;
  const userData = isRecord(item.UserData) ? item.UserData : {};
  let action: MediaAction = 'other';
  if (event === 'Scrobble') action = 'played';
  else if (event === 'Stop') action = truthy(userData.Played) ? 'played' : 'stopped';
  else if (communityProgress.has(event)) action = 'progress';
  else if (event === 'MarkPlayed') action = 'marked-played';
  else if (event === 'MarkUnplayed') action = 'marked-unplayed';
  const user = isRecord(body.User) ? body.User : {};
  const server = isRecord(body.Server) ? body.Server : {};
  return {
    source: 'jellyfin',
    event,
    action,
    user: text(user.Name),
    ...nestedItem(body),
    ...(action === 'stopped' ? { stoppedAt: stoppedPercent(userData.PlaybackPositionTicks, item.RunTimeTicks) } : {}),
    eventKey: eventKeyOf('jellyfin-community', text(server.Id), text(user.Id), text(item.Id), event, text(userData.LastPlayedDate)),
  };
}
