import { parse as parseCsv } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { db } from '../../src/db/client.ts';
import { inputLengths } from '../../src/limits.ts';
import { searchLimit } from '../../src/catalog/catalog-service.ts';
import { startCatalogServer } from '../catalog/support/catalog-server.ts';
import { tmdbRoute } from '../catalog/support/tmdb-fixture.ts';
import { bytes, grouveeHeader, grouveeRow } from '../imports/fixtures.ts';
import { useTestApp } from '../support/database.ts';
import { makeAccount, makeShow, unique } from '../support/factories.ts';
import { call, graphql } from '../support/http.ts';
import { upload } from '../support/upload.ts';
import { findWebhook } from '../../src/accounts/webhook-setting.ts';

/**
 * Every text a person or program sends has a maximum length (src/limits.ts inputLengths): at the
 * limit it is taken, one character more is refused with a 400 (or the GraphQL error) naming the
 * field and the limit, before the database or a catalog sees it, and nothing is stored.
 */

// A TMDB stand-in, so that what a search sends to a network catalog is seen.
const tmdb = await startCatalogServer(tmdbRoute({ shows: [], movies: [] }, 'key'));
const { app } = await useTestApp({ TMDB_API_KEY: 'key', AIRDATE_TMDB_URL: tmdb.url, AIRDATE_TMDB_IMAGE_URL: 'https://img.example/w500' });

const updateSettings = `mutation($input: UpdateSettingsInput!) { updateSettings(input: $input) {
  __typename ... on MutationUpdateSettingsSuccess { data { timezone webhookUrl } } ... on InputError { message field } } }`;

const stored = async (accountId: number) => ({
  ...(await db().account.findUniqueOrThrow({ where: { id: accountId }, select: { timezone: true, feedVersion: true } })),
  webhookUrl: (await findWebhook(accountId))?.url ?? null,
});

describe('updateSettings', () => {
  it('time zone: 64 characters reach the IANA check, 65 or 200 000 are refused for their length, a megabyte by the body limit, nothing changes', async () => {
    const account = await makeAccount({ timezone: 'Europe/Berlin' });
    const before = await stored(account.id);
    const atLimit = `Europe/${'x'.repeat(inputLengths.timezone - 7)}`;
    const answer = await graphql(app, account.token, updateSettings, { input: { timezone: atLimit } });
    expect(answer.json.data.updateSettings).toMatchObject({ __typename: 'InputError', field: 'timezone' });
    expect(answer.json.data.updateSettings.message).toMatch(/^unknown time zone "Europe\/x+"/);
    for (const timezone of [`${atLimit}x`, 'Europe/'.padEnd(200_000, 'x')]) {
      const refused = await graphql(app, account.token, updateSettings, { input: { timezone } });
      expect(refused.json.data.updateSettings).toEqual({ __typename: 'InputError', field: 'timezone', message: 'the time zone must be at most 64 characters' });
    }
    // A request body past AIRDATE_MAX_JSON_KB (256 KB) never reaches GraphQL.
    const megabyte = await graphql(app, account.token, updateSettings, { input: { timezone: 'Europe/'.padEnd(1_000_000, 'x') } });
    expect(megabyte.status).toBe(413);
    expect(await stored(account.id)).toEqual(before);
  });

  it('webhook URL: 2 048 characters are stored, 2 049 are refused, and so is a shorter URL that encodes past the limit', async () => {
    const account = await makeAccount();
    const base = 'https://hooks.example/';
    const atLimit = base + 'a'.repeat(inputLengths.webhookUrl - base.length);
    const taken = await graphql(app, account.token, updateSettings, { input: { webhookUrl: atLimit } });
    expect(taken.json.data.updateSettings).toEqual({ __typename: 'MutationUpdateSettingsSuccess', data: { timezone: 'UTC', webhookUrl: atLimit } });
    const before = await stored(account.id);

    const tooLong = await graphql(app, account.token, updateSettings, { input: { webhookUrl: `${atLimit}a` } });
    expect(tooLong.json.data.updateSettings).toEqual({ __typename: 'InputError', field: 'webhookUrl', message: 'the webhook URL must be at most 2048 characters' });
    // 522 characters as sent; each é becomes %C3%A9 in the URL that would be stored.
    const encoded = await graphql(app, account.token, updateSettings, { input: { webhookUrl: base + 'é'.repeat(500) } });
    expect(encoded.json.data.updateSettings).toEqual({
      __typename: 'InputError',
      field: 'webhookUrl',
      message: 'the webhook URL must be at most 2048 characters once encoded (3022)',
    });
    const huge = await graphql(app, account.token, updateSettings, { input: { webhookUrl: base + 'b'.repeat(100_000) } });
    expect(huge.json.data.updateSettings.message).toBe('the webhook URL must be at most 2048 characters');
    expect(await stored(account.id)).toEqual(before);
  });
});

const search = (token: string, query: string) =>
  graphql(app, token, 'query($q: String!) { searchCatalog(query: $q) { ... on Show { title } ... on Movie { title } ... on Game { title } } }', { q: query });

describe('searchCatalog', () => {
  it('takes a 200-character query and refuses 201 or 100 000 characters before any catalog or the database sees them', async () => {
    const account = await makeAccount();
    const atLimit = await search(account.token, 'q'.repeat(inputLengths.searchQuery));
    expect(atLimit.json).toEqual({ data: { searchCatalog: [] } });
    expect(tmdb.seen('/search/tv').at(-1)!.query.get('query')).toBe('q'.repeat(inputLengths.searchQuery));
    const asked = tmdb.requests.length;
    for (const query of ['q'.repeat(inputLengths.searchQuery + 1), 'q'.repeat(100_000), ` ${'🎬'.repeat(inputLengths.searchQuery + 1)} `]) {
      const refused = await search(account.token, query);
      expect(refused.json.data ?? null).toBeNull();
      expect(refused.json.errors).toHaveLength(1);
      expect(refused.json.errors[0]).toMatchObject({ message: 'the search query must be at most 200 characters', extensions: { code: 'BAD_INPUT' } });
    }
    expect(tmdb.requests.length).toBe(asked);
    // Emoji count one character each: 200 of them are a query at the limit.
    expect((await search(account.token, '🎬'.repeat(inputLengths.searchQuery))).json.errors).toBeUndefined();
  });

  it('matches % _ and \\ as the characters they are, not as LIKE wildcards', async () => {
    const account = await makeAccount();
    const tag = `t${unique()}`;
    const titles = [`${tag} 100% Wolf`, `${tag} 100 Wolves`, `${tag} a_b`, `${tag} axb`, `${tag} back\\slash`, `${tag} backslash`];
    for (const title of titles) await makeShow({ title });
    // Titles a wildcard "%" would match, sorted before the literal one: as a LIKE pattern they filled
    // the stored search's net (4 × 50 rows) and the real match was cut off.
    const flood = Array.from({ length: 4 * searchLimit }, (_, index) => ({ tmdbId: unique(), title: `${tag} 100 flood ${index}` }));
    await db().show.createMany({ data: flood });
    const found = async (query: string) => ((await search(account.token, query)).json.data.searchCatalog as { title: string }[]).map((item) => item.title).sort();
    expect(await found(`${tag} 100 Wolves`)).toEqual([`${tag} 100 Wolves`]);
    expect(await found(`${tag} 100%`)).toEqual([`${tag} 100% Wolf`]);
    expect(await found(`${tag} a_b`)).toEqual([`${tag} a_b`]);
    expect(await found('0% w')).toEqual([`${tag} 100% Wolf`]);
    expect(await found('k\\s')).toEqual([`${tag} back\\slash`]);
    expect(await found(`${tag.toUpperCase()} A_B`)).toEqual([`${tag} a_b`]);
  });
});

describe('API tokens', () => {
  it('a token longer than 64 characters is a 401 for its length, in the header or as ?token=', async () => {
    const account = await makeAccount();
    expect((await call(app, 'GET', '/api/machine/summary', { token: account.token })).status).toBe(200);
    const long = `${account.token}${'x'.repeat(inputLengths.apiToken - account.token.length + 1)}`;
    const expected = { error: 'invalid API token (longer than 64 characters)' };
    for (const options of [{ token: long }, { queryToken: long }, { token: 'a'.repeat(8_000) }]) {
      const answer = await call(app, 'GET', '/api/machine/summary', options);
      expect(answer.status).toBe(401);
      expect(answer.json).toEqual(expected);
    }
    // 64 characters are checked as a token (and refused as malformed).
    const atLimit = await call(app, 'GET', '/api/machine/summary', { token: 'a'.repeat(inputLengths.apiToken) });
    expect(atLimit).toMatchObject({ status: 401, json: { error: 'invalid API token' } });
  });
});

describe('CSV imports', () => {
  const cellCharacters = (row: string) => (parseCsv(row) as string[][])[0]!.reduce((sum, cell) => sum + [...cell].length, 0);

  /** A Grouvee file of one played game whose `review` cell pads the row's cells to `characters`. */
  function grouveeFile(igdb: number, characters: number): Uint8Array {
    const row = grouveeRow(`Padded ${igdb}`, igdb, 'Played', '2021-04-03');
    // review_title, review, review_platform follow the rating (5): the review gets the padding, in
    // characters of two UTF-8 bytes and two of them of two UTF-16 units: the limit counts characters.
    const padding = `🎬🎬${'é'.repeat(characters - cellCharacters(row) - 2)}`;
    const padded = row.replace(',5,,,,', `,5,,${padding},,`);
    expect(cellCharacters(padded)).toBe(characters);
    return bytes(`${grouveeHeader}\r\n${padded}\r\n`);
  }

  it('a row whose cells hold 65 536 characters is read; one more refuses the file, naming the line and the limit', async () => {
    const account = await makeAccount();
    const limit = inputLengths.importCsvRecord;
    const taken = await upload(app, '/api/import/grouvee', account.token, { 'grouvee.csv': grouveeFile(unique(), limit) });
    expect(taken).toMatchObject({ status: 200, json: { ok: true, imported: { games: 1, history: 1 } } });

    const other = await makeAccount();
    const igdb = unique();
    const refused = await upload(app, '/api/import/grouvee', other.token, { 'grouvee.csv': grouveeFile(igdb, limit + 1) });
    expect(refused).toEqual({ status: 400, json: { error: `grouvee.csv: line 2: the row has more than ${limit} characters, the most one CSV row may have` } });
    // A quote that never closes is stopped while it is read, not held to the end of the file.
    const runaway = bytes(`${grouveeHeader}\r\n${grouveeRow('Fine', igdb, 'Played')}\r\n1,"${'x'.repeat(5 * limit)}`);
    const stopped = await upload(app, '/api/import/grouvee', other.token, { 'grouvee.csv': runaway });
    expect(stopped).toEqual({ status: 400, json: { error: `grouvee.csv: line 3: the row has more than ${limit} characters, the most one CSV row may have` } });
    expect(await db().libraryItem.count({ where: { accountId: other.id } })).toBe(0);
    expect(await db().game.count({ where: { igdbId: igdb } })).toBe(0);
  });
});
