import { expect, it } from 'vitest';
import { queryCounter, settleUnawaitedWrites } from '../../src/db/client.ts';
import { useTestApp } from '../support/database.ts';
import { makeAccount } from '../support/factories.ts';
import { graphql } from '../support/http.ts';

/**
 * `viewer`: the fields the token check already read are answered from it with no query (issue 14:
 * a dashboard's `viewer { name }` was a Prisma round trip); asking for any other field, or using a
 * directive, reads the account, and both paths answer the same.
 */
const { app } = await useTestApp();

/** The queries of a request that needs nothing but the token check, once its lastUsedAt write is done. */
async function baselineQueries(token: string): Promise<number> {
  await viewer(token, '{ __typename }'); // the first request writes lastUsedAt
  await settleUnawaitedWrites();
  await viewer(token, '{ __typename }'); // reads the token again after that commit
  return (await viewer(token, '{ __typename }')).queries;
}

async function viewer(token: string, query: string) {
  const before = queryCounter();
  const response = await graphql(app, token, query);
  // The token check is one query, or none when it is kept (SQLite, nothing committed since), and
  // the token's lastUsedAt write is at most one a minute.
  return { json: response.json, queries: queryCounter() - before };
}

it('answers the token check’s fields without another query, through fragments too', async () => {
  const user = await makeAccount({ timezone: 'Europe/Berlin' });
  const baseline = await baselineQueries(user.token);
  const expected = { __typename: 'Account', databaseId: user.id, name: user.name, timezone: 'Europe/Berlin', summaryProfile: 'FULL' };
  for (const query of [
    '{ viewer { __typename databaseId name timezone summaryProfile } }',
    '{ viewer { ...Who } } fragment Who on Account { __typename databaseId name ... on Account { timezone summaryProfile } }',
  ]) {
    const answer = await viewer(user.token, query);
    expect(answer.json).toEqual({ data: { viewer: expected } });
    expect(answer.queries, query).toBe(baseline);
  }
});

it('reads the account for any other field or a directive, with the same answer', async () => {
  const user = await makeAccount();
  const baseline = await baselineQueries(user.token);
  const fast = await viewer(user.token, '{ viewer { name timezone } }');
  for (const query of ['{ viewer { name timezone webhookUrl } }', '{ viewer { name @include(if: true) timezone } }', '{ viewer { ...F } } fragment F on Account { name timezone webhookUrl }']) {
    const answer = await viewer(user.token, query);
    expect(answer.queries, query).toBeGreaterThan(baseline);
    expect(answer.json.data.viewer).toMatchObject(fast.json.data.viewer);
  }
});

it('shows a settings change at once', async () => {
  const user = await makeAccount();
  const changed = await graphql(app, user.token, 'mutation { updateSettings(input: { timezone: "Asia/Tokyo" }) { ... on MutationUpdateSettingsSuccess { data { timezone } } } }');
  expect(JSON.stringify(changed.json)).toContain('Asia/Tokyo');
  expect((await viewer(user.token, '{ viewer { timezone } }')).json).toEqual({ data: { viewer: { timezone: 'Asia/Tokyo' } } });
});
