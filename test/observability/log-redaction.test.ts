import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { initSecretKey } from '../../src/keys/secret-key.ts';
import { makePerson } from '../support/browser.ts';
import { useTestDatabase } from '../support/database.ts';
import { makeAccount } from '../support/factories.ts';
import { serverProcesses } from '../support/server-processes.ts';

/**
 * Secrets reach the server every way they can — an API token as a bearer header, in `?token=`
 * (the calendar, a 404, GraphQL), a session cookie, a password in a sign-in mutation (right and
 * wrong, as a variable, as a literal of the wrong type, in a variable of the wrong type), in a JSON
 * body (well-formed and cut short, whose parse error could quote it), an OIDC code and state in a
 * callback URL — and a real `serve` process logging at debug must not write any of them.
 */
const config = await useTestDatabase();
initSecretKey(config);
const serve = serverProcesses(config, { AIRDATE_LOG_LEVEL: 'debug', AIRDATE_LOG_FORMAT: 'json' });

const secret = (label: string) => `${label}${randomBytes(12).toString('hex')}`;
const signIn = 'mutation SignIn($n: String!, $p: String!) { signIn(name: $n, password: $p) { name } }';

describe('the log of a real server', () => {
  it('holds none of the secrets sent to it, however they arrived', async () => {
    const user = await makeAccount();
    const person = await makePerson({ password: secret('pw') });
    const wrongPassword = secret('wrongpw');
    const literalPassword = `${Date.now()}${randomBytes(4).readUInt32BE()}`;
    const bodyPassword = secret('bodypw');
    const oidcCode = secret('code');
    const oidcState = secret('state');
    const server = await serve();
    const send = (path: string, init: RequestInit = {}) => fetch(`${server.baseUrl}${path}`, { redirect: 'manual', ...init }).then(async (response) => ({ response, text: await response.text() }));
    const postJson = (path: string, body: string, headers: Record<string, string> = {}) =>
      // Same-origin, as the web app sends it (sign-in refuses cross-site requests).
      send(path, { method: 'POST', headers: { 'content-type': 'application/json', origin: server.baseUrl, ...headers }, body });

    expect((await send('/api/machine/summary', { headers: { authorization: `Bearer ${user.token}` } })).response.status).toBe(200);
    expect((await send(`/api/calendar.ics?token=${user.token}`)).response.status).toBe(200);
    expect((await send(`/no/such/path?token=${user.token}`)).response.status).toBe(404);
    expect((await send(`/graphql?token=${user.token}&query=${encodeURIComponent('{ viewer { name } }')}`)).response.status).toBe(401);
    expect((await send('/api/machine/summary', { headers: { authorization: `Bearer ${user.token}x` } })).response.status).toBe(401);

    const signedIn = await postJson('/graphql', JSON.stringify({ query: signIn, variables: { n: person.name, p: person.password } }));
    expect(signedIn.response.status).toBe(200);
    const cookie = signedIn.response.headers.getSetCookie()[0]!.split(';')[0]!;
    const sessionValue = cookie.split('=')[1]!;
    expect(sessionValue.length).toBeGreaterThan(20);
    expect((await postJson('/graphql', JSON.stringify({ query: '{ viewer { name } }' }), { cookie })).response.status).toBe(200);
    expect((await send('/api/export', { headers: { cookie } })).response.status).toBe(200);
    expect((await send('/nothing/here', { headers: { cookie } })).response.status).toBe(404);

    expect((await postJson('/graphql', JSON.stringify({ query: signIn, variables: { n: person.name, p: wrongPassword } }))).response.status).toBe(401);
    const literal = await postJson('/graphql', JSON.stringify({ query: `mutation { signIn(name: "${person.name}", password: ${literalPassword}) { name } }` }));
    expect(JSON.parse(literal.text).errors).toHaveLength(1);
    const wrongType = await postJson('/graphql', JSON.stringify({ query: signIn, variables: { n: person.name, p: [wrongPassword] } }));
    expect(JSON.parse(wrongType.text).errors).toHaveLength(1);
    const cutShort = await postJson('/graphql', `{"query": "${signIn}", "variables": {"n": "x", "p": "${bodyPassword}"`, { cookie });
    expect(cutShort.response.status).toBe(400);
    expect((await postJson('/api/machine/watched', JSON.stringify({ password: bodyPassword }), { authorization: `Bearer ${user.token}` })).response.status).toBe(400);
    expect((await postJson('/api/machine/watched', `{"password": "${bodyPassword}"`, { authorization: `Bearer ${user.token}` })).response.status).toBe(400);
    expect((await send(`/auth/oidc/callback?code=${oidcCode}&state=${oidcState}`)).response.status).toBe(302);

    await server.stop();
    const output = server.output();
    // The log is there (one access line per request), and holds no secret.
    expect(output.match(/"msg":"request"/g)?.length ?? 0).toBe(16);
    for (const [what, value] of Object.entries({ token: user.token, password: person.password, sessionValue, wrongPassword, literalPassword, bodyPassword, oidcCode, oidcState })) {
      expect(output.includes(value), `${what} appears in the log`).toBe(false);
    }
  }, 60_000);
});
