import { useState } from 'preact/hooks';
import { request } from '../client.ts';
import { formatTime, Notice, PageTitle, useAction, useLoad } from '../components.tsx';
import { graphql } from '../graphql.ts';
import { navigate } from '../router.ts';
import { useSession } from '../session.ts';

const SetupLinkInfo = graphql(`
  query SetupLinkInfo($code: String!) {
    setupLinkInfo(code: $code) {
      purpose
      expiresAt
    }
  }
`);

const CompleteSetup = graphql(`
  mutation CompleteSetup($code: String!, $name: String!, $password: String!, $timezone: String) {
    completeSetup(code: $code, name: $name, password: $password, timezone: $timezone) {
      databaseId
    }
  }
`);

/** The code of `/setup#code=…`: in the fragment, so it never reaches a server log or a Referer. */
const codeFromHash = () => new URLSearchParams(window.location.hash.slice(1)).get('code') ?? '';

const loadLink = async () => {
  const code = codeFromHash();
  return code ? { code, link: (await request(SetupLinkInfo, { code })).setupLinkInfo } : { code, link: null };
};

/** First-run setup (the administrator) and invitations (a user): one setup link, used once. */
export default function SetupPage() {
  const session = useSession();
  const { data, error } = useLoad(loadLink);
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const [repeat, setRepeat] = useState('');
  const submit = useAction(async () => {
    if (password !== repeat) throw new Error('The two passwords differ.');
    await request(CompleteSetup, { code: data!.code, name: name.trim(), password, timezone: Intl.DateTimeFormat().resolvedOptions().timeZone });
    history.replaceState(null, '', '/setup');
    await session.refresh();
    navigate('/', { replace: true });
  });
  const admin = data?.link?.purpose === 'FIRST_ADMIN';

  return (
    <section class="narrow">
      <PageTitle>{admin ? 'Set up Airdate' : 'Create your account'}</PageTitle>
      {error && <p role="alert">{error}</p>}
      {data && !data.link && (
        <p role="alert" class="notice-error">
          This setup link is unknown, used or expired. Ask an administrator for a new one (or, for the first account, restart the server for a new link).
        </p>
      )}
      {data?.link && (
        <form
          class="card"
          onSubmit={(event) => {
            event.preventDefault();
            void submit.run();
          }}
        >
          <p class="hint">
            {admin ? 'This account will be the administrator.' : 'You were invited to this server.'} The link works once, until {formatTime(data.link.expiresAt)}.
          </p>
          <div class="field">
            <label for="name">Name</label>
            <input id="name" autocomplete="username" required value={name} onInput={(event) => setName(event.currentTarget.value)} />
            <span class="hint">Letters, digits and . _ - @.</span>
          </div>
          <div class="field">
            <label for="password">Password</label>
            <input id="password" type="password" autocomplete="new-password" required minLength={8} value={password} onInput={(event) => setPassword(event.currentTarget.value)} />
            <span class="hint">8 to 200 characters.</span>
          </div>
          <div class="field">
            <label for="repeat">Password again</label>
            <input id="repeat" type="password" autocomplete="new-password" required value={repeat} onInput={(event) => setRepeat(event.currentTarget.value)} />
          </div>
          <button class="primary" disabled={submit.busy}>
            Create account
          </button>
          <Notice outcome={submit.outcome} />
        </form>
      )}
    </section>
  );
}
