import { randomUUID } from 'node:crypto';
import type { App } from '../../src/app.ts';
import { settleUnawaitedWrites } from '../../src/db/client.ts';
import { createAccount, type AccountRole } from '../../src/accounts/accounts.ts';

/** The origin tests' requests go to (test/support/http.ts uses the same). */
export const testOrigin = 'http://airdate.test';

let addressSerial = 0;

/**
 * A browser on the web app: keeps the cookies it is given (the session's, the device cookie), sends
 * our Origin on writes as a browser does on a page of ours, and comes from its own client address
 * (so the sign-in limit per address of one test does not reach another's).
 */
export class Browser {
  /** Its cookies by name, each as `name=value`. */
  readonly jar = new Map<string, string>();
  readonly address = `198.51.100.${++addressSerial % 250}`;
  constructor(
    readonly app: App,
    readonly origin: string | null = testOrigin,
  ) {}

  /** The Cookie header it sends, or undefined when it holds none. */
  get cookie(): string | undefined {
    return this.jar.size === 0 ? undefined : [...this.jar.values()].join('; ');
  }

  /** Replaces its cookies with those of a Cookie header (another browser's). */
  set cookie(header: string | undefined) {
    this.jar.clear();
    for (const pair of header?.split('; ') ?? []) this.jar.set(pair.split('=')[0]!, pair);
  }

  /** Sends a request with the cookie; takes the response's Set-Cookie into the jar. */
  async fetch(method: string, path: string, init: { body?: string; headers?: Record<string, string> } = {}) {
    const headers: Record<string, string> = { ...init.headers };
    if (this.cookie) headers.cookie = this.cookie;
    if (this.origin !== null && method !== 'GET') headers.origin ??= this.origin;
    const response = await this.app.fetch(new Request(new URL(path, testOrigin), { method, headers, body: init.body }), { clientAddress: this.address });
    for (const line of response.headers.getSetCookie()) {
      const pair = line.split(';')[0]!;
      const [name, value] = pair.split('=');
      if (value === '') this.jar.delete(name!);
      else this.jar.set(name!, pair);
    }
    const text = await response.text();
    await settleUnawaitedWrites();
    let json: any;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: response.status, headers: response.headers, text, json };
  }

  /** A GraphQL operation as the web app sends it (JSON POST). */
  graphql(query: string, variables?: Record<string, unknown>, headers: Record<string, string> = {}) {
    return this.fetch('POST', '/graphql', { body: JSON.stringify({ query, variables }), headers: { 'content-type': 'application/json', ...headers } });
  }

  /** Signs in; throws unless it worked. */
  async signIn(name: string, password: string) {
    const answer = await this.graphql('mutation($n: String!, $p: String!) { signIn(name: $n, password: $p) { name } }', { n: name, p: password });
    if (answer.json?.data?.signIn?.name !== name) throw new Error(`sign-in failed: ${answer.text}`);
    return this;
  }
}

/** A fresh account with a password (and role), as a person would have it. */
export async function makePerson(props: { role?: AccountRole; password?: string } = {}) {
  const password = props.password ?? `pw-${randomUUID()}`;
  const account = await createAccount({ name: `person-${randomUUID().slice(0, 8)}`, password, role: props.role ?? 'user' });
  return { id: account.id, name: account.name, password };
}

/** A signed-in browser of a fresh account. */
export async function signedInPerson(app: App, props: { role?: AccountRole } = {}) {
  const person = await makePerson(props);
  const browser = await new Browser(app).signIn(person.name, person.password);
  return { ...person, browser };
}
