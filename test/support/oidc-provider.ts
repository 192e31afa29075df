import { createHmac, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider, { type InteractionDetails } from 'oidc-provider';
import { afterAll } from 'vitest';

/**
 * A real OpenID provider (the `oidc-provider` package) on a random loopback port, for the single
 * sign-on tests: one confidential client with PKCE required, a few accounts, and a tiny login and
 * consent page of our own (`interactions.url`) that a test drives over HTTP like a browser would,
 * instead of the package's development pages whose HTML may change between versions.
 *
 * The issuer is plain http on 127.0.0.1, which Airdate accepts for loopback issuers only
 * (src/http/loopback-http.ts).
 */

/** A person the provider knows; `sub` is their stable id, the rest are profile and email claims. */
export interface ProviderAccount {
  sub: string;
  preferred_username?: string;
  email?: string;
}

/** An answer of the token endpoint: its status and body (JSON, or a string sent as text). */
export interface TokenAnswer {
  status: number;
  body: unknown;
}

export interface TestOidcProvider {
  /** `http://127.0.0.1:<port>`: what AIRDATE_OIDC_ISSUER is set to. */
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The key the provider signs ID tokens with (RS256), published in its JWKS under `keyId`. */
  signingKey: KeyObject;
  keyId: string;
  /**
   * While set, every answer of the token endpoint passes through `rewrite` before it is sent: a
   * provider gone wrong, or an attacker between it and Airdate. `undefined` restores the real answers.
   */
  rewriteTokenAnswers(rewrite: ((answer: TokenAnswer) => TokenAnswer) | undefined): void;
  /** Adds or replaces an account (by `sub`). */
  addAccount(account: ProviderAccount): void;
  /**
   * Plays the browser at the provider: opens `authorizationUrl` (Airdate's redirect), signs in as
   * `username` (the account's `sub`), grants consent — or refuses (`deny`) — and returns the URL
   * the provider finally redirects to (Airdate's callback with `code` and `state`, or `error`).
   */
  signIn(authorizationUrl: string, props: { username: string; deny?: boolean }): Promise<URL>;
  /** Stops the server; the provider is then down (for the "provider unreachable" tests). */
  close(): Promise<void>;
}

/** Starts a provider whose client redirects to `redirectUri`; stopped after the calling file's tests. */
export async function startOidcProvider(props: { redirectUri: string; accounts?: ProviderAccount[] }): Promise<TestOidcProvider> {
  const accounts = new Map((props.accounts ?? []).map((account) => [account.sub, account]));
  let handle: (request: IncomingMessage, response: ServerResponse) => void = (_, response) => response.writeHead(503).end();
  const server = createServer((request, response) => handle(request, response));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const clientId = 'airdate';
  const clientSecret = randomBytes(24).toString('base64url');
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const keyId = 'test-key';
  let rewriteToken: ((answer: TokenAnswer) => TokenAnswer) | undefined;

  const provider = new Provider(issuer, {
    clients: [{ client_id: clientId, client_secret: clientSecret, redirect_uris: [props.redirectUri], token_endpoint_auth_method: 'client_secret_basic' }],
    jwks: { keys: [{ ...privateKey.export({ format: 'jwk' }), kid: keyId, use: 'sig', alg: 'RS256' }] },
    // HS256 (a MAC under the client secret) is announced as well, as some providers do, so that the
    // tests can show Airdate refusing such ID tokens; the provider itself signs with RS256.
    enabledJWA: { idTokenSigningAlgValues: ['RS256', 'HS256'] },
    cookies: { keys: [randomBytes(32).toString('hex')] },
    claims: { openid: ['sub'], profile: ['preferred_username'], email: ['email'] },
    scopes: ['openid', 'profile', 'email'],
    pkce: { required: () => true },
    // Short lives for everything it issues: a test run is minutes long (and this silences the package's notices about defaults).
    ttl: { AccessToken: 600, IdToken: 600, Grant: 600, Interaction: 600, Session: 600, AuthorizationCode: 60 },
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_, interaction) => `/interaction/${interaction.uid}` },
    async findAccount(_, sub) {
      const account = accounts.get(sub);
      return account && { accountId: sub, claims: async () => ({ ...account }) };
    },
  });
  provider.use(async (context, next) => {
    await next();
    if (rewriteToken && context.method === 'POST' && context.path === '/token') {
      const answer = rewriteToken({ status: context.status, body: context.body });
      context.status = answer.status;
      context.body = answer.body;
    }
  });
  const providerHandler = provider.callback();
  handle = (request, response) => {
    const interaction = /^\/interaction\/([^/?]+)(?:\/(login|confirm|abort))?$/.exec(request.url ?? '');
    if (!interaction) return providerHandler(request, response);
    interact(provider, accounts, interaction[2], request, response).catch((error: Error) => {
      if (!response.headersSent) response.writeHead(500, { 'content-type': 'text/plain' }).end(error.message);
    });
  };

  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  afterAll(close);
  return {
    issuer,
    clientId,
    clientSecret,
    signingKey: privateKey,
    keyId,
    rewriteTokenAnswers: (rewrite) => void (rewriteToken = rewrite),
    addAccount: (account) => void accounts.set(account.sub, account),
    signIn: (authorizationUrl, signInProps) => playBrowser(issuer, authorizationUrl, signInProps),
    close,
  };
}

/** A compact JWS of `payload`: RS256 with an RSA private key, HS256 with a secret. */
export function signJwt(header: { kid?: string }, payload: Record<string, unknown>, key: KeyObject | string): string {
  const alg = typeof key === 'string' ? 'HS256' : 'RS256';
  const input = `${base64url({ alg, typ: 'JWT', ...header })}.${base64url(payload)}`;
  const signature = typeof key === 'string' ? createHmac('sha256', key).update(input).digest() : sign('sha256', Buffer.from(input), key);
  return `${input}.${signature.toString('base64url')}`;
}

/** The claims of a compact JWS, unchecked. */
export function jwtPayload(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as Record<string, unknown>;
}

function base64url(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

/** The login and consent page: GET shows which prompt is pending, POSTs answer it. */
async function interact(
  provider: Provider,
  accounts: Map<string, ProviderAccount>,
  action: string | undefined,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const details = await provider.interactionDetails(request, response);
  if (action === undefined) {
    response.writeHead(200, { 'content-type': 'text/html' });
    response.end(`<form method="post" data-prompt="${details.prompt.name}"><input name="username"></form>`);
    return;
  }
  const form = new URLSearchParams(await readBody(request));
  if (action === 'abort') {
    await provider.interactionFinished(request, response, { error: 'access_denied', error_description: 'End-User aborted interaction' }, { mergeWithLastSubmission: false });
  } else if (action === 'login') {
    const username = form.get('username') ?? '';
    if (!accounts.has(username)) {
      response.writeHead(400, { 'content-type': 'text/plain' }).end(`unknown user ${username}`);
      return;
    }
    await provider.interactionFinished(request, response, { login: { accountId: username } }, { mergeWithLastSubmission: false });
  } else {
    await provider.interactionFinished(request, response, { consent: { grantId: await grantConsent(provider, details) } }, { mergeWithLastSubmission: true });
  }
}

/** Grants what the consent prompt says is missing (the scopes and claims the client asked for). */
async function grantConsent(provider: Provider, details: InteractionDetails): Promise<string> {
  const accountId = details.session?.accountId;
  if (accountId === undefined) throw new Error('consent before login');
  const grant = (details.grantId && (await provider.Grant.find(details.grantId))) || new provider.Grant({ accountId, clientId: details.params.client_id });
  const missing = details.prompt.details;
  if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
  if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims);
  return grant.save();
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

/**
 * Follows the provider's redirects with a cookie jar (a fresh browser each time), answering the
 * login and consent prompts, until a redirect leaves the provider.
 */
async function playBrowser(issuer: string, authorizationUrl: string, props: { username: string; deny?: boolean }): Promise<URL> {
  const jar = new CookieJar();
  let next: { url: URL; method: 'GET' | 'POST'; body?: string } = { url: new URL(authorizationUrl), method: 'GET' };
  for (let step = 0; step < 20; step++) {
    if (next.url.origin !== issuer) return next.url;
    const response = await fetch(next.url, {
      method: next.method,
      redirect: 'manual',
      headers: { cookie: jar.header(next.url), ...(next.body === undefined ? {} : { 'content-type': 'application/x-www-form-urlencoded' }) },
      body: next.body,
    });
    jar.store(response.headers.getSetCookie());
    const location = response.headers.get('location');
    if (response.status >= 300 && response.status < 400 && location !== null) {
      next = { url: new URL(location, next.url), method: 'GET' };
      continue;
    }
    const page = await response.text();
    const prompt = /data-prompt="(\w+)"/.exec(page)?.[1];
    if (response.status !== 200 || prompt === undefined) throw new Error(`the provider answered ${response.status}: ${page.slice(0, 300)}`);
    const action = props.deny ? 'abort' : prompt === 'login' ? 'login' : 'confirm';
    next = { url: new URL(`${next.url.pathname}/${action}`, next.url), method: 'POST', body: new URLSearchParams({ username: props.username }).toString() };
  }
  throw new Error('the provider kept redirecting (more than 20 steps)');
}

/** Just enough of a browser's cookie store for one origin: names, paths, removal by Max-Age/Expires. */
class CookieJar {
  private readonly cookies = new Map<string, { name: string; value: string; path: string }>();

  store(setCookies: string[]): void {
    for (const line of setCookies) {
      const [pair = '', ...attributes] = line.split(';').map((part) => part.trim());
      const separator = pair.indexOf('=');
      const name = pair.slice(0, separator);
      const value = pair.slice(separator + 1);
      const attribute = (key: string) => attributes.find((part) => part.toLowerCase().startsWith(`${key}=`))?.slice(key.length + 1);
      const path = attribute('path') ?? '/';
      const expires = attribute('expires');
      const removed = attribute('max-age') === '0' || (expires !== undefined && Date.parse(expires) <= Date.now()) || value === '';
      const key = `${name};${path}`;
      if (removed) this.cookies.delete(key);
      else this.cookies.set(key, { name, value, path });
    }
  }

  header(url: URL): string {
    return [...this.cookies.values()]
      .filter((cookie) => url.pathname === cookie.path || url.pathname.startsWith(cookie.path.endsWith('/') ? cookie.path : `${cookie.path}/`))
      .map((cookie) => `${cookie.name}=${cookie.value}`)
      .join('; ');
  }
}
