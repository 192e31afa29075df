import { Response } from '@whatwg-node/fetch';
import type { Config } from '../../config.ts';
import type { Logger } from '../../log.ts';
import { oidcLengths, oidcTimes } from '../../limits.ts';
import { createOidcClient, OidcError, type OidcClient } from './oidc.ts';
import { accountForIdentity, linkIdentity } from './oidc-accounts.ts';
import { clearStateCookie, readStateCookie, safeReturnTo, stateCookie } from './oidc-state.ts';
import { sessionFromRequest, startSession } from '../sessions.ts';
import { HttpError } from '../../http/responses.ts';
import { publicOrigin } from '../../http/public-origin.ts';

/** Where the provider sends people back to; register `<public origin>` + this at the provider. */
export const oidcCallbackPath = '/auth/oidc/callback';
/** Where the sign-in page's SSO button points (authInfo.sso.startUrl). */
export const oidcStartPath = '/auth/oidc/start';

/**
 * The two browser routes of single sign-on (docs/accounts.md):
 * `GET /auth/oidc/start?returnTo=/path[&link=1]` sends the browser to the provider, and
 * `GET /auth/oidc/callback` signs in (or links) and sends it on to `returnTo`. Both are page
 * navigations, so every failure — provider down, refused, expired or forged state, unknown person —
 * is a redirect to `/sign-in?error=<message>` that the web app shows, never a JSON error page.
 */
export function createOidcRoutes(props: { web: Config['web']; logger: Logger }) {
  const { web, logger } = props;
  const client: OidcClient | undefined = web.oidc && createOidcClient(web.oidc, logger);

  async function start(request: Request, url: URL): Promise<Response> {
    if (!client) return toSignIn(request, 'single sign-on is not configured on this server');
    const returnTo = safeReturnTo(url.searchParams.get('returnTo'));
    let linkAccountId: number | undefined;
    if (url.searchParams.get('link') === '1') {
      const session = await sessionFromRequest(request);
      if (!session) return toSignIn(request, 'sign in to Airdate first, then link single sign-on in your account settings');
      linkAccountId = session.account.id;
    }
    try {
      const { url: providerUrl, pending } = await client.begin(publicOrigin(request, web) + oidcCallbackPath);
      const headers = redirectHeaders(providerUrl.href);
      headers.append('set-cookie', stateCookie(request, web, { ...pending, returnTo, linkAccountId, expiresAt: Date.now() + oidcTimes.stateMs }));
      return new Response(null, { status: 302, headers });
    } catch (error) {
      if (error instanceof OidcError) return toSignIn(request, error.message);
      throw error;
    }
  }

  async function callback(request: Request, url: URL, clientAddress: string | undefined): Promise<Response> {
    if (!client) return toSignIn(request, 'single sign-on is not configured on this server');
    const state = readStateCookie(request, web);
    if (!state) return toSignIn(request, 'this sign-in expired or was started in another browser; start again');
    if (url.searchParams.get('state') !== state.state) {
      // Kept: a forged callback link must not cancel the sign-in this browser really started.
      logger.info('single sign-on: a callback arrived with a state this browser did not start');
      return toSignIn(request, 'the answer from the identity provider does not belong to the sign-in this browser started; start again', false);
    }
    try {
      const identity = await client.finish(new URL(publicOrigin(request, web) + oidcCallbackPath + url.search), state);
      const headers = redirectHeaders(state.returnTo);
      headers.append('set-cookie', clearStateCookie(request, web));
      if (state.linkAccountId !== undefined) {
        const session = await sessionFromRequest(request);
        if (session?.account.id !== state.linkAccountId) throw new OidcError('you were signed out while linking; sign in again and link once more');
        await linkIdentity(state.linkAccountId, identity);
        logger.info(`single sign-on: account ${state.linkAccountId} linked to ${identity.subject}`);
        return new Response(null, { status: 302, headers });
      }
      const account = await accountForIdentity(identity, web.oidc!.createUsers);
      if (account.created) logger.info(`single sign-on: created account ${account.id} for ${identity.subject}`);
      headers.append('set-cookie', await startSession({ accountId: account.id, method: 'oidc', request, clientAddress }));
      return new Response(null, { status: 302, headers });
    } catch (error) {
      if (!(error instanceof OidcError)) throw error;
      logger.info(`single sign-on refused: ${error.message}`);
      return toSignIn(request, error.message);
    }
  }

  /** Redirect to the sign-in page with the message; ends the sign-in's state unless `clearState` is false. */
  function toSignIn(request: Request, message: string, clearState = true): Response {
    // A provider's error text can hold a lone surrogate (valid in JSON), which encodeURIComponent refuses.
    const shown = [...message.replace(/\p{Cs}/gu, '\uFFFD')].slice(0, oidcLengths.errorChars).join('');
    const headers = redirectHeaders(`/sign-in?error=${encodeURIComponent(shown)}`);
    if (clearState) headers.append('set-cookie', clearStateCookie(request, web));
    return new Response(null, { status: 302, headers });
  }

  return {
    /** Starts fetching the provider's discovery document, so the first click does not wait for it. */
    warmUp(): void {
      client?.warmUp();
    },
    /** Answers `path` when it is one of the two routes; undefined otherwise. */
    handle(request: Request, url: URL, path: string, clientAddress: string | undefined): Promise<Response> | undefined {
      if (path !== oidcStartPath && path !== oidcCallbackPath) return undefined;
      if (request.method !== 'GET') throw new HttpError(405, `method ${request.method} is not allowed here; use GET`, { allow: 'GET' });
      return path === oidcStartPath ? start(request, url) : callback(request, url, clientAddress);
    },
  };
}

/**
 * A redirect nobody caches, whose target gets no Referer: the callback's URL holds the
 * authorization code, which must not travel on to the page signed in to.
 */
function redirectHeaders(location: string): Headers {
  return new Headers({ location, 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' });
}
