import { useState } from 'preact/hooks';
import { request } from '../client.ts';
import { CopyField, formatTime, Notice, useAction } from '../components.tsx';
import { graphql, readFragment, type FragmentOf, type ResultOf } from '../graphql.ts';

/** What the webhook settings show of the account; the developer page's query selects it. */
export const WebhookFields = graphql(`
  fragment WebhookFields on Account {
    webhookUrl
    webhookSecret
    webhookDisabledAt
    webhookDisabledReason
  }
`);

const UpdateWebhook = graphql(`
  mutation UpdateWebhook($url: String!) {
    updateSettings(input: { webhookUrl: $url }) {
      __typename
      ... on Error {
        message
      }
    }
  }
`);

const SendTestNotification = graphql(`
  mutation SendTestNotification {
    sendTestNotification {
      __typename
      ... on Error {
        message
      }
      ... on MutationSendTestNotificationSuccess {
        data {
          ok
          status
          responseBody
          error
          durationMs
        }
      }
    }
  }
`);

type TestResult = Extract<ResultOf<typeof SendTestNotification>['sendTestNotification'], { __typename: 'MutationSendTestNotificationSuccess' }>['data'];

/**
 * The webhook URL (checked by the server against its address policy: its refusal is shown as
 * it words it), the signing secret, and a test notification showing what the receiver answered.
 */
export function WebhookSettings({ account, reload }: { account: FragmentOf<typeof WebhookFields>; reload: () => void }) {
  const viewer = readFragment(WebhookFields, account);
  const [url, setUrl] = useState(viewer.webhookUrl ?? '');
  const [test, setTest] = useState<TestResult | null>(null);
  const save = useAction(async () => {
    const result = (await request(UpdateWebhook, { url: url.trim() })).updateSettings;
    if (result.__typename !== 'MutationUpdateSettingsSuccess') throw new Error(result.message);
    reload();
    return url.trim() ? 'Webhook URL saved.' : 'Webhook turned off.';
  });
  const send = useAction(async () => {
    setTest(null);
    const result = (await request(SendTestNotification)).sendTestNotification;
    if (result.__typename !== 'MutationSendTestNotificationSuccess') throw new Error(result.message);
    setTest(result.data);
    return result.data.ok ? 'The receiver accepted the test notification.' : 'The test notification was not accepted.';
  });

  /** Why the test cannot be sent now, or null: it always goes to the saved URL, so a typed one must be saved first. */
  const testBlocked = !viewer.webhookUrl
    ? 'Save a webhook URL first: the test goes to the saved URL.'
    : url.trim() !== viewer.webhookUrl
      ? 'The URL in the field is not saved yet: save it first, the test goes to the saved URL.'
      : null;
  return (
    <section class="card" aria-labelledby="webhook-heading">
      <h2 id="webhook-heading">Webhook</h2>
      <p class="hint">Airdate POSTs a signed JSON notification to this URL when something you follow is released.</p>
      {viewer.webhookDisabledAt && (
        <p class="warning">
          Turned off on {formatTime(viewer.webhookDisabledAt)}: {viewer.webhookDisabledReason}. Save the URL again to turn it back on.
        </p>
      )}
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void save.run();
        }}
      >
        <div class="field">
          <label for="webhook-url">Webhook URL</label>
          <input id="webhook-url" type="url" inputMode="url" value={url} placeholder="https://example.com/hooks/airdate" onInput={(event) => {
              setUrl(event.currentTarget.value);
              // What was said about the previous URL no longer holds.
              save.setOutcome(null);
              send.setOutcome(null);
              setTest(null);
            }} />
          <span class="hint">Leave empty and save to turn notifications off.</span>
        </div>
        <button class="primary" disabled={save.busy}>
          Save webhook
        </button>
      </form>
      <Notice outcome={save.outcome} />
      <CopyField id="webhook-secret" label="Signing secret" value={viewer.webhookSecret} />
      <button type="button" aria-describedby="test-hint" disabled={send.busy || testBlocked !== null} onClick={() => void send.run()}>
        Send a test notification
      </button>
      <p id="test-hint" class="hint">
        {testBlocked ?? `The test goes to the saved URL, ${viewer.webhookUrl}.`}
      </p>
      <Notice outcome={send.outcome} />
      {test && (
        <dl class="result" aria-label="Test notification result">
          <dt>Status</dt>
          <dd>{test.status ?? 'no answer'}</dd>
          <dt>Time</dt>
          <dd>{test.durationMs} ms</dd>
          {test.error && (
            <>
              <dt>Problem</dt>
              <dd>{test.error}</dd>
            </>
          )}
          <dt>Receiver's answer</dt>
          <dd>
            <pre>{test.responseBody || '(empty)'}</pre>
          </dd>
        </dl>
      )}
    </section>
  );
}
