import { describe, expect, it } from 'vitest';
import { addDays, localDate } from '../../src/time/dates.ts';
import { createGraphiQL } from '../../src/graphql/graphiql.ts';
import { useTestApp } from '../support/database.ts';
import { makeAccount, makeShow } from '../support/factories.ts';
import { call, graphql } from '../support/http.ts';

const { app } = await useTestApp();

describe('GraphQL endpoint', () => {
  it('answers viewer with the token shown on first view', async () => {
    const account = await makeAccount({ timezone: 'Europe/Berlin' });
    const { status, json } = await graphql(app, account.token, '{ viewer { name timezone apiToken webhookUrl } }');
    expect(status).toBe(200);
    expect(json.data.viewer).toEqual({ name: account.name, timezone: 'Europe/Berlin', apiToken: account.token, webhookUrl: null });
  });

  it('refuses ?token= and missing tokens with 401', async () => {
    const account = await makeAccount();
    const viaQuery = await call(app, 'POST', '/graphql', { queryToken: account.token, body: { query: '{ viewer { name } }' } });
    expect(viaQuery.status).toBe(401);
    expect(Object.keys(viaQuery.json)).toEqual(['error']);
    expect((await call(app, 'POST', '/graphql', { body: { query: '{ viewer { name } }' } })).status).toBe(401);
  });

  it('serves GraphiQL to a browser without a token, from this server alone (test/browser/web-security.sqlite.test.ts runs it)', async () => {
    const page = await call(app, 'GET', '/graphql', { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    expect(page.headers.get('content-security-policy')).toMatch(/^default-src 'none'; script-src 'self'; worker-src 'self'; connect-src 'self';/);
    expect(page.text).not.toMatch(/https?:\/\//);
    const files = [...page.text.matchAll(/(?:href|src)="(\/graphiql\/[^"]+)"/g)].map((match) => match[1]!);
    expect(files).toHaveLength(3);
    const start = await call(app, 'GET', files.find((file) => file.endsWith('/start.js'))!);
    const version = files[0]!.split('/')[2]!;
    for (const name of ['yoga-graphiql.js', 'graphiql.css', 'editor.worker.js', 'json.worker.js', 'graphql.worker.js', 'start.js', 'favicon.ico']) {
      const file = await call(app, 'HEAD', `/graphiql/${version}/${name}`);
      expect([file.status, file.headers.get('cache-control')], name).toEqual([200, 'public, max-age=31536000, immutable']);
    }
    expect(start.text).toContain('YogaGraphiQL.renderYogaGraphiQL');
    // The version names the files' content: every server process serves the same page and files.
    const elsewhere = createGraphiQL({ title: 'Another process', endpoint: '/graphql', headers: '{}' });
    expect(await (await elsewhere.page(new Request('http://airdate.test/graphql'))).text()).toContain(`/graphiql/${version}/start.js`);
    for (const missing of [`/graphiql/${version}/nope.js`, '/graphiql/0000000000000000/start.js', `/graphiql/${version}/start.js/x`, '/graphiql/']) {
      expect((await call(app, 'GET', missing, { headers: { accept: 'text/html' } })).status, missing).toBe(404);
    }
  });

  it('regenerates the token: the old one fails at once on REST and GraphQL', async () => {
    const account = await makeAccount();
    const { json } = await graphql(app, account.token, 'mutation { regenerateToken }');
    const fresh = json.data.regenerateToken as string;
    expect(fresh).not.toBe(account.token);
    expect((await call(app, 'GET', '/api/machine/summary', { token: account.token })).status).toBe(401);
    expect((await graphql(app, account.token, '{ viewer { name } }')).status).toBe(401);
    expect((await call(app, 'GET', '/api/machine/summary', { token: fresh })).status).toBe(200);
  });

  it('returns expected failures of mutations as typed data', async () => {
    const account = await makeAccount();
    const mutation = `mutation($input: SetWatchedInput!) { setWatched(input: $input) {
      __typename ... on Error { message code } ... on MutationSetWatchedSuccess { data { ok changed } } } }`;
    const missing = await graphql(app, account.token, mutation, { input: { kind: 'EPISODE', id: 999_999_999, watched: true } });
    expect(missing.json.data.setWatched).toMatchObject({ __typename: 'NotFoundError', code: 'NOT_FOUND' });
    const negative = await graphql(app, account.token, mutation, { input: { kind: 'EPISODE', id: -1, watched: true } });
    expect(negative.json.data.setWatched).toMatchObject({ __typename: 'InputError', code: 'BAD_INPUT' });
    const show = await makeShow({ episodes: [{ number: 1, airDate: '2020-01-01' }] });
    const done = await graphql(app, account.token, mutation, { input: { kind: 'EPISODE', id: show.episodes[0]!.id, watched: true } });
    expect(done.json.data.setWatched).toEqual({ __typename: 'MutationSetWatchedSuccess', data: { ok: true, changed: true } });
  });

  it('pages through the library and serves the summary like the REST endpoint', async () => {
    const account = await makeAccount();
    const today = localDate('UTC', new Date());
    for (let index = 0; index < 3; index += 1) {
      const show = await makeShow({ title: `Paged ${index}`, episodes: [{ number: 1, airDate: addDays(today, -1) }] });
      const follow = `mutation($input: SetFollowInput!) { setFollow(input: $input) { __typename } }`;
      await graphql(app, account.token, follow, { input: { kind: 'SHOW', id: show.id, followed: true } });
    }
    const page = `query($after: String) { library(first: 2, after: $after) {
      pageInfo { hasNextPage endCursor } edges { node { kind followed item { ... on Show { title databaseId } } } } } }`;
    const first = await graphql(app, account.token, page);
    expect(first.json.data.library.edges.map((edge: any) => edge.node.item.title)).toEqual(['Paged 0', 'Paged 1']);
    expect(first.json.data.library.pageInfo.hasNextPage).toBe(true);
    const second = await graphql(app, account.token, page, { after: first.json.data.library.pageInfo.endCursor });
    expect(second.json.data.library.edges.map((edge: any) => edge.node.item.title)).toEqual(['Paged 2']);

    const viaGraphql = await graphql(app, account.token, '{ summary { counts { upNext unwatchedEpisodes } upNext { ... on EpisodeFeedItem { show episode } } } }');
    const viaRest = await call(app, 'GET', '/api/machine/summary', { token: account.token });
    expect(viaGraphql.json.data.summary.counts).toEqual({ upNext: viaRest.json.counts.upNext, unwatchedEpisodes: viaRest.json.counts.unwatchedEpisodes });
    expect(viaGraphql.json.data.summary.upNext.map((item: any) => item.show)).toEqual(viaRest.json.upNext.map((item: any) => item.show));
  });

  it('reports invalid operations as GraphQL errors', async () => {
    const account = await makeAccount();
    const response = await graphql(app, account.token, '{ viewer { nope } }');
    expect(response.json.errors[0].message).toMatch(/Cannot query field/);
  });
});

describe('updateSettings', () => {
  it('changes the time zone and webhook URL and answers the updated account; bad input is an InputError that changes nothing', async () => {
    const account = await makeAccount();
    const mutation = `mutation($input: UpdateSettingsInput!) { updateSettings(input: $input) {
      __typename ... on MutationUpdateSettingsSuccess { data { timezone webhookUrl } } ... on Error { code message } } }`;
    const changed = await graphql(app, account.token, mutation, { input: { timezone: 'europe/berlin', webhookUrl: 'https://ha.example.lan/api/webhook/airdate' } });
    expect(changed.json.data.updateSettings).toEqual({
      __typename: 'MutationUpdateSettingsSuccess',
      data: { timezone: 'Europe/Berlin', webhookUrl: 'https://ha.example.lan/api/webhook/airdate' },
    });
    for (const input of [{ timezone: 'Mars/Olympus' }, { webhookUrl: 'ftp://example.com/hook' }]) {
      const refused = await graphql(app, account.token, mutation, { input });
      expect(refused.json.data.updateSettings).toMatchObject({ __typename: 'InputError', code: 'BAD_INPUT' });
    }
    const viewer = await graphql(app, account.token, '{ viewer { timezone webhookUrl } }');
    expect(viewer.json.data.viewer).toEqual({ timezone: 'Europe/Berlin', webhookUrl: 'https://ha.example.lan/api/webhook/airdate' });
  });
});
