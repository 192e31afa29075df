import * as client from 'openid-client';
import type { Config } from '../../config.ts';
import type { Logger } from '../../log.ts';
import { oidcLengths, oidcTimes } from '../../limits.ts';
import { isLoopbackHttp } from '../../http/loopback-http.ts';

/** OpenID Connect settings (config.web.oidc), present when AIRDATE_OIDC_ISSUER is set. */
export type OidcSettings = NonNullable<Config['web']['oidc']>;

/** What Airdate asks the provider for: the identity (`sub`) and a name to make an account from. */
export const oidcScopes = 'openid profile email';

/** The sign-in cannot go on; `message` is shown on the sign-in page as it is. */
export class OidcError extends Error {
  override name = 'OidcError';
}

/** What Airdate keeps between sending the browser to the provider and its return. */
export interface PendingSignIn {
  codeVerifier: string;
  state: string;
  nonce: string;
}

/** The identity the provider vouched for, with the claims an account name is made from. */
export interface VerifiedIdentity {
  /** `<issuer> <sub>`: what Account.oidcSubject holds (a `sub` is unique per issuer only). */
  subject: string;
  preferredUsername: string | undefined;
  email: string | undefined;
}

/**
 * The relying party for one provider (openid-client v6): authorization code flow with PKCE (S256),
 * state and nonce, and the ID token's signature checked against the provider's published keys
 * (openid-client's enableNonRepudiationChecks: its `jwks_uri`, cached, re-read when older than five
 * minutes or when a token names a key the cached set lacks and it is over a minute old). The
 * library's default for the code flow trusts the token endpoint's TLS instead; with the signature
 * checked as well, a token made or altered by whatever answers at the token endpoint's address signs
 * nobody in unless the provider's published keys are replaced too (docs/oidc.md). Only asymmetric
 * signatures are accepted (RS, PS, ES, EdDSA): an ID token signed with the client secret (HS256) is
 * refused. The discovery document is fetched once and kept; while the provider cannot be
 * reached the server runs on, and each sign-in attempt (at most one per
 * oidcTimes.discoveryRetryMs) tries again, failing with a message the sign-in page shows.
 */
export function createOidcClient(
  settings: OidcSettings,
  logger: Logger,
  /** Tests shorten the pause between discovery attempts. */
  options: { discoveryRetryMs?: number } = {},
) {
  const discoveryRetryMs = options.discoveryRetryMs ?? oidcTimes.discoveryRetryMs;
  const issuer = new URL(settings.issuer);
  const authentication = settings.clientSecret === undefined ? client.None() : client.ClientSecretBasic(settings.clientSecret);
  let configuration: client.Configuration | undefined;
  let inFlight: Promise<client.Configuration> | undefined;
  let lastFailure: { at: number; reason: string } | undefined;

  async function discover(): Promise<client.Configuration> {
    try {
      const found = await client.discovery(issuer, settings.clientId, undefined, authentication, {
        timeout: oidcTimes.discoveryTimeoutSeconds,
        execute: [client.enableNonRepudiationChecks, ...(isLoopbackHttp(issuer) ? [client.allowInsecureRequests] : [])],
      });
      configuration = found;
      lastFailure = undefined;
      return found;
    } catch (error) {
      const reason = describe(error);
      lastFailure = { at: Date.now(), reason };
      logger.warn(`single sign-on: cannot read the OpenID provider's configuration at ${settings.issuer}: ${reason}`);
      throw unavailable(reason);
    } finally {
      inFlight = undefined;
    }
  }

  function unavailable(reason: string): OidcError {
    return new OidcError(`single sign-on is unavailable: the identity provider could not be reached (${reason}); try again later`);
  }

  /** The provider's configuration: cached, shared by concurrent callers, retried after a pause. */
  async function providerConfiguration(): Promise<client.Configuration> {
    if (configuration) return configuration;
    if (inFlight) return inFlight;
    if (lastFailure && Date.now() - lastFailure.at < discoveryRetryMs) throw unavailable(lastFailure.reason);
    inFlight = discover();
    return inFlight;
  }

  return {
    /** Fetches the discovery document in the background at startup; failures are only logged. */
    warmUp(): void {
      providerConfiguration().catch(() => undefined);
    },

    /** A fresh verifier, state and nonce, and the provider URL that carries their public halves. */
    async begin(redirectUri: string): Promise<{ url: URL; pending: PendingSignIn }> {
      const found = await providerConfiguration();
      const pending = { codeVerifier: client.randomPKCECodeVerifier(), state: client.randomState(), nonce: client.randomNonce() };
      const url = client.buildAuthorizationUrl(found, {
        redirect_uri: redirectUri,
        scope: oidcScopes,
        code_challenge: await client.calculatePKCECodeChallenge(pending.codeVerifier),
        code_challenge_method: 'S256',
        state: pending.state,
        nonce: pending.nonce,
      });
      return { url, pending };
    },

    /**
     * Redeems the code in `callbackUrl` (the public callback URL with the provider's query) and
     * checks state, PKCE (at the provider), the ID token's signature, issuer, audience, expiry and
     * nonce, and that its `sub` is one Airdate can store; asks the userinfo endpoint for the name
     * claims when the ID token does not carry them (many providers put them there only).
     */
    async finish(callbackUrl: URL, pending: PendingSignIn): Promise<VerifiedIdentity> {
      const found = await providerConfiguration();
      let claims: client.IDToken;
      let accessToken: string;
      try {
        const tokens = await client.authorizationCodeGrant(found, callbackUrl, {
          pkceCodeVerifier: pending.codeVerifier,
          expectedState: pending.state,
          expectedNonce: pending.nonce,
          idTokenExpected: true,
        });
        claims = tokens.claims()!;
        accessToken = tokens.access_token;
      } catch (error) {
        throw refusal(error);
      }
      // A `sub` is 1 to 255 characters. An empty one would make every such person one identity; a
      // longer one, or one with control characters (PostgreSQL cannot store a NUL), is refused here
      // on every database instead of failing at the insert.
      if (claims.sub === '' || [...claims.sub].length > oidcLengths.subjectChars || /\p{Cc}/u.test(claims.sub)) {
        throw new OidcError(
          `the identity provider sent an identity Airdate cannot use (its "sub" claim is empty, over ${oidcLengths.subjectChars} characters or holds control characters); ask your administrator`,
        );
      }
      let profile: Record<string, unknown> = claims;
      if (text(claims.preferred_username) === undefined && text(claims.email) === undefined && found.serverMetadata().userinfo_endpoint) {
        try {
          profile = { ...(await client.fetchUserInfo(found, accessToken, claims.sub)), ...claims };
        } catch (error) {
          // The identity is proven by the ID token already; a name is only nicer to have.
          logger.warn(`single sign-on: the userinfo request failed, continuing without name claims: ${describe(error)}`);
        }
      }
      return {
        subject: `${found.serverMetadata().issuer} ${claims.sub}`,
        preferredUsername: text(profile.preferred_username),
        email: text(profile.email),
      };
    },
  };
}

export type OidcClient = ReturnType<typeof createOidcClient>;

/** What a failed code exchange tells the person: the provider's refusal, or that checks failed. */
function refusal(error: unknown): OidcError {
  if (error instanceof client.AuthorizationResponseError) {
    const detail = error.error_description ? `: ${error.error_description}` : '';
    return new OidcError(`the identity provider did not sign you in (${error.error}${detail})`);
  }
  if (error instanceof client.ResponseBodyError) {
    return new OidcError(`the identity provider refused the sign-in (${error.error}); start again`);
  }
  if (error instanceof client.ClientError && error.cause instanceof Response) {
    // Not an OAuth error: a proxy's error page, a provider in trouble.
    return new OidcError(`the identity provider could not complete the sign-in (HTTP ${error.cause.status}: ${error.message}); start again`);
  }
  return new OidcError(`the identity provider's answer could not be verified (${describe(error)}); start again`);
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

/** An error's message, with its cause's (openid-client wraps network failures). */
function describe(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : undefined;
  return cause && cause !== message ? `${message}: ${cause}` : message;
}
