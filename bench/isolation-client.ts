/**
 * How bench:isolation (bench/isolation.ts) talks to the server under test, as its people do: over
 * HTTP, with an API token or with the session cookie of a real sign-in (sent with the page's
 * `Origin`, as the web app's requests are, so the cross-site rule lets them through).
 */

/** A credential: the API token, or the session cookie (`airdate_session=…`). */
export type Credential = { token: string } | { cookie: string };

/** One answer: its status, the time to its last byte, and its body (parsed when JSON). */
export interface Answer {
  status: number;
  ms: number;
  json: any;
  text: string;
}

/** The headers a request carries for `credential` on the server at `origin`. */
export function credentialHeaders(origin: string, credential: Credential): Record<string, string> {
  return 'token' in credential ? { authorization: `Bearer ${credential.token}` } : { cookie: credential.cookie, origin };
}

/** Sends a request and reads its whole answer; a refused connection is status 0 with the error's text. */
export async function send(url: string, init: RequestInit): Promise<Answer> {
  const started = performance.now();
  try {
    const response = await fetch(url, init);
    const text = await response.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: response.status, ms: performance.now() - started, json, text };
  } catch (error) {
    return { status: 0, ms: performance.now() - started, json: undefined, text: String((error as Error).cause ?? error) };
  }
}

/** Runs a GraphQL operation on POST /graphql. */
export function graphql(origin: string, credential: Credential, query: string, variables: Record<string, unknown> = {}): Promise<Answer> {
  return send(`${origin}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...credentialHeaders(origin, credential) },
    body: JSON.stringify({ query, variables }),
  });
}

/**
 * What a GraphQL answer came to, in a few words: its HTTP status and either its first error's
 * code (INTERNAL_SERVER_ERROR, RATE_LIMITED, …) or the `__typename` of `field`'s result.
 */
export function outcomeOf(answer: Answer, field?: string): string {
  if (answer.status === 0) return `no answer (${answer.text.slice(0, 60)})`;
  const error = answer.json?.errors?.[0];
  if (error) return `${answer.status} ${error.extensions?.code ?? error.message?.slice(0, 60)}`;
  const result = field ? answer.json?.data?.[field] : undefined;
  if (result?.__typename) return `${answer.status} ${result.__typename}`;
  if (answer.status !== 200 && typeof answer.json?.error === 'string') return `${answer.status} ${answer.json.error.slice(0, 80)}`;
  return String(answer.status);
}

/** Whether an answer is a success: 200 without GraphQL errors. */
export const succeeded = (answer: Answer): boolean => answer.status === 200 && !answer.json?.errors;

/** Signs in through the signIn mutation, as the sign-in page does; the session cookie it set. */
export async function signIn(origin: string, name: string, password: string): Promise<string> {
  const response = await fetch(`${origin}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin },
    body: JSON.stringify({ query: 'mutation($n: String!, $p: String!) { signIn(name: $n, password: $p) { name } }', variables: { n: name, p: password } }),
  });
  const text = await response.text();
  const cookie = response.headers.getSetCookie().map((line) => line.split(';')[0]!).find((pair) => /^(__Host-)?airdate_session=./.test(pair));
  if (response.status !== 200 || !cookie) throw new Error(`sign-in of ${name} failed: ${response.status} ${text.slice(0, 300)}`);
  return cookie;
}

/** Signs the session of `cookie` out (the signOut mutation). */
export async function signOut(origin: string, cookie: string): Promise<Answer> {
  return graphql(origin, { cookie }, 'mutation { signOut }');
}

/** Counts outcomes: "20 × 200 MutationMarkWatchedSuccess, 4 × 200 INTERNAL_SERVER_ERROR". */
export function tally(outcomes: string[]): string {
  const counts = new Map<string, number>();
  for (const outcome of outcomes) counts.set(outcome, (counts.get(outcome) ?? 0) + 1);
  return [...counts].map(([outcome, count]) => `${count} × ${outcome}`).join(', ');
}
