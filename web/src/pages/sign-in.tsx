import { useEffect, useState } from 'preact/hooks';
import { request } from '../client.ts';
import { Notice, PageTitle, useAction } from '../components.tsx';
import { graphql } from '../graphql.ts';
import { navigate, safeReturnTo, useLocation } from '../router.ts';
import { useSession } from '../session.ts';

const SignIn = graphql(`
  mutation SignIn($name: String!, $password: String!) {
    signIn(name: $name, password: $password) {
      databaseId
    }
  }
`);

const SignUp = graphql(`
  mutation SignUp($name: String!, $password: String!, $timezone: String) {
    signUp(name: $name, password: $password, timezone: $timezone) {
      databaseId
    }
  }
`);

/**
 * Sign-in with name and password; the SSO button when the server has OpenID Connect; creating an
 * account when open sign-up is on. `?error=` carries the SSO callback's refusal; `?returnTo=` the
 * page to go back to (this app's paths only).
 */
export default function SignInPage() {
  const session = useSession();
  const location = useLocation();
  const returnTo = safeReturnTo(location.search.get('returnTo'));
  const ssoError = location.search.get('error');
  const [creating, setCreating] = useState(false);
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const auth = session.auth;

  useEffect(() => {
    if (session.viewer) navigate(returnTo, { replace: true });
  }, [session.viewer, returnTo]);

  const submit = useAction(async () => {
    if (creating) await request(SignUp, { name: name.trim(), password, timezone: Intl.DateTimeFormat().resolvedOptions().timeZone });
    else await request(SignIn, { name: name.trim(), password });
    await session.refresh();
  });

  return (
    <section class="narrow">
      <PageTitle>{creating ? 'Create an account' : 'Sign in'}</PageTitle>
      {ssoError && (
        <p role="alert" class="notice-error">
          Single sign-on failed: {ssoError}
        </p>
      )}
      {auth?.setupRequired && (
        <p class="warning">This server has no account yet. Open the setup link the server printed when it started to create the administrator.</p>
      )}
      <form
        class="card"
        onSubmit={(event) => {
          event.preventDefault();
          void submit.run();
        }}
      >
        <div class="field">
          <label for="name">Name</label>
          <input id="name" name="username" autocomplete="username" required value={name} onInput={(event) => setName(event.currentTarget.value)} />
        </div>
        <div class="field">
          <label for="password">Password</label>
          <input
            id="password"
            type="password"
            name="password"
            autocomplete={creating ? 'new-password' : 'current-password'}
            required
            minLength={creating ? 8 : undefined}
            value={password}
            onInput={(event) => setPassword(event.currentTarget.value)}
          />
          {creating && <span class="hint">8 to 200 characters.</span>}
        </div>
        <button class="primary" disabled={submit.busy}>
          {creating ? 'Create account' : 'Sign in'}
        </button>
        <Notice outcome={submit.outcome} />
        {auth?.sso && (
          <a class="button sso" href={`${auth.sso.startUrl}?returnTo=${encodeURIComponent(returnTo)}`}>
            Sign in with {auth.sso.label}
          </a>
        )}
      </form>
      {auth?.signUpOpen && (
        <p>
          <button type="button" class="link" onClick={() => setCreating(!creating)}>
            {creating ? 'I have an account: sign in' : 'No account yet? Create one'}
          </button>
        </p>
      )}
    </section>
  );
}
