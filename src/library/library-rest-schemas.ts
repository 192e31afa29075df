import { z } from 'zod';
import { bodyError, flag, idField, kindField } from '../http/rest-input.ts';

/** What the library's write routes take (library-routes.ts), as zod schemas: see http/rest-input.ts. */

/** `POST /api/machine/watched`. */
export const watchedBodySchema = z
  .object(
    {
      kind: kindField(['episode', 'movie', 'game']),
      id: idField,
      watched: flag('watched', 'true marks the item watched, false unwatched.'),
    },
    bodyError,
  )
  .meta({ id: 'WatchedRequest', description: 'Marks an episode, movie or game watched or unwatched. Setting the same state again succeeds and changes nothing.' });

/** `POST /api/machine/follow`: at least one of followed and archived (the service checks that, and archived on shows only). */
export const followBodySchema = z
  .object(
    {
      kind: kindField(['show', 'movie', 'game']),
      id: idField,
      followed: flag('followed', 'true follows, false unfollows (the watch history is kept).').optional(),
      archived: flag('archived', 'Shows only: true archives, false unarchives. Sent alone, the follow state stays as it is.').optional(),
    },
    bodyError,
  )
  .meta({ id: 'FollowRequest', description: 'Follows, unfollows, archives or unarchives an item. At least one of `followed` and `archived` is required; `archived` on a movie or game is a 400.' });
