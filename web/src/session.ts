import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import { request } from './client.ts';
import { graphql, type ResultOf } from './graphql.ts';

/** Public: whether this browser is signed in and how one may sign in here. */
export const AuthInfoQuery = graphql(`
  query AuthInfo {
    authInfo {
      signedIn
      setupRequired
      signUpOpen
      sso {
        label
        startUrl
      }
    }
  }
`);

/** Who is signed in, as the navigation and the route guard need it (asked only when signed in). */
const ViewerQuery = graphql(`
  query Viewer {
    viewer {
      databaseId
      name
      role
    }
  }
`);

export type AuthInfo = ResultOf<typeof AuthInfoQuery>['authInfo'];
export type Viewer = ResultOf<typeof ViewerQuery>['viewer'];

export interface Session {
  /** null when nobody is signed in. */
  viewer: Viewer | null;
  auth: AuthInfo | null;
  /** Asks the server again (after signing in or out, or a change of role). */
  refresh(): Promise<void>;
}

/** The public sign-in facts and, when signed in, the account. */
export async function loadSession(): Promise<{ auth: AuthInfo; viewer: Viewer | null }> {
  const { authInfo } = await request(AuthInfoQuery);
  if (!authInfo.signedIn) return { auth: authInfo, viewer: null };
  try {
    return { auth: authInfo, viewer: (await request(ViewerQuery)).viewer };
  } catch (error) {
    // The session ended between the two questions.
    if ((error as { status?: number }).status === 401) return { auth: { ...authInfo, signedIn: false }, viewer: null };
    throw error;
  }
}

export const SessionContext = createContext<Session>({ viewer: null, auth: null, refresh: async () => {} });

export const useSession = (): Session => useContext(SessionContext);
