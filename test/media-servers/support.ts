import type { App } from '../../src/app.ts';
import { db } from '../../src/db/client.ts';
import { settleUnawaitedWrites } from '../../src/db/client.ts';
import { makeAccount } from '../support/factories.ts';
import { graphql } from '../support/http.ts';

export type Source = 'jellyfin' | 'plex' | 'emby' | 'generic';

/** A fresh account connected to `source` through GraphQL, with its options set when given. */
export async function connectedAccount(app: App, source: Source, options: { users?: string[]; manualMarks?: boolean } = {}) {
  const account = await makeAccount();
  const enumValue = source.toUpperCase();
  const connected = await graphql(app, account.token, `mutation($s: MediaServerSource!) { connectMediaServer(source: $s) { __typename ... on MutationConnectMediaServerSuccess { data { path } } } }`, { s: enumValue });
  let path = connected.json.data.connectMediaServer.data.path as string;
  if (options.users !== undefined || options.manualMarks !== undefined) {
    const set = await graphql(
      app,
      account.token,
      `mutation($input: MediaServerOptionsInput!) { setMediaServerOptions(input: $input) { __typename ... on MutationSetMediaServerOptionsSuccess { data { path users manualMarks } } } }`,
      { input: { source: enumValue, ...options } },
    );
    path = set.json.data.setMediaServerOptions.data.path as string;
  }
  return { ...account, path };
}

export interface Delivery {
  json?: unknown;
  /** Raw text, sent with `type` (text/plain when not given). */
  text?: string;
  type?: string;
  form?: FormData;
}

/** POSTs a delivery to `path` (with its ?token=) in-process; status and parsed JSON. */
export async function deliver(app: App, path: string, delivery: Delivery) {
  const headers: Record<string, string> = {};
  let body: BodyInit | undefined;
  if (delivery.form) {
    // Encoded whole first, as a server receives it: a FormData body streams its parts in chunks,
    // and when the server stops reading early (a 413) undici's in-process stream throws on its
    // next chunk, an unhandled rejection that has nothing to do with the server.
    const encoded = new Response(delivery.form);
    headers['content-type'] = encoded.headers.get('content-type')!;
    body = new Uint8Array(await encoded.arrayBuffer());
  }
  else if (delivery.text !== undefined) {
    body = delivery.text;
    headers['content-type'] = delivery.type ?? 'text/plain; charset=utf-8';
  } else if (delivery.json !== undefined) {
    body = JSON.stringify(delivery.json);
    headers['content-type'] = delivery.type ?? 'application/json';
  }
  const response = await app.fetch(new Request(new URL(path, 'http://airdate.test'), { method: 'POST', headers, body }));
  const text = await response.text();
  await settleUnawaitedWrites();
  return { status: response.status, json: text === '' ? undefined : (JSON.parse(text) as any), headers: response.headers };
}

/** The account's watched items as `kind:id`, sorted. */
export async function watched(accountId: number): Promise<string[]> {
  const states = await db().watchState.findMany({ where: { accountId, watched: true } });
  return states.map((state) => `${state.kind}:${state.episodeId ?? state.movieId ?? state.gameId}`).sort();
}

export const deliveriesOf = (accountId: number) => db().mediaServerDelivery.findMany({ where: { accountId }, orderBy: { id: 'asc' } });
