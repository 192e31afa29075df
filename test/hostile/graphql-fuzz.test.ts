import fc from 'fast-check';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { schema } from '../../src/schema.ts';
import { useTestApp } from '../support/database.ts';
import { call } from '../support/http.ts';
import { generateRequest } from './graphql-documents.ts';
import { accountState, fuzzOptions, makeLibraryAccount } from './support.ts';

// Rate limit off: the fuzz is one account sending far more than any client would.
const { app } = await useTestApp({ AIRDATE_RATE_LIMIT_PER_MINUTE: '0', AIRDATE_LOG_LEVEL: 'silent' });
const errors = vi.spyOn(app.logger, 'error');
afterAll(() => errors.mockRestore());

describe('GraphQL documents of any shape (property)', () => {
  it('never get a 5xx or an unexpected error, always a JSON body, and change nothing when refused', async () => {
    const account = await makeLibraryAccount();
    const other = await makeLibraryAccount();
    const otherBefore = await accountState(other.id);
    let refused = 0;
    let answered = 0;
    await fc.assert(
      fc.asyncProperty(fc.gen(), fc.boolean(), async (g, overGet) => {
        const request = generateRequest(g, schema);
        const before = await accountState(account.id);
        const response = overGet
          ? await call(app, 'GET', `/graphql?${new URLSearchParams({ query: request.query, ...(request.variables ? { variables: JSON.stringify(request.variables) } : {}), ...(request.operationName ? { operationName: request.operationName } : {}) })}`, { token: account.token })
          : await call(app, 'POST', '/graphql', { token: account.token, body: request });
        const context = `${response.status} ${response.text.slice(0, 300)}\n${request.query.slice(0, 2_000)}\n${JSON.stringify(request.variables)?.slice(0, 300)}`;
        expect(response.status, context).toBeLessThan(500);
        expect(response.headers.get('content-type'), context).toMatch(/^application\/(graphql-response\+)?json/);
        expect(response.json, context).toBeTypeOf('object');
        const messages: string[] = (response.json.errors ?? []).map((error: { message: string }) => error.message);
        expect(messages, context).not.toContain('Unexpected error.');
        expect(errors, context).not.toHaveBeenCalled();
        const refusedWhole = response.status >= 400 || response.json.data === undefined || response.json.data === null;
        if (refusedWhole) {
          refused += 1;
          expect(await accountState(account.id), context).toEqual(before);
        } else answered += 1;
      }),
      fuzzOptions,
    );
    if (process.env.AIRDATE_FUZZ_REPORT) console.log(`refused ${refused}, answered ${answered}`);
    // Both kinds happened (a fuzz that only ever gets refused tests nothing of execution).
    expect(refused).toBeGreaterThan(fuzzOptions.numRuns / 10);
    expect(answered).toBeGreaterThan(fuzzOptions.numRuns / 10);
    // Another account's data is never touched by anything this one sends.
    expect(await accountState(other.id)).toEqual(otherBefore);
    expect((await call(app, 'GET', '/api/machine/summary', { token: account.token })).status).toBe(200);
  }, 300_000);
});
