import { useState } from 'preact/hooks';
import { request } from '../client.ts';
import { Notice, PageTitle, useAction, useLoad } from '../components.tsx';
import { graphql } from '../graphql.ts';
import { AccountSecurity } from './account-security.tsx';
import { UpNextRuleSettings } from './account-up-next.tsx';

const AccountQuery = graphql(`
  query AccountSettings {
    viewer {
      name
      timezone
    }
  }
`);

const UpdateTimezone = graphql(`
  mutation UpdateTimezone($timezone: String!) {
    updateSettings(input: { timezone: $timezone }) {
      __typename
      ... on Error {
        message
      }
    }
  }
`);

const loadAccount = async () => (await request(AccountQuery)).viewer;

/** Every zone the browser knows: the list the time zone field suggests from as one types. */
const zones: string[] = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
const browserZone = Intl.DateTimeFormat().resolvedOptions().timeZone;

/** Account settings: time zone, password and sessions. */
export default function AccountPage() {
  const { data: viewer, error, reload } = useLoad(loadAccount);
  return (
    <section>
      <PageTitle>Account</PageTitle>
      {error && <p role="alert">{error}</p>}
      {!viewer && !error && <p class="loading">Loading…</p>}
      {viewer && <TimezoneForm current={viewer.timezone} reload={reload} />}
      <UpNextRuleSettings />
      <AccountSecurity />
    </section>
  );
}

function TimezoneForm({ current, reload }: { current: string; reload: () => void }) {
  const [zone, setZone] = useState(current);
  const save = useAction(async (value: string) => {
    const result = (await request(UpdateTimezone, { timezone: value })).updateSettings;
    if (result.__typename !== 'MutationUpdateSettingsSuccess') throw new Error(result.message);
    setZone(value);
    reload();
    return `Time zone set to ${value}.`;
  });
  return (
    <section class="card" aria-labelledby="zone-heading">
      <h2 id="zone-heading">Time zone</h2>
      <p class="hint">Release dates, the calendar and the summary are in this zone. Now: {current}.</p>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void save.run(zone.trim());
        }}
      >
        <div class="field">
          <label for="timezone">Time zone</label>
          <input id="timezone" list="timezones" value={zone} autocomplete="off" spellcheck={false} onInput={(event) => (setZone(event.currentTarget.value), save.setOutcome(null))} />
          <datalist id="timezones">
            {zones.map((name) => (
              <option key={name} value={name} />
            ))}
          </datalist>
          <span class="hint">Type to search, e.g. “Berlin” or “America/”.</span>
        </div>
        <div class="actions">
          <button class="primary" disabled={save.busy}>
            Save time zone
          </button>
          {browserZone && browserZone !== current && (
            <button type="button" disabled={save.busy} onClick={() => void save.run(browserZone)}>
              Use this device's zone ({browserZone})
            </button>
          )}
        </div>
      </form>
      <Notice outcome={save.outcome} />
    </section>
  );
}
