import { nestedItem } from './nested-item.ts';
import { eventKeyOf, FormatError, isRecord, stoppedPercent, text, time, truthy, type MediaAction, type MediaEvent } from './media-event.ts';

/**
 * Emby's webhooks (Emby Premiere): a JSON body, or form fields / multipart with the JSON in the
 * `data` field (the caller unwraps that). `Event` (`playback.start`, `playback.pause`,
 * `playback.unpause`, `playback.stop`, `item.markplayed`, `item.markunplayed`, `library.new`,
 * `item.rate`, …), `Date`, `User` (`Name`, `Id`), `Item` (nested-item.ts: an episode's
 * `ProviderIds` are the episode's own and may hold one id only), `PlaybackInfo`
 * (`PlayedToCompletion`, `PositionTicks`), `Server` (`Id`).
 *
 * Played: `playback.stop` with `PlaybackInfo.PlayedToCompletion`. Manual marks:
 * `item.markplayed` / `item.markunplayed`. Stopped (logged, not counted): a `playback.stop`
 * before the end (`PlaybackInfo.PositionTicks` of `Item.RunTimeTicks`). Progress: the other
 * `playback.*` events.
 */
export function parseEmby(body: unknown): MediaEvent {
  if (!isRecord(body) || typeof body.Event !== 'string') {
    throw new FormatError('expected an Emby webhook body: a JSON object with Event (and Item, User), as JSON or in a form\'s "data" field');
  }
  const event = text(body.Event) ?? 'unknown';
  const playback = isRecord(body.PlaybackInfo) ? body.PlaybackInfo : {};
  let action: MediaAction = 'other';
  if (event === 'playback.stop') action = truthy(playback.PlayedToCompletion) ? 'played' : 'stopped';
  else if (event.startsWith('playback.')) action = 'progress';
  else if (event === 'item.markplayed') action = 'marked-played';
  else if (event === 'item.markunplayed') action = 'marked-unplayed';
  const user = isRecord(body.User) ? body.User : {};
  const server = isRecord(body.Server) ? body.Server : {};
  const item = isRecord(body.Item) ? body.Item : {};
  return {
    source: 'emby',
    event,
    action,
    user: text(user.Name),
    ...nestedItem(body),
    at: time(body.Date),
    ...(action === 'stopped' ? { stoppedAt: stoppedPercent(playback.PositionTicks, item.RunTimeTicks) } : {}),
    eventKey: eventKeyOf('emby', text(server.Id), text(user.Id), text(item.Id), event, text(body.Date)),
  };
}
