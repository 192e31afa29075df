import { db } from '../db/client.ts';
import { channelLimits, listLimits } from '../limits.ts';
import { vapidKeys } from '../keys/vapid-keys.ts';
import { builder } from '../graphql/builder.ts';
import { writeErrors } from '../graphql/errors.ts';
import { listPage, pageDescriptions, pagedComplexity } from '../graphql/pages.ts';
import { channelEvents, defaultChannelEvents, storedChannelEvents } from './channel-events.ts';
import type { ChannelEvent } from './channel-events.ts';
import { channelKinds } from './channels/channel-kinds.ts';
import { testChannel, type ChannelTestReport } from './channel-test.ts';
import { addChannel, removeChannel, subscribeWebPush, updateChannel } from './notification-channels.ts';

const ChannelEventEnum = builder.enumType('ChannelEvent', {
  description: 'What a channel can be told about (docs/notifications.md, "Events").',
  values: Object.fromEntries(channelEvents.map((event) => [event.toUpperCase().replace(/-/g, '_'), { value: event }])) as Record<string, { value: ChannelEvent }>,
});

const kindLabels = new Map<string, string>(channelKinds.map((kind) => [kind.kind, kind.label]));
const deliveryPage = pageDescriptions(listLimits.deliveries, 'notifications');

builder.prismaObject('NotificationChannel', {
  description: 'A place the account’s notifications go: a URL in Apprise’s notation, a browser subscribed for web push, or the signed webhook.',
  fields: (t) => ({
    databaseId: t.exposeInt('id'),
    name: t.exposeString('name'),
    kind: t.exposeString('kind', { description: 'ntfy, gotify, discord, telegram, pushover, mail, json, apprise, webhook or webpush.' }),
    kindLabel: t.string({ description: 'The kind as people call it ("ntfy", "Telegram", "Web push").', resolve: (row) => kindLabels.get(row.kind) ?? row.kind }),
    destination: t.exposeString('summary', { description: 'Where it sends, every token and password left out. The URL itself is never returned.' }),
    events: t.field({ type: [ChannelEventEnum], description: 'The events it is told about.', resolve: (row) => storedChannelEvents(row.events) }),
    enabled: t.exposeBoolean('enabled', { description: 'False when turned off, by the person or after repeated failures (disabledReason says which).' }),
    consecutiveFailures: t.exposeInt('consecutiveFailures', { description: 'Deliveries that failed in a row; at 10 the channel is turned off.' }),
    disabledAt: t.expose('disabledAt', { type: 'DateTime', nullable: true }),
    disabledReason: t.exposeString('disabledReason', { nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    deliveries: t.relation('notifications', {
      description: 'The delivery log: what was sent here, newest first, each with its attempts, a page at a time.',
      args: { first: t.arg.int({ required: false, description: deliveryPage.first }), offset: t.arg.int({ required: false, description: deliveryPage.offset }) },
      complexity: pagedComplexity(listLimits.deliveries),
      query: (args) => {
        const page = listPage(args, listLimits.deliveries);
        return { orderBy: { id: 'desc' as const }, take: page.first, skip: page.offset };
      },
    }),
  }),
});

builder.prismaObjectField('Notification', 'channel', (t) =>
  t.relation('channel', { nullable: true, description: 'The channel it went to; null for one recorded before channels, or whose channel was removed.' }),
);

builder.prismaObjectField('Account', 'notificationChannels', (t) =>
  t.relation('notificationChannels', {
    description: `The account’s notification channels, oldest first (at most ${channelLimits.perAccount}).`,
    complexity: { field: 1, multiplier: channelLimits.perAccount },
    query: { orderBy: { id: 'asc' } },
  }),
);

const ChannelKindInfo = builder.objectRef<(typeof channelKinds)[number]>('NotificationChannelKind').implement({
  description: 'A kind of channel and the URL schemes it is added with.',
  fields: (t) => ({
    kind: t.string({ resolve: (kind) => kind.kind }),
    label: t.string({ resolve: (kind) => kind.label }),
    schemes: t.stringList({ description: 'Without `://`; empty for web push and the signed webhook, which are not added by URL.', resolve: (kind) => [...kind.schemes] }),
    defaultEvents: t.field({ type: [ChannelEventEnum], description: 'The events a new channel of this kind takes unless told.', resolve: (kind) => defaultChannelEvents(kind.kind) }),
  }),
});

builder.queryField('notificationChannelKinds', (t) =>
  t.field({ type: [ChannelKindInfo], description: 'Every kind of notification channel, for the settings page.', resolve: () => [...channelKinds] }),
);

builder.queryField('webPushPublicKey', (t) =>
  t.string({
    description: "The server's VAPID public key (base64url, uncompressed P-256): the applicationServerKey a browser subscribes with.",
    resolve: () => vapidKeys().publicKey,
  }),
);

const AddNotificationChannelInput = builder.inputType('AddNotificationChannelInput', {
  fields: (t) => ({
    url: t.string({ required: true, description: 'A URL in Apprise’s notation (ntfy://, gotify://, discord://, tgram://, pover://, mailto://, json://, apprise://…) or, with AIRDATE_SMTP_URL set, an e-mail address.' }),
    name: t.string({ required: false, description: 'What to call it; unset, where it sends.' }),
    events: t.field({ type: [ChannelEventEnum], required: false, description: 'The events it is told about; unset, the kind’s defaults.' }),
  }),
});

builder.mutationField('addNotificationChannel', (t) =>
  t.prismaField({
    type: 'NotificationChannel',
    description: 'Adds a channel. The URL is checked (each kind names the part at fault) and its server against AIRDATE_WEBHOOK_ALLOWED_HOSTS.',
    errors: { types: writeErrors },
    args: { input: t.arg({ type: AddNotificationChannelInput, required: true }) },
    resolve: async (query, _root, { input }, context) => {
      const row = await addChannel({ accountId: context.account.id, url: input.url, name: input.name, events: input.events, services: context.services.channels });
      return db().notificationChannel.findUniqueOrThrow({ ...query, where: { id: row.id } });
    },
  }),
);

const UpdateNotificationChannelInput = builder.inputType('UpdateNotificationChannelInput', {
  fields: (t) => ({
    id: t.int({ required: true, description: 'The channel’s databaseId.' }),
    name: t.string({ required: false }),
    url: t.string({ required: false, description: 'A new URL of the same kind (checked as when added).' }),
    events: t.field({ type: [ChannelEventEnum], required: false }),
    enabled: t.boolean({ required: false, description: 'Turning it on again clears its failures.' }),
  }),
});

builder.mutationField('updateNotificationChannel', (t) =>
  t.prismaField({
    type: 'NotificationChannel',
    description: 'Changes a channel’s name, URL, events, or turns it on or off.',
    errors: { types: writeErrors },
    args: { input: t.arg({ type: UpdateNotificationChannelInput, required: true }) },
    resolve: async (query, _root, { input }, context) => {
      const row = await updateChannel({ accountId: context.account.id, ...input, services: context.services.channels });
      return db().notificationChannel.findUniqueOrThrow({ ...query, where: { id: row.id } });
    },
  }),
);

builder.mutationField('removeNotificationChannel', (t) =>
  t.int({
    description: 'Removes a channel (a web push device unsubscribes this way too); answers its databaseId. Its delivery log stays in viewer.notifications.',
    errors: { types: writeErrors },
    args: { id: t.arg.int({ required: true }) },
    resolve: async (_root, { id }, context) => {
      await removeChannel({ accountId: context.account.id, id });
      return id;
    },
  }),
);

const ChannelTestResult = builder.objectRef<ChannelTestReport>('NotificationChannelTestResult').implement({
  description: 'What a channel’s peer answered to the test message.',
  fields: (t) => ({
    ok: t.exposeBoolean('ok', { description: 'It was delivered.' }),
    outcome: t.exposeString('outcome', { description: 'delivered | retry (429, 5xx, no answer) | failed | gone (a web push subscription that no longer exists).' }),
    status: t.exposeInt('status', { nullable: true, description: 'The HTTP status (an SMTP reply code for mail); null when none arrived.' }),
    reason: t.exposeString('reason', { nullable: true, description: 'Why it did not go, without any token.' }),
    answer: t.exposeString('answer', { nullable: true, description: 'The start of the answer.' }),
    durationMs: t.exposeInt('durationMs'),
    idempotencyKey: t.exposeString('idempotencyKey', { description: 'Sent as the webhook-id, Idempotency-Key or Message-ID.' }),
    removed: t.exposeBoolean('removed', { description: 'The push service no longer knows the subscription: the channel was removed.' }),
  }),
});

builder.mutationField('testNotificationChannel', (t) =>
  t.field({
    type: ChannelTestResult,
    description: 'Sends "Airdate test notification" to the channel now (even when turned off), once, and answers what its peer said. Not retried, not in the delivery log.',
    errors: { types: writeErrors },
    args: { id: t.arg.int({ required: true }) },
    resolve: (_root, { id }, context) => testChannel({ accountId: context.account.id, id, services: context.services.channels }),
  }),
);

const WebPushKeysInput = builder.inputType('WebPushKeysInput', {
  fields: (t) => ({
    p256dh: t.string({ required: true, description: 'The browser’s P-256 public key, base64url.' }),
    auth: t.string({ required: true, description: 'The 16-byte auth secret, base64url.' }),
  }),
});

const SubscribeWebPushInput = builder.inputType('SubscribeWebPushInput', {
  description: 'A PushSubscription as the browser gives it (subscription.toJSON()).',
  fields: (t) => ({
    endpoint: t.string({ required: true }),
    keys: t.field({ type: WebPushKeysInput, required: true }),
    name: t.string({ required: false, description: 'The device’s name; unset, named after the browser (User-Agent).' }),
  }),
});

builder.mutationField('subscribeWebPush', (t) =>
  t.prismaField({
    type: 'NotificationChannel',
    description: 'Subscribes this browser for web push: a channel of kind webpush. Subscribing again with the same endpoint updates it.',
    errors: { types: writeErrors },
    args: { input: t.arg({ type: SubscribeWebPushInput, required: true }) },
    resolve: async (query, _root, { input }, context) => {
      const row = await subscribeWebPush({
        accountId: context.account.id,
        subscription: { endpoint: input.endpoint, keys: { p256dh: input.keys.p256dh, auth: input.keys.auth } },
        name: input.name,
        userAgent: context.web?.request.headers.get('user-agent'),
        services: context.services.channels,
      });
      return db().notificationChannel.findUniqueOrThrow({ ...query, where: { id: row.id } });
    },
  }),
);
