import { request } from './client.ts';
import { graphql } from './graphql.ts';
import { navigate } from './router.ts';
import { useSession } from './session.ts';
import { useAction } from './components.tsx';

const SignOut = graphql(`
  mutation SignOut {
    signOut
  }
`);

/** Ends this browser's session (the server clears the cookie) and shows the sign-in page. */
export function SignOutButton() {
  const session = useSession();
  const signOut = useAction(async () => {
    await request(SignOut);
    await session.refresh();
    navigate('/sign-in', { replace: true });
  });
  return (
    <>
      <button type="button" disabled={signOut.busy} onClick={() => void signOut.run()}>
        Sign out
      </button>
      {signOut.outcome && <span role="alert">{signOut.outcome.text}</span>}
    </>
  );
}
