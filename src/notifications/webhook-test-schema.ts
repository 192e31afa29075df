import { sendTestNotification, type TestNotificationReport } from './test-notification.ts';
import { builder } from '../graphql/builder.ts';
import { writeErrors } from '../graphql/errors.ts';

const TestNotificationResult = builder.objectRef<TestNotificationReport>('TestNotificationResult').implement({
  description: 'What the receiver answered to a test notification.',
  fields: (t) => ({
    ok: t.exposeBoolean('ok', { description: 'The receiver answered with a 2xx status.' }),
    status: t.exposeInt('status', { nullable: true, description: 'Its HTTP status; null when no answer arrived.' }),
    responseBody: t.exposeString('responseBody', { nullable: true, description: 'The start of its answer body (up to 4 KB).' }),
    error: t.exposeString('error', { nullable: true, description: 'Why it did not succeed, as the delivery log words it.' }),
    durationMs: t.exposeInt('durationMs'),
    webhookId: t.exposeString('webhookId', { description: 'The `webhook-id` header sent.' }),
  }),
});

builder.mutationField('sendTestNotification', (t) =>
  t.field({
    type: TestNotificationResult,
    description:
      'Sends one signed `{"type":"test"}` notification to the webhook URL now and answers what the receiver said. Not retried, not stored, not in the delivery log.',
    errors: { types: writeErrors },
    resolve: (_root, _args, context) => sendTestNotification({ accountId: context.account.id, target: context.services.webhooks }),
  }),
);
