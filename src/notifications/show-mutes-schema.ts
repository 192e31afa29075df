import { db } from '../db/client.ts';
import { builder } from '../graphql/builder.ts';
import { writeErrors } from '../graphql/errors.ts';
import { setShowMuted } from './show-mutes.ts';

builder.prismaObjectField('Show', 'notificationsMuted', (t) =>
  t.boolean({
    description: 'The viewer hears nothing about this show on any notification channel (it stays followed, in the feeds and the calendar).',
    // Read with the show's own query, as libraryEntry is: a page of shows costs one more query.
    select: (_args, context) => ({ mutedBy: { where: { accountId: context.account.id }, select: { showId: true }, take: 1 } }),
    resolve: (show) => show.mutedBy.length > 0,
  }),
);

builder.mutationField('setShowNotificationsMuted', (t) =>
  t.prismaField({
    type: 'Show',
    description: 'Mutes (or unmutes) a show on every notification channel of the viewer: no release, premiere or finale of it is sent.',
    errors: { types: writeErrors },
    args: { showId: t.arg.int({ required: true, description: 'The show’s databaseId.' }), muted: t.arg.boolean({ required: true }) },
    resolve: async (query, _root, { showId, muted }, context) => {
      await setShowMuted({ accountId: context.account.id, showId, muted });
      return db().show.findUniqueOrThrow({ ...query, where: { id: showId } });
    },
  }),
);
