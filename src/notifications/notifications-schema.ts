import { db } from '../db/client.ts';
import { listLimits } from '../limits.ts';
import { builder } from '../graphql/builder.ts';
import { writeErrors } from '../graphql/errors.ts';
import { connectionComplexity, listPage, pageDescriptions, pagedComplexity } from '../graphql/pages.ts';
import { redeliverNotification } from './release-jobs.ts';
import { findWebhook } from '../accounts/webhook-setting.ts';

const deliveryPage = pageDescriptions(listLimits.deliveries, 'attempts');

builder.prismaObject('DeliveryAttempt', {
  description: 'One attempt to deliver a release notification to the webhook.',
  fields: (t) => ({
    number: t.exposeInt('number', { description: '1-based; redeliveries count on.' }),
    at: t.expose('at', { type: 'DateTime' }),
    url: t.exposeString('url'),
    statusCode: t.exposeInt('statusCode', { nullable: true, description: "The receiver's HTTP status; null when none arrived." }),
    durationMs: t.exposeInt('durationMs'),
    error: t.exposeString('error', { nullable: true }),
    outcome: t.exposeString('outcome', { description: 'success | retry | failed | gone (410: the webhook was turned off).' }),
    manual: t.exposeBoolean('manual', { description: 'A redelivery asked for through redeliverNotification.' }),
  }),
});

builder.prismaObject('Notification', {
  description: 'What a channel is told: a release (one per channel and item, ever; a signed webhook gets one per item, the other channels one per show and day), a channel turned off. Recorded before the first attempt; its attempts are the delivery log.',
  fields: (t) => ({
    databaseId: t.exposeInt('id'),
    itemKey: t.exposeString('itemKey', { description: '`episode:<id>`, `movie:<id>` or `game:<id>`.' }),
    kind: t.exposeString('kind'),
    webhookId: t.exposeString('webhookId', { description: 'The `webhook-id` header, the same on every attempt.' }),
    payload: t.exposeString('payload', { description: "The JSON body sent to a signed webhook; for the other channels, the message's JSON (event, title, body, link, poster)." }),
    releaseDate: t.expose('releaseDate', { type: 'LocalDate' }),
    status: t.exposeString('status', {
      description: 'pending | delivered | failed | cancelled (its channel was removed or turned off) | grouped (an item told within another notification of its channel, named by toldWith in its payload).',
    }),
    attempts: t.exposeInt('attempts'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    lastAttemptAt: t.expose('lastAttemptAt', { type: 'DateTime', nullable: true }),
    nextAttemptAt: t.expose('nextAttemptAt', { type: 'DateTime', nullable: true, description: 'When a pending one is tried next.' }),
    deliveredAt: t.expose('deliveredAt', { type: 'DateTime', nullable: true }),
    deliveries: t.relation('deliveries', {
      description: 'The attempts, oldest first, a page at a time (attempts counts them).',
      args: { first: t.arg.int({ required: false, description: deliveryPage.first }), offset: t.arg.int({ required: false, description: deliveryPage.offset }) },
      complexity: pagedComplexity(listLimits.deliveries),
      query: (args) => {
        const page = listPage(args, listLimits.deliveries);
        return { orderBy: { number: 'asc' as const }, take: page.first, skip: page.offset };
      },
    }),
  }),
});

builder.prismaObjectFields('Account', (t) => ({
  webhookDisabledAt: t.field({
    type: 'DateTime',
    nullable: true,
    description: 'Set when the webhook was turned off (a receiver answered 410 Gone, or it failed 10 times in a row); setting webhookUrl again turns deliveries back on.',
    resolve: async (account) => (await findWebhook(account.id))?.disabledAt ?? null,
  }),
  webhookDisabledReason: t.string({ nullable: true, resolve: async (account) => (await findWebhook(account.id))?.disabledReason ?? null }),
  notifications: t.relatedConnection('notifications', {
    description: `Release notifications with their delivery log, newest first, ${listLimits.connection.default} a page unless first or last asks for up to ${listLimits.connection.max}.`,
    cursor: 'id',
    complexity: connectionComplexity(listLimits.connection),
    query: { orderBy: { id: 'desc' } },
  }),
}));

builder.queryField('notification', (t) =>
  t.prismaField({
    type: 'Notification',
    nullable: true,
    description: 'One of the account’s release notifications, by databaseId.',
    args: { id: t.arg.int({ required: true }) },
    resolve: (query, _root, { id }, context) => db().notification.findFirst({ ...query, where: { id, accountId: context.account.id } }),
  }),
);

builder.mutationField('redeliverNotification', (t) =>
  t.prismaField({
    type: 'Notification',
    description: 'Sends a finished notification again (same webhook-id, new attempt in the log), with the usual retries.',
    errors: { types: writeErrors },
    args: { id: t.arg.int({ required: true }) },
    resolve: async (query, _root, { id }, context) => {
      await redeliverNotification({ jobs: context.services.jobs, accountId: context.account.id, notificationId: id });
      return db().notification.findUniqueOrThrow({ ...query, where: { id } });
    },
  }),
);
