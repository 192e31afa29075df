import { generateKeyPairSync, randomBytes, randomUUID, type KeyObject } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.ts';
import { db } from '../../src/db/client.ts';
import { useTestApp } from '../support/database.ts';
import { jwtPayload, signJwt, startOidcProvider, type TokenAnswer } from '../support/oidc-provider.ts';
import { accountOfSession, callbackUrl, navigate, runSignIn, signInError } from '../support/oidc-sign-in.ts';

// The ID token and the token endpoint's answer, as an attacker between the provider and Airdate
// or a provider gone wrong makes them: nothing but a token signed with the provider's published
// key signs anyone in, and nothing ends in a 500 after the provider's code was spent.
const provider = await startOidcProvider({ redirectUri: callbackUrl });
const { app, config } = await useTestApp({
  AIRDATE_OIDC_ISSUER: provider.issuer,
  AIRDATE_OIDC_CLIENT_ID: provider.clientId,
  AIRDATE_OIDC_CLIENT_SECRET: provider.clientSecret,
  AIRDATE_OIDC_CREATE_USERS: 'true',
});
/** Another server over the same database and secret key: what a second process is to a sign-in. */
const secondProcess = await createApp(config);
afterAll(() => secondProcess.jobs.stop(2_000));

function person() {
  const sub = `sub-${randomUUID()}`;
  provider.addAccount({ sub, preferred_username: `p-${sub.slice(4, 12)}` });
  return { sub, subject: `${provider.issuer} ${sub}` };
}

/**
 * Signs in as `username` while the token endpoint's answers pass through `rewrite`: an attacker
 * between the provider and Airdate, or a provider gone wrong.
 */
async function signInWithTokenAnswer(username: string, rewrite: (answer: TokenAnswer) => TokenAnswer) {
  provider.rewriteTokenAnswers(rewrite);
  try {
    return await runSignIn(app, provider, { username });
  } finally {
    provider.rewriteTokenAnswers(undefined);
  }
}

/** A rewrite that replaces the answer's ID token by `forge(its claims)`. */
function replaceIdToken(forge: (claims: Record<string, unknown>) => string) {
  return (answer: TokenAnswer): TokenAnswer => {
    const body = answer.body as Record<string, unknown>;
    return typeof body.id_token === 'string' ? { status: answer.status, body: { ...body, id_token: forge(jwtPayload(body.id_token)) } } : answer;
  };
}

describe("ID tokens are checked against the provider's published keys", () => {
  const stranger = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;

  it.each([
    ["under the provider's key id", (claims: Record<string, unknown>) => signJwt({ kid: provider.keyId }, claims, stranger)],
    ['under a key id the provider does not publish', (claims: Record<string, unknown>) => signJwt({ kid: 'stranger' }, claims, stranger)],
    ['with the client secret (HS256, announced by the provider)', (claims: Record<string, unknown>) => signJwt({}, claims, provider.clientSecret)],
  ])("refuses the provider's own claims signed with another key: %s", async (_, forge) => {
    const someone = person();
    const run = await signInWithTokenAnswer(someone.sub, replaceIdToken(forge));
    expect(run.callback.status).toBe(302);
    expect(signInError(run.callback.location)).toMatch(/^the identity provider's answer could not be verified \(.+\); start again$/);
    expect(run.sessionCookie).toBeUndefined();
    expect(await db().account.count({ where: { oidcSubject: someone.subject } })).toBe(0);
  });

  it("refuses a stranger's token that names another person, and accepts the same token signed by the provider", async () => {
    const victim = person();
    const first = await runSignIn(app, provider, { username: victim.sub });
    const account = await db().account.findUniqueOrThrow({ where: { oidcSubject: victim.subject } });
    expect((await accountOfSession(first.sessionCookie))?.id).toBe(account.id);
    const attacker = person();
    const asVictim = (key: KeyObject) => replaceIdToken((claims) => signJwt({ kid: provider.keyId }, { ...claims, sub: victim.sub }, key));

    const forged = await signInWithTokenAnswer(attacker.sub, asVictim(stranger));
    expect(signInError(forged.callback.location)).toMatch(/^the identity provider's answer could not be verified/);
    expect(forged.sessionCookie).toBeUndefined();
    expect(await db().session.count({ where: { accountId: account.id } })).toBe(1);

    // The same rewrite with the provider's own key passes: the refusal above is the signature's alone.
    const signed = await signInWithTokenAnswer(attacker.sub, asVictim(provider.signingKey));
    expect((await accountOfSession(signed.sessionCookie))?.id).toBe(account.id);
  });

  it('finishes a sign-in started on another server process, which checks the signature with the keys it fetched itself', async () => {
    const someone = person();
    const start = await navigate(app, '/auth/oidc/start?returnTo=/calendar');
    const returned = await provider.signIn(start.location!, { username: someone.sub });
    const callback = await navigate(secondProcess, returned.pathname + returned.search, `airdate_oidc=${start.cookies.get('airdate_oidc')}`);
    expect(callback.location).toBe('/calendar');
    const account = await db().account.findUniqueOrThrow({ where: { oidcSubject: someone.subject } });
    expect((await accountOfSession(`airdate_session=${callback.cookies.get('airdate_session')}`))?.id).toBe(account.id);
  });
});

describe('a provider gone wrong after the code was spent ends on the sign-in page, never a 500', () => {
  it.each([
    ['a 502 with an HTML page', () => ({ status: 502, body: '<html><body>bad gateway</body></html>' }), /^the identity provider could not complete the sign-in \(HTTP 502/],
    ['an error whose text holds a lone surrogate', () => ({ status: 400, body: { error: '\ud800invalid_grant' } }), /^the identity provider refused the sign-in \(\uFFFDinvalid_grant\)/],
    [
      // Random, so that PostgreSQL cannot compress it below its index's limit of about 2 700 bytes.
      'a properly signed ID token whose sub is 8 000 random characters long',
      replaceIdToken((claims) => signJwt({ kid: provider.keyId }, { ...claims, sub: randomBytes(6_000).toString('base64url') }, provider.signingKey)),
      /^the identity provider sent an identity Airdate cannot use/,
    ],
    [
      'a properly signed ID token whose sub is empty',
      replaceIdToken((claims) => signJwt({ kid: provider.keyId }, { ...claims, sub: '' }, provider.signingKey)),
      /^the identity provider sent an identity Airdate cannot use/,
    ],
    [
      'a properly signed ID token whose sub holds a NUL character',
      replaceIdToken((claims) => signJwt({ kid: provider.keyId }, { ...claims, sub: 'a\u0000b' }, provider.signingKey)),
      /^the identity provider sent an identity Airdate cannot use/,
    ],
  ])('%s', async (_, rewrite, message) => {
    const before = await db().account.count();
    const run = await signInWithTokenAnswer(person().sub, rewrite);
    expect(run.callback.status).toBe(302);
    expect(signInError(run.callback.location)).toMatch(message);
    expect(run.sessionCookie).toBeUndefined();
    expect(await db().account.count()).toBe(before);
  });
});
