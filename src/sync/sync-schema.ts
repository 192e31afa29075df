import { builder } from '../graphql/builder.ts';
import { accountSyncJob } from './sync-jobs.ts';

const SyncResult = builder.objectRef<{ ok: boolean }>('SyncResult').implement({
  description: 'The sync was queued (or one was already queued or running).',
  fields: (t) => ({ ok: t.exposeBoolean('ok') }),
});

builder.mutationField('sync', (t) =>
  t.field({
    type: SyncResult,
    description: 'Queues a catalog refresh and release check of the account, as the 30-minute job does, and returns at once.',
    resolve: async (_root, _args, context) => {
      await context.services.jobs.queue(accountSyncJob, { accountId: context.account.id });
      return { ok: true };
    },
  }),
);
