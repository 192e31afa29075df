import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { accountForIdentity } from '../../src/accounts/single-sign-on/oidc-accounts.ts';
import { hashPassword } from '../../src/accounts/password-hash.ts';
import { db } from '../../src/db/client.ts';
import { ConflictError } from '../../src/errors.ts';
import { createAccount } from '../../src/accounts/accounts.ts';
import { setupLinkValidityMs } from '../../src/limits.ts';
import { createSetupLink } from '../../src/accounts/setup-links.ts';
import { Browser, makePerson, signedInPerson } from '../support/browser.ts';
import { useTestApp } from '../support/database.ts';
import { makeAccount, makeMovie } from '../support/factories.ts';
import { graphql } from '../support/http.ts';

const { app } = await useTestApp();

const complete = 'mutation($c: String!, $n: String!, $p: String!) { completeSetup(code: $c, name: $n, password: $p) { name role } }';
const info = 'query($c: String!) { setupLinkInfo(code: $c) { purpose expiresAt } authInfo { setupRequired signUpOpen sso { label } } }';

describe('first run (runs first: the database has no account yet)', () => {
  it('the first-admin link makes the administrator once, signs in, and stops working once an account exists', async () => {
    const anonymous = new Browser(app);
    const first = await createSetupLink({ purpose: 'first-admin' });
    const spare = await createSetupLink({ purpose: 'first-admin' });
    const before = await anonymous.graphql(info, { c: first.code });
    expect(before.json.data).toEqual({ setupLinkInfo: { purpose: 'FIRST_ADMIN', expiresAt: first.expiresAt.toISOString() }, authInfo: { setupRequired: true, signUpOpen: false, sso: null } });
    const made = await anonymous.graphql(complete, { c: first.code, n: 'root-admin', p: 'the admin password' });
    expect(made.json.data.completeSetup).toEqual({ name: 'root-admin', role: 'ADMIN' });
    expect((await anonymous.graphql('{ viewer { name } }')).json.data.viewer.name).toBe('root-admin');
    const again = await new Browser(app).graphql(complete, { c: first.code, n: 'second-admin', p: 'the admin password' });
    expect([again.status, again.json.errors[0].extensions.code]).toEqual([400, 'BAD_INPUT']);
    // Another first-admin link, never used, is refused now that an account exists.
    expect((await new Browser(app).graphql(info, { c: spare.code })).json.data.setupLinkInfo).toBeNull();
    expect((await new Browser(app).graphql(complete, { c: spare.code, n: 'late-admin', p: 'the admin password' })).status).toBe(400);
    expect(await db().account.count({ where: { role: 'admin' } })).toBe(1);
  });

  it('refuses an expired link, an unknown one, and bad input without using the link', async () => {
    const invite = await createSetupLink({ purpose: 'invite' });
    await db().setupLink.updateMany({ where: { expiresAt: invite.expiresAt }, data: { expiresAt: new Date(Date.now() - 1) } });
    expect((await new Browser(app).graphql(info, { c: invite.code })).json.data.setupLinkInfo).toBeNull();
    expect((await new Browser(app).graphql(complete, { c: invite.code, n: 'too-late', p: 'long enough pw' })).status).toBe(400);
    expect((await new Browser(app).graphql(info, { c: 'x'.repeat(10_000) })).json.data.setupLinkInfo).toBeNull();
    const fresh = await createSetupLink({ purpose: 'invite' });
    expect(fresh.expiresAt.getTime() - Date.now()).toBeLessThanOrEqual(setupLinkValidityMs);
    const short = await new Browser(app).graphql(complete, { c: fresh.code, n: 'fine-name', p: 'short' });
    expect(short.json.errors[0]).toMatchObject({ message: 'the password must be at least 8 characters', extensions: { code: 'BAD_INPUT' } });
    const taken = await new Browser(app).graphql(complete, { c: fresh.code, n: 'root-admin', p: 'long enough pw' });
    expect(taken.json.errors[0]).toMatchObject({ message: 'an account named "root-admin" already exists', extensions: { code: 'BAD_INPUT' } });
    expect((await new Browser(app).graphql(complete, { c: fresh.code, n: 'invited-user', p: 'long enough pw' })).json.data.completeSetup).toEqual({ name: 'invited-user', role: 'USER' });
  });
});

describe('administration', () => {
  it('an administrator invites, creates, lists, promotes, resets and removes accounts', async () => {
    const admin = await signedInPerson(app, { role: 'admin' });
    const link = await admin.browser.graphql('mutation { createSetupLink { url expiresAt } }');
    const url = link.json.data.createSetupLink.url as string;
    expect(url).toMatch(/^http:\/\/airdate\.test\/setup#code=[\w-]{43}$/);
    const invited = new Browser(app);
    expect((await invited.graphql(complete, { c: url.split('#code=')[1], n: 'via-invite', p: 'long enough pw' })).json.data.completeSetup.role).toBe('USER');

    const created = await admin.browser.graphql('mutation { createAccount(input: { name: "made-by-admin", password: "initial password", timezone: "Europe/Oslo" }) { databaseId name role hasPassword ssoLinked sessionCount } }');
    const made = created.json.data.createAccount;
    expect(made).toMatchObject({ name: 'made-by-admin', role: 'USER', hasPassword: true, ssoLinked: false, sessionCount: 0 });
    const user = await new Browser(app).signIn('made-by-admin', 'initial password');
    const listed = await admin.browser.graphql('{ accounts(first: 500) { name sessionCount } }');
    expect(listed.json.data.accounts).toContainEqual({ name: 'made-by-admin', sessionCount: 1 });
    expect((await admin.browser.graphql('{ accounts(first: 501) { name } }')).status).toBe(400);

    expect((await admin.browser.graphql(`mutation { resetPassword(id: ${made.databaseId}, newPassword: "reset password") }`)).json.data.resetPassword).toBe(true);
    expect((await user.graphql('{ viewer { name } }')).status).toBe(401);
    const promoted = await admin.browser.graphql(`mutation { setAccountRole(id: ${made.databaseId}, role: ADMIN) { role } }`);
    expect(promoted.json.data.setAccountRole.role).toBe('ADMIN');

    const account = await makeAccount();
    const movie = await makeMovie();
    await db().libraryItem.create({ data: { accountId: account.id, kind: 'movie', movieId: movie.id, followed: true } });
    expect((await admin.browser.graphql(`mutation { removeAccount(id: ${account.id}) }`)).json.data.removeAccount).toBe(true);
    expect(await db().account.findUnique({ where: { id: account.id } })).toBeNull();
    expect(await db().apiToken.count({ where: { accountId: account.id } })).toBe(0);
    expect(await db().libraryItem.count({ where: { accountId: account.id } })).toBe(0);
    expect(await db().movie.count({ where: { id: movie.id } })).toBe(1);
    expect((await graphql(app, account.token, '{ viewer { name } }')).status).toBe(401);
    const missing = await admin.browser.graphql(`mutation { removeAccount(id: ${account.id}) }`);
    expect(missing.json.errors[0].extensions.code).toBe('NOT_FOUND');
  });

  it('refuses users (403 FORBIDDEN), tokens (403 SESSION_REQUIRED) and anonymous callers (401)', async () => {
    const user = await signedInPerson(app);
    const token = (await makeAccount()).token;
    for (const query of ['{ accounts { name } }', 'mutation { createSetupLink { url } }', `mutation { removeAccount(id: ${user.id}) }`, `mutation { setAccountRole(id: ${user.id}, role: ADMIN) { role } }`]) {
      const asUser = await user.browser.graphql(query);
      expect([asUser.status, asUser.json.errors[0].extensions.code], query).toEqual([403, 'FORBIDDEN']);
      const asToken = await graphql(app, token, query);
      expect([asToken.status, asToken.json.errors[0].extensions.code], query).toEqual([403, 'SESSION_REQUIRED']);
      expect((await new Browser(app).graphql(query)).status, query).toBe(401);
    }
    expect(await db().setupLink.count({ where: { createdById: user.id } })).toBe(0);
  });

  it('never removes yourself, never leaves zero administrators', async () => {
    const admin = await signedInPerson(app, { role: 'admin' });
    const self = await admin.browser.graphql(`mutation { removeAccount(id: ${admin.id}) }`);
    expect(self.json.errors[0]).toMatchObject({ message: 'you cannot remove your own account', extensions: { code: 'FORBIDDEN' } });
    const others = await db().account.findMany({ where: { role: 'admin', id: { not: admin.id } } });
    for (const other of others) await admin.browser.graphql(`mutation { setAccountRole(id: ${other.id}, role: USER) { role } }`);
    expect(await db().account.count({ where: { role: 'admin' } })).toBe(1);
    const demote = await admin.browser.graphql(`mutation { setAccountRole(id: ${admin.id}, role: USER) { role } }`);
    expect(demote.json.errors[0]).toMatchObject({ message: 'the server must keep at least one administrator', extensions: { code: 'FORBIDDEN' } });
    const second = await makePerson({ role: 'admin' });
    expect((await admin.browser.graphql(`mutation { setAccountRole(id: ${admin.id}, role: USER) { role } }`)).json.data.setAccountRole.role).toBe('USER');
    // Demoted: administration is refused at once, on the same session.
    expect((await admin.browser.graphql('{ accounts { name } }')).json.errors[0].extensions.code).toBe('FORBIDDEN');
    expect(await db().account.count({ where: { role: 'admin', id: second.id } })).toBe(1);
  });
});

describe('invitations whose maker is no longer an administrator', () => {
  it('stop working once the maker is demoted or removed (or its role changed in the database); a command-line link keeps working', async () => {
    const boss = await signedInPerson(app, { role: 'admin' });
    const makers = { demoted: await signedInPerson(app, { role: 'admin' }), removed: await signedInPerson(app, { role: 'admin' }), edited: await signedInPerson(app, { role: 'admin' }) };
    const invite = async (browser: Browser) => ((await browser.graphql('mutation { createSetupLink { url } }')).json.data.createSetupLink.url as string).split('#code=')[1]!;
    const codes = { demoted: await invite(makers.demoted.browser), removed: await invite(makers.removed.browser), edited: await invite(makers.edited.browser) };
    const fromBoss = await invite(boss.browser);
    const fromCommandLine = await createSetupLink({ purpose: 'invite' });

    expect((await boss.browser.graphql(`mutation { setAccountRole(id: ${makers.demoted.id}, role: USER) { role } }`)).json.data.setAccountRole.role).toBe('USER');
    expect((await boss.browser.graphql(`mutation { removeAccount(id: ${makers.removed.id}) }`)).json.data.removeAccount).toBe(true);
    await db().account.update({ where: { id: makers.edited.id }, data: { role: 'user' } });
    // Promoted again, the demoted maker's old invitation stays dead: it was deleted with the demotion.
    await boss.browser.graphql(`mutation { setAccountRole(id: ${makers.demoted.id}, role: ADMIN) { role } }`);

    for (const [maker, code] of Object.entries(codes)) {
      expect((await new Browser(app).graphql(info, { c: code })).json.data.setupLinkInfo, maker).toBeNull();
      const used = await new Browser(app).graphql(complete, { c: code, n: `invited-by-${maker}`, p: 'long enough pw' });
      expect([used.status, used.json.errors[0].extensions.code], maker).toEqual([400, 'BAD_INPUT']);
      expect(await db().account.count({ where: { name: `invited-by-${maker}` } })).toBe(0);
    }
    expect(await db().setupLink.count({ where: { createdById: { in: [makers.demoted.id, makers.removed.id] } } })).toBe(0);
    for (const code of [fromBoss, fromCommandLine.code]) {
      const name = `invited-${code.slice(0, 6).replace(/[^a-z0-9]/gi, 'x')}`;
      expect((await new Browser(app).graphql(complete, { c: code, n: name, p: 'long enough pw' })).json.data.completeSetup).toEqual({ name, role: 'USER' });
    }
  }, 60_000);
});

describe('look-alike account names', () => {
  it('refuses a name that looks like an existing one (Unicode TR39 skeletons) or holds full-width letters, by every way in; look-alikes made before keep signing in', async () => {
    const admin = await signedInPerson(app, { role: 'admin' });
    const latin = `admin-${randomUUID().slice(0, 8).replace(/[01]/g, '7')}`;
    await createAccount({ name: latin });
    const cyrillic = latin.replace('a', '\u0430');
    const create = (name: string) => admin.browser.graphql('mutation($n: String!) { createAccount(input: { name: $n, password: "long enough pw" }) { name } }', { n: name });
    for (const name of [cyrillic, latin.replace('m', 'rn'), latin.replace('i', 'і')]) {
      const refused = await create(name);
      expect(refused.json.errors[0], name).toMatchObject({ message: `the account name "${name}" looks like the existing account "${latin}"; choose another`, extensions: { code: 'BAD_INPUT' } });
    }
    const fullWidth = await create(`ａ${latin.slice(1)}-x`);
    expect(fullWidth.json.errors[0]).toMatchObject({ message: `the account name "ａ${latin.slice(1)}-x" holds full-width or styled characters; write it as "${latin}-x"`, extensions: { code: 'BAD_INPUT' } });
    const code = (await createSetupLink({ purpose: 'invite' })).code;
    expect((await new Browser(app).graphql(complete, { c: code, n: cyrillic, p: 'long enough pw' })).json.errors[0].message).toContain('looks like the existing account');
    expect(await db().account.count({ where: { name: { in: [cyrillic, `ａ${latin.slice(1)}-x`] } } })).toBe(0);
    // Case is kept: "ADMIN-…" looks different and is another account.
    expect((await create(latin.toUpperCase())).json.data.createAccount.name).toBe(latin.toUpperCase());

    // Single sign-on names a new account after the identity: a look-alike gets the next free name.
    const sso = await accountForIdentity({ subject: `https://idp.test ${randomUUID()}`, preferredUsername: cyrillic, email: undefined }, true);
    expect((await db().account.findUniqueOrThrow({ where: { id: sso.id } })).name).toBe(`${cyrillic}-2`);

    // A look-alike stored before the rule (written directly) still signs in.
    const older = cyrillic.replace('d', 'ԁ');
    await db().account.create({ data: { name: older, passwordHash: await hashPassword('an older password') } });
    await new Browser(app).signIn(older, 'an older password');

    // Two look-alikes of a new name created at once: one of them only.
    const fresh = `fresh-${randomUUID().slice(0, 8).replace(/[01]/g, '7')}`;
    const raced = await Promise.allSettled([createAccount({ name: fresh }), createAccount({ name: fresh.replace('e', 'е') })]);
    expect(raced.map((result) => result.status).sort()).toEqual(['fulfilled', 'rejected']);
    expect(raced.find((result) => result.status === 'rejected')!.reason).toBeInstanceOf(ConflictError);
  }, 60_000);
});
