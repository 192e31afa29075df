import type { App } from '../../src/app.ts';
import { settleUnawaitedWrites } from '../../src/db/client.ts';

export interface CallOptions {
  token?: string;
  /** Sent as `?token=` instead of the header. */
  queryToken?: string;
  body?: unknown;
  /** Raw body text; wins over `body`. */
  rawBody?: string;
  headers?: Record<string, string>;
}

/** Sends a request to the app in-process and returns status, headers and parsed JSON. */
export async function call(app: App, method: string, path: string, options: CallOptions = {}) {
  const url = new URL(path, 'http://airdate.test');
  if (options.queryToken !== undefined) url.searchParams.set('token', options.queryToken);
  const headers: Record<string, string> = { ...options.headers };
  if (options.token !== undefined) headers.authorization ??= `Bearer ${options.token}`;
  let body: string | undefined = options.rawBody;
  if (body === undefined && options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const response = await app.fetch(new Request(url, { method, headers, body }));
  const text = await response.text();
  // The token's lastUsedAt write runs after the response. Waiting for it keeps a call's database
  // work inside the call, so tests that count queries stay exact on PostgreSQL too, where the
  // write is still in flight when the response arrives more often than on SQLite.
  await settleUnawaitedWrites();
  let json: any;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}

/** Runs a GraphQL operation over HTTP with the bearer token. */
export async function graphql(app: App, token: string, query: string, variables?: Record<string, unknown>) {
  return call(app, 'POST', '/graphql', { token, body: { query, variables } });
}
