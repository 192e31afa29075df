import { request } from '../client.ts';
import { ConfirmButton, CopyField, Notice, PageTitle, useAction, useLoad } from '../components.tsx';
import { graphql } from '../graphql.ts';
import { WebhookFields, WebhookSettings } from './developer-webhook.tsx';
import { DeliveryLog } from './delivery-log.tsx';

const DeveloperQuery = graphql(`
  query DeveloperSettings {
    viewer {
      apiToken
      calendarUrl
      summaryUrl
      summaryProfile
      homeAssistantMqtt
      ...WebhookFields
    }
  }
`, [WebhookFields]);

const RegenerateToken = graphql(`
  mutation RegenerateToken {
    regenerateToken
  }
`);

const UpdateSummaryProfile = graphql(`
  mutation UpdateSummaryProfile($profile: SummaryProfile!) {
    updateSettings(input: { summaryProfile: $profile }) {
      __typename
      ... on Error {
        message
      }
    }
  }
`);

const UpdateHomeAssistantMqtt = graphql(`
  mutation UpdateHomeAssistantMqtt($on: Boolean!) {
    updateSettings(input: { homeAssistantMqtt: $on }) {
      __typename
      ... on Error {
        message
      }
    }
  }
`);

const loadDeveloper = async () => (await request(DeveloperQuery)).viewer;

/**
 * Developer settings: the API token (created on this first view by the server), the machine
 * URLs built on it, the summary profile, the webhook and its delivery log.
 */
export default function DeveloperPage() {
  const { data: viewer, error, reload } = useLoad(loadDeveloper);
  const regenerate = useAction(async () => {
    await request(RegenerateToken);
    reload();
    return 'A new token was made; the old one no longer works anywhere.';
  });
  const profile = useAction(async (value: 'FULL' | 'HOME_ASSISTANT') => {
    const result = (await request(UpdateSummaryProfile, { profile: value })).updateSettings;
    if (result.__typename !== 'MutationUpdateSettingsSuccess') throw new Error(result.message);
    reload();
    return 'Summary profile saved.';
  });
  const mqtt = useAction(async (on: boolean) => {
    const result = (await request(UpdateHomeAssistantMqtt, { on })).updateSettings;
    if (result.__typename !== 'MutationUpdateSettingsSuccess') throw new Error(result.message);
    reload();
    return on ? 'Published to Home Assistant over MQTT.' : 'No longer published; its entities are removed from Home Assistant.';
  });

  return (
    <section>
      <PageTitle>Developer settings</PageTitle>
      {error && <p role="alert">{error}</p>}
      {!viewer && !error && <p class="loading">Loading…</p>}
      {viewer && (
        <>
          <section class="card" aria-labelledby="token-heading">
            <h2 id="token-heading">API token</h2>
            <p class="hint">Scripts, Home Assistant and calendar apps use it. Keep it secret: it acts as you.</p>
            <CopyField id="api-token" label="API token" value={viewer.apiToken} />
            <ConfirmButton
              label="Regenerate token"
              question="Make a new API token?"
              confirm="Regenerate"
              danger
              disabled={regenerate.busy}
              onConfirm={() => void regenerate.run()}
            >
              <p>The current token stops working at once, everywhere it is used.</p>
            </ConfirmButton>
            <Notice outcome={regenerate.outcome} />
          </section>

          <section class="card" aria-labelledby="calendar-heading">
            <h2 id="calendar-heading">Calendar subscription</h2>
            <p class="hint">Add it to a calendar app as a subscription (by URL); it carries the token.</p>
            <CopyField id="calendar-url" label="Calendar URL" value={viewer.calendarUrl} />
            <p>
              <a href={webcalUrl(viewer.calendarUrl)}>Subscribe in your calendar app</a>
            </p>
          </section>

          <section class="card" aria-labelledby="summary-heading">
            <h2 id="summary-heading">Summary for Home Assistant</h2>
            <p class="hint">Home Assistant's REST sensor (or any widget) polls this URL.</p>
            <CopyField id="summary-url" label="Summary URL" value={viewer.summaryUrl} />
            <div class="field">
              <label for="summary-profile">Summary profile</label>
              <select
                id="summary-profile"
                value={viewer.summaryProfile}
                disabled={profile.busy}
                onChange={(event) => void profile.run(event.currentTarget.value as 'FULL' | 'HOME_ASSISTANT')}
              >
                <option value="FULL">Full: the whole summary</option>
                <option value="HOME_ASSISTANT">Home Assistant: lists capped to fit its limits</option>
              </select>
            </div>
            <Notice outcome={profile.outcome} />
            <div class="field">
              <label>
                <input
                  type="checkbox"
                  id="home-assistant-mqtt"
                  checked={viewer.homeAssistantMqtt}
                  disabled={mqtt.busy}
                  onChange={(event) => void mqtt.run(event.currentTarget.checked)}
                />{' '}
                Publish to Home Assistant over MQTT
              </label>
            </div>
            <p class="hint">
              Sensors, events and buttons appear in Home Assistant by themselves, through the MQTT broker the server is set up with
              (AIRDATE_MQTT_URL; without it nothing is published).
            </p>
            <Notice outcome={mqtt.outcome} />
          </section>

          <WebhookSettings account={viewer} reload={reload} />
          <DeliveryLog />
        </>
      )}
    </section>
  );
}

/** The same URL with the webcal: scheme, which opens the system's calendar app to subscribe. */
export function webcalUrl(url: string): string {
  return url.replace(/^https?:/, 'webcal:');
}
