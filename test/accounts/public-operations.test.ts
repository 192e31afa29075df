import { parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { documentAccess } from '../../src/graphql/graphql-access.ts';
import { Browser } from '../support/browser.ts';
import { useTestApp } from '../support/database.ts';
import { makeAccount } from '../support/factories.ts';

const { app } = await useTestApp({ AIRDATE_OPEN_SIGNUP: 'true' });

describe('what an anonymous request may run', () => {
  it('runs the public operations, over POST and GET', async () => {
    await makeAccount();
    const anonymous = new Browser(app);
    const answer = await anonymous.graphql('{ __typename authInfo { signedIn setupRequired signUpOpen sso { label } } }');
    expect(answer.json.data).toEqual({ __typename: 'Query', authInfo: { signedIn: false, setupRequired: false, signUpOpen: true, sso: null } });
    const viaGet = await anonymous.fetch('GET', `/graphql?query=${encodeURIComponent('{ authInfo { signedIn } }')}`);
    expect(viaGet.json.data.authInfo.signedIn).toBe(false);
  });

  it('answers 401 before validation for anything else: a private field, introspection, a private field hidden in a fragment', async () => {
    const anonymous = new Browser(app);
    const refused = [
      '{ viewer { name } }',
      '{ authInfo { signedIn } viewer { apiToken } }',
      '{ __schema { types { name } } }',
      '{ __type(name: "Account") { fields { name } } }',
      'query { ...Sneaky } fragment Sneaky on Query { viewer { apiToken } }',
      'query { ... on Query { viewer { apiToken } } }',
      'query A { authInfo { signedIn } } query B { viewer { name } }',
      'mutation { regenerateToken }',
      'mutation { signIn(name: "a", password: "b") { name } regenerateToken }',
      'subscription { authInfo { signedIn } }',
      '{ viewr { name } }',
      '{ authInfo { signedIn }',
      'query { ...Loop } fragment Loop on Query { ...Loop }',
    ];
    for (const query of refused) {
      const answer = await anonymous.graphql(query);
      expect(answer.status, query).toBe(401);
      expect(answer.text, query).not.toMatch(/did you mean|apiToken|Account/i);
    }
  });

  it('tells a public document from a private one through fragments (unit)', () => {
    expect(documentAccess(parse('mutation { signOut } query { ...F } fragment F on Query { authInfo { signedIn } }'))).toEqual({ isPublic: true, hasMutation: true });
    expect(documentAccess(parse('fragment F on Query { viewer { name } }'))).toEqual({ isPublic: false, hasMutation: false });
    expect(documentAccess(parse('{ ...Missing }'))).toMatchObject({ isPublic: false });
  });
});

describe('signUp', () => {
  it('creates a user and signs in when AIRDATE_OPEN_SIGNUP is on, refusing bad input with 400', async () => {
    const browser = new Browser(app);
    const made = await browser.graphql('mutation { signUp(name: "self-made", password: "self password", timezone: "Asia/Tokyo") { name role timezone } }');
    expect(made.json.data.signUp).toEqual({ name: 'self-made', role: 'USER', timezone: 'Asia/Tokyo' });
    expect((await browser.graphql('{ viewer { name } }')).json.data.viewer.name).toBe('self-made');
    for (const [query, message] of [
      ['mutation { signUp(name: "self-made", password: "self password") { name } }', 'an account named "self-made" already exists'],
      ['mutation { signUp(name: "x y", password: "self password") { name } }', 'invalid account name "x y": use letters, digits and . _ - @ only'],
      ['mutation { signUp(name: "fine", password: "1234567") { name } }', 'the password must be at least 8 characters'],
    ]) {
      const answer = await new Browser(app).graphql(query!);
      expect([answer.status, answer.json.errors[0].message, answer.json.errors[0].extensions.code]).toEqual([400, message, 'BAD_INPUT']);
    }
  });
});
