import { z } from 'zod';
import { parseKodiAddon } from './parse-kodi-addons.ts';
import { eventKeyOf, FormatError, imdbId, numericId, text, time, withoutUndefined, type MediaEvent, type MediaIds } from './media-event.ts';

/**
 * The generic JSON body (docs/media-servers.md "Generic JSON"), for Kodi add-ons, scripts and
 * anything else that can send JSON:
 *
 * ```json
 * { "event": "played", "eventId": "kodi-42", "user": "sam", "kind": "episode",
 *   "show": { "title": "Severance", "ids": { "tvdb": 371980 } }, "season": 1, "episode": 2,
 *   "ids": { "tvdb": 8452163 }, "at": "2026-11-20T21:03:00Z" }
 * ```
 *
 * `kind`: episode, movie or game. `event`: `played` (the default) or `unplayed` (removes a watch
 * this connection recorded), or `progress` (acknowledged, nothing recorded). An episode is named
 * by its show's ids (or title) with season and episode (`episodeEnd` for a multi-episode file), or
 * by its own `ids`; a movie or game by its `ids` (`tmdb`/`tvdb`/`imdb`; games `igdb`). `eventId`
 * makes a repeated delivery count once; `at` is when it was played (else the delivery's time).
 */
const idsSchema = z
  .object({ tvdb: z.unknown(), tmdb: z.unknown(), imdb: z.unknown(), igdb: z.unknown() })
  .partial()
  .transform((ids): MediaIds => withoutUndefined({ tvdb: numericId(ids.tvdb), tmdb: numericId(ids.tmdb), imdb: imdbId(ids.imdb), igdb: numericId(ids.igdb) }));

const count = z.int().min(0).max(100_000);

export const genericBodySchema = z.object({
  event: z.enum(['played', 'unplayed', 'progress'], { error: 'event must be played, unplayed or progress' }).default('played'),
  eventId: z.string().min(1).max(200, { error: 'eventId must be a string of 1 to 200 characters' }).optional(),
  user: z.string().max(200).optional(),
  kind: z.enum(['episode', 'movie', 'game'], { error: 'kind must be episode, movie or game' }),
  ids: idsSchema.optional(),
  title: z.string().max(500).optional(),
  year: z.int().min(1800).max(2199).optional(),
  show: z.object({ title: z.string().max(500).optional(), ids: idsSchema.optional() }, { error: 'show must be an object with title and/or ids' }).optional(),
  season: count.optional(),
  episode: count.optional(),
  episodeEnd: count.optional(),
  at: z.string().max(64).optional(),
});

export function parseGeneric(body: unknown): MediaEvent {
  // Kodi add-ons written for other trackers (Movary's, Ryot's), taken as they send.
  const fromAddon = parseKodiAddon(body);
  if (fromAddon) return fromAddon;
  const parsed = genericBodySchema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue && issue.path.length > 0 ? `${issue.path.join('.')}: ` : '';
    throw new FormatError(`expected the generic JSON body (docs/media-servers.md): ${where}${issue?.message ?? 'not an object'}`);
  }
  const value = parsed.data;
  const at = value.at === undefined ? undefined : time(value.at);
  if (value.at !== undefined && at === undefined) throw new FormatError('expected the generic JSON body (docs/media-servers.md): at must be an ISO 8601 time');
  const action = value.event === 'played' ? 'played' : value.event === 'unplayed' ? 'marked-unplayed' : 'progress';
  return withoutUndefined({
    source: 'generic' as const,
    event: value.event,
    action,
    user: text(value.user),
    kind: value.kind,
    ids: value.ids ?? {},
    title: text(value.title),
    year: value.year,
    show: value.kind === 'episode' ? { title: text(value.show?.title), ids: value.show?.ids ?? {} } : undefined,
    season: value.season,
    episode: value.episode,
    episodeEnd: value.episodeEnd !== undefined && value.episode !== undefined && value.episodeEnd > value.episode ? value.episodeEnd : undefined,
    at,
    eventKey: value.eventId === undefined ? undefined : eventKeyOf('generic', value.eventId),
  }) as MediaEvent;
}
