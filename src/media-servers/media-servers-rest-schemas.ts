import { z } from 'zod';
import { mediaServerSources } from './sources/media-event.ts';
import { genericBodySchema } from './sources/parse-generic.ts';

/** What the media server route answers (media-servers-route.ts), as zod schemas for its OpenAPI operation. */

const answeredItem = z.object({
  kind: z.enum(['episode', 'movie', 'game']),
  title: z.string().meta({ description: "The show's title for an episode, else the film's or game's." }),
  season: z.int().optional(),
  episode: z.int().optional(),
  recorded: z.boolean().meta({ description: 'False when it was watched already, or within the duplicate window.' }),
});

export const deliveryAnswerSchema = z
  .object({
    ok: z.literal(true),
    result: z.enum(['matched', 'duplicate', 'removed', 'unmatched', 'ignored']),
    event: z.string().meta({ description: "The server's own event name." }),
    user: z.string().optional().meta({ description: "The server's user the event is about." }),
    reason: z.string().optional().meta({ description: 'Why nothing (or not everything) was recorded.' }),
    items: z.array(answeredItem).optional(),
    seen: z.record(z.string(), z.unknown()).optional().meta({ description: 'Unmatched: what the event named (kind, title, ids, show, season, episode).' }),
  })
  .meta({ id: 'MediaServerDeliveryAnswer', description: 'What came of one delivery (docs/media-servers.md).' });

export const genericWatchSchema = genericBodySchema.meta({
  id: 'GenericWatchEvent',
  description: 'The generic body (docs/media-servers.md "Generic JSON"). ids: tvdb, tmdb, igdb as numbers, imdb as "tt…".',
});

export const mediaServerSourceSchema = z.enum(mediaServerSources).meta({ id: 'MediaServerSource' });
