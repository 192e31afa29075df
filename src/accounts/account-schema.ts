import { db } from '../db/client.ts';
import type { Account } from '../generated/prisma/client.ts';
import { storedSummaryProfile, updateAccount } from './accounts.ts';
import { regenerateToken, showToken, showWebhookSecret } from './tokens.ts';
import { findWebhook } from './webhook-setting.ts';
import { builder } from '../graphql/builder.ts';
import { writeErrors } from '../graphql/errors.ts';
import { selectsOnly } from '../graphql/selection.ts';

/** What GET /api/machine/summary answers for the account (docs/api.md "Summary"). */
const SummaryProfileEnum = builder.enumType('SummaryProfile', {
  description: 'What GET /api/machine/summary answers for the account.',
  values: {
    FULL: { value: 'full', description: 'The whole summary, as the specification shapes it (the default).' },
    HOME_ASSISTANT: {
      value: 'home-assistant',
      description: "Lists capped and items lean, so every sensor of the Home Assistant integration fits Home Assistant's limits.",
    },
  } as const,
});

const AccountRef = builder.prismaObject('Account', {
  description: 'The account the token belongs to.',
  fields: (t) => ({
    databaseId: t.exposeInt('id'),
    name: t.exposeString('name'),
    timezone: t.exposeString('timezone', { description: 'IANA time zone; every feed date is in it.' }),
    webhookUrl: t.string({
      nullable: true,
      description: 'The signed webhook release notifications are posted to (one of the notification channels); null when none is set.',
      resolve: async (account) => (await findWebhook(account.id))?.url ?? null,
    }),
    summaryProfile: t.field({
      type: SummaryProfileEnum,
      description: 'What GET /api/machine/summary answers.',
      resolve: (account) => storedSummaryProfile(account.summaryProfile),
    }),
    homeAssistantMqtt: t.exposeBoolean('homeAssistantMqtt', {
      description: 'Whether the library is published to the MQTT broker for Home Assistant (when the server has AIRDATE_MQTT_URL set).',
    }),
    apiToken: t.string({
      description: 'The personal API token, created the first time it is viewed.',
      resolve: (account) => showToken({ accountId: account.id }),
    }),
    webhookSecret: t.string({
      description: 'The `whsec_` secret release notifications are signed with, created on first view.',
      resolve: (account) => showWebhookSecret({ accountId: account.id }),
    }),
  }),
});

/** Account fields the token check has already read (context.account); a viewer asking for no other costs no query. */
const readWithToken = new Set(['__typename', 'databaseId', 'name', 'timezone', 'summaryProfile']);

builder.queryField('viewer', (t) =>
  t.prismaField({
    type: 'Account',
    description: 'The account of the token the request carries.',
    resolve: (query, _root, _args, context, info) => {
      if (selectsOnly(info, readWithToken)) {
        const { id, name, timezone, summaryProfile } = context.account;
        // Only the fields in readWithToken are ever read from this object (checked just above).
        return { id, name, timezone, summaryProfile } as Account;
      }
      return db().account.findUniqueOrThrow({ ...query, where: { id: context.account.id } });
    },
  }),
);

builder.mutationField('regenerateToken', (t) =>
  t.string({
    description: 'Replaces the API token; the old one stops working at once, on every server instance.',
    resolve: (_root, _args, context) => regenerateToken({ accountId: context.account.id }),
  }),
);

const UpdateSettingsInput = builder.inputType('UpdateSettingsInput', {
  fields: (t) => ({
    timezone: t.string({ required: false, description: 'IANA time zone, e.g. Europe/Berlin.' }),
    webhookUrl: t.string({ required: false, description: 'http(s) URL for release notifications; "" turns them off.' }),
    summaryProfile: t.field({ type: SummaryProfileEnum, required: false, description: 'What GET /api/machine/summary answers.' }),
    homeAssistantMqtt: t.boolean({
      required: false,
      description: 'Publish the library to the MQTT broker for Home Assistant (docs/home-assistant.md); false removes its entities there.',
    }),
  }),
});

builder.mutationField('updateSettings', (t) =>
  t.field({
    type: AccountRef,
    errors: { types: writeErrors },
    args: { input: t.arg({ type: UpdateSettingsInput, required: true }) },
    resolve: (_root, { input }, context) =>
      updateAccount({
        name: context.account.name,
        timezone: input.timezone ?? undefined,
        webhookUrl: input.webhookUrl ?? undefined,
        summaryProfile: input.summaryProfile ?? undefined,
        homeAssistantMqtt: input.homeAssistantMqtt ?? undefined,
      }),
  }),
);
