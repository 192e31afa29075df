import { useState } from 'preact/hooks';
import { request } from '../client.ts';
import { formatTime, Notice, useAction, useLoad } from '../components.tsx';
import { graphql } from '../graphql.ts';
import { navigate } from '../router.ts';
import { describeUserAgent } from '../text.ts';
import { useSession } from '../session.ts';

const SessionsQuery = graphql(`
  query Sessions {
    viewer {
      hasPassword
      sessions {
        databaseId
        method
        userAgent
        address
        createdAt
        lastSeenAt
        current
      }
    }
  }
`);

const ChangePassword = graphql(`
  mutation ChangePassword($currentPassword: String, $newPassword: String!) {
    changePassword(currentPassword: $currentPassword, newPassword: $newPassword)
  }
`);

const SignOutSession = graphql(`
  mutation SignOutSession($id: Int!) {
    signOutSession(id: $id)
  }
`);

const SignOutEverywhere = graphql(`
  mutation SignOutEverywhere {
    signOutEverywhere
  }
`);

const loadSecurity = async () => (await request(SessionsQuery)).viewer;

/** Password and the account's signed-in browsers, each of which can be signed out. */
export function AccountSecurity() {
  const session = useSession();
  const { data, error, reload } = useLoad(loadSecurity);
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [repeat, setRepeat] = useState('');
  const change = useAction(async () => {
    if (next !== repeat) throw new Error('The two new passwords differ.');
    await request(ChangePassword, { currentPassword: data?.hasPassword ? current : null, newPassword: next });
    setCurrent('');
    setNext('');
    setRepeat('');
    reload();
    return 'Password changed. Every other browser was signed out.';
  });
  const end = useAction(async (id: number) => {
    await request(SignOutSession, { id });
    reload();
    return 'That browser was signed out.';
  });
  const everywhere = useAction(async () => {
    await request(SignOutEverywhere);
    await session.refresh();
    navigate('/sign-in', { replace: true });
  });

  return (
    <>
      <section class="card" aria-labelledby="password-heading">
        <h2 id="password-heading">Password</h2>
        {data && !data.hasPassword && <p class="hint">This account has no password yet (it signs in with single sign-on); you may set one.</p>}
        <form
          onSubmit={(event) => {
            event.preventDefault();
            void change.run();
          }}
        >
          {data?.hasPassword && (
            <div class="field">
              <label for="current-password">Current password</label>
              <input id="current-password" type="password" autocomplete="current-password" required value={current} onInput={(event) => (setCurrent(event.currentTarget.value), change.setOutcome(null))} />
            </div>
          )}
          <div class="field">
            <label for="new-password">New password</label>
            <input id="new-password" type="password" autocomplete="new-password" required minLength={8} value={next} onInput={(event) => (setNext(event.currentTarget.value), change.setOutcome(null))} />
            <span class="hint">8 to 200 characters.</span>
          </div>
          <div class="field">
            <label for="repeat-password">New password again</label>
            <input id="repeat-password" type="password" autocomplete="new-password" required value={repeat} onInput={(event) => (setRepeat(event.currentTarget.value), change.setOutcome(null))} />
          </div>
          <button class="primary" disabled={change.busy}>
            Change password
          </button>
        </form>
        <Notice outcome={change.outcome} />
      </section>

      <section class="card" aria-labelledby="sessions-heading">
        <h2 id="sessions-heading">Signed-in browsers</h2>
        {error && <p role="alert">{error}</p>}
        {data && (
          <ul class="sessions">
            {data.sessions.map((item) => (
              <li key={item.databaseId}>
                <strong>
                  {describeUserAgent(item.userAgent)}
                  {item.current ? ' (this browser)' : ''}
                </strong>
                <span class="hint">
                  {' '}
                  — signed in by {item.method} on {formatTime(item.createdAt)} from {item.address ?? 'an unknown address'}, last seen {formatTime(item.lastSeenAt)}
                </span>{' '}
                {!item.current && (
                  <button type="button" disabled={end.busy} onClick={() => void end.run(item.databaseId)}>
                    Sign out<span class="visually-hidden"> the session from {formatTime(item.createdAt)}</span>
                  </button>
                )}
              </li>
            ))}
          </ul>
        )}
        <Notice outcome={end.outcome} />
        <button type="button" class="danger" disabled={everywhere.busy} onClick={() => void everywhere.run()}>
          Sign out everywhere
        </button>
        <Notice outcome={everywhere.outcome} />
      </section>
    </>
  );
}

