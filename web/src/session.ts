import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import { request } from './client.ts';
import { graphql, type ResultOf } from './graphql.ts';

/** Who is signed in, as the navigation and the route guard need it. */
export const SessionQuery = graphql(`
  query Session {
    viewer {
      databaseId
      name
    }
  }
`);

export type Viewer = ResultOf<typeof SessionQuery>['viewer'];

export interface Session {
  /** null when nobody is signed in. */
  viewer: Viewer | null;
  /** Asks the server again (after signing in or out, or a change of name or role). */
  refresh(): Promise<void>;
}

/** The signed-in account, or null when the request has no valid session. */
export async function loadViewer(): Promise<Viewer | null> {
  try {
    return (await request(SessionQuery)).viewer;
  } catch (error) {
    if ((error as { status?: number }).status === 401) return null;
    throw error;
  }
}

export const SessionContext = createContext<Session>({ viewer: null, refresh: async () => {} });

export const useSession = (): Session => useContext(SessionContext);
