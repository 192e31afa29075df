/**
 * Whether an OpenID issuer URL may be plain http: only on the loopback interface (a provider on
 * the same machine, and the tests' provider), where nobody on the network can read the
 * authorization code, the tokens or the client secret. Every other issuer must be https:
 * config.ts refuses it at startup, and only for a loopback issuer does src/accounts/single-sign-on/oidc.ts give
 * openid-client `allowInsecureRequests`. Kept apart from oidc.ts so config.ts need not load
 * openid-client.
 */
export function isLoopbackHttp(issuer: URL): boolean {
  if (issuer.protocol !== 'http:') return false;
  const host = issuer.hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  return host === 'localhost' || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host);
}
