import { Kind, parse, type DocumentNode, type SelectionSetNode } from 'graphql';
import type { Config } from '../config.ts';
import { publicOrigin } from '../http/public-origin.ts';
import { HttpError } from '../http/responses.ts';

/**
 * Who may run what on /graphql without an account, and the CSRF rule for requests a browser
 * authenticates by itself (the session cookie).
 */

/** Root fields a request with neither token nor session may run (docs/accounts.md). */
export const publicRootFields: ReadonlySet<string> = new Set(['authInfo', 'signIn', 'signUp', 'completeSetup', 'setupLinkInfo', 'signOut', '__typename']);

/** The refusal of an anonymous request for anything else: no hint of what the schema holds. */
export const anonymousRefusal = () => new HttpError(401, 'missing API token or session; send "Authorization: Bearer <API token>" or sign in');

/** What an anonymous document asks for: whether it may run, and whether it writes. */
export interface DocumentAccess {
  /** Every operation's root fields (through fragments) are public ones. */
  isPublic: boolean;
  /** It holds a mutation (a write the CSRF rule applies to). */
  hasMutation: boolean;
}

/**
 * Reads the operation text of an anonymous GraphQL request (the query parameter of a GET, the
 * `query` member of a JSON POST body already read under its limit) and tells what it asks for.
 * Anything unreadable, an upload, or a document past `maxTokens` is not public: it is refused
 * before validation, so an anonymous caller learns nothing of the schema (no field suggestions).
 * `parsedBody`: the JSON body the edge already parsed (graphql-body.ts), read instead of the request.
 */
export async function anonymousDocumentAccess(request: Request, limits: Config['limits']['graphql'], parsedBody?: Record<string, unknown>): Promise<DocumentAccess> {
  const text = parsedBody !== undefined ? (typeof parsedBody.query === 'string' ? parsedBody.query : undefined) : await documentText(request);
  if (text === undefined) return { isPublic: false, hasMutation: false };
  let document: DocumentNode;
  try {
    document = parse(text, { maxTokens: limits.maxTokens, noLocation: true });
  } catch {
    return { isPublic: false, hasMutation: false };
  }
  return documentAccess(document);
}

async function documentText(request: Request): Promise<string | undefined> {
  if (request.method === 'GET' || request.method === 'HEAD') return new URL(request.url).searchParams.get('query') ?? undefined;
  const type = (request.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (request.method !== 'POST' || type === 'multipart/form-data') return undefined;
  try {
    const body: unknown = await request.clone().json();
    const query = (body as { query?: unknown } | null)?.query;
    return typeof query === 'string' ? query : undefined;
  } catch {
    return undefined;
  }
}

/** The access a parsed document needs; exported for the tests of hostile documents. */
export function documentAccess(document: DocumentNode): DocumentAccess {
  const fragments = new Map(document.definitions.flatMap((definition) => (definition.kind === Kind.FRAGMENT_DEFINITION ? [[definition.name.value, definition] as const] : [])));
  let hasMutation = false;
  let isPublic = true;
  /** Walks a root selection set; `seen` stops fragment cycles (validation would refuse them later). */
  const visit = (selectionSet: SelectionSetNode, seen: Set<string>): void => {
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.FIELD) {
        if (!publicRootFields.has(selection.name.value)) isPublic = false;
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        visit(selection.selectionSet, seen);
      } else {
        const fragment = fragments.get(selection.name.value);
        if (!fragment || seen.has(fragment.name.value)) {
          isPublic = false;
          continue;
        }
        visit(fragment.selectionSet, new Set([...seen, fragment.name.value]));
      }
    }
  };
  let operations = 0;
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) continue;
    if (definition.kind !== Kind.OPERATION_DEFINITION || definition.operation === 'subscription') {
      isPublic = false;
      continue;
    }
    operations++;
    if (definition.operation === 'mutation') hasMutation = true;
    visit(definition.selectionSet, new Set());
  }
  return { isPublic: isPublic && operations > 0, hasMutation };
}

/**
 * The cross-site rule, for a request the browser authenticates by itself (the cookie) and for a
 * public mutation (signing in, which sets the cookie). Any page of the same site (another port of
 * the host, a sibling subdomain) gets the SameSite=Lax cookie sent along, so the site is no
 * boundary: the origin is.
 * - A write must come from a page of our own origin. Browsers send `Origin` on every cross-origin
 *   POST and on same-origin ones; without it, `Sec-Fetch-Site: same-origin` proves the same. A
 *   form of another page, or its `fetch`, carries its own Origin and is refused.
 * - A read is refused when the browser says it comes from another page: an `Origin` that is not
 *   ours (a cross-origin `fetch`), or `Sec-Fetch-Site: same-site`/`cross-site` on anything but a
 *   navigation (a link followed to an export is fine: its answer goes to the person, not to the
 *   page). Such a page could not read the answer anyway (no CORS headers are ever sent), but
 *   the query would still run for it (and reading `apiToken` creates one).
 * Refused with 403 before anything runs.
 */
export function refuseCrossSite(request: Request, web: Config['web']): void {
  const origin = request.headers.get('origin');
  const site = request.headers.get('sec-fetch-site');
  if (request.method === 'GET' || request.method === 'HEAD') {
    const otherPage = site === 'same-site' || site === 'cross-site' ? request.headers.get('sec-fetch-mode') !== 'navigate' : false;
    if ((origin !== null && origin !== publicOrigin(request, web)) || otherPage) throw new HttpError(403, 'cross-site request refused');
    return;
  }
  const sameOrigin = origin !== null ? origin === publicOrigin(request, web) : site === 'same-origin';
  if (!sameOrigin) throw new HttpError(403, 'cross-site request refused');
}

/**
 * The stricter rule for a long-lived stream opened with the session cookie (a subscription over
 * server-sent events, a GET): like a write, it must prove it comes from a page of our own origin
 * (`Origin` ours, or, without one, `Sec-Fetch-Site: same-origin`, which a same-origin EventSource
 * sends). A request that says neither (not a browser's page) does not pass either.
 */
export function comesFromOwnPage(request: Request, web: Config['web']): boolean {
  const origin = request.headers.get('origin');
  return origin !== null ? origin === publicOrigin(request, web) : request.headers.get('sec-fetch-site') === 'same-origin';
}
