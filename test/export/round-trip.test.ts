import { describe, expect, it } from 'vitest';
import { defaultHistorySize, seedHistoryLibrary } from '../../bench/seed-history.ts';
import { db } from '../../src/db/client.ts';
import { parseAirdateExport } from '../../src/imports/sources/parse-airdate.ts';
import { applyImportDocument } from '../../src/imports/import-service.ts';
import { useTestApp } from '../support/database.ts';
import { makeAccount } from '../support/factories.ts';
import { externalIdRange, makeExportLibrary } from './library-fixture.ts';

const { app } = await useTestApp();

/** The download's bytes, as a user saves them. */
async function download(token: string): Promise<Uint8Array> {
  const response = await app.fetch(new Request('http://airdate.test/api/export', { headers: { authorization: `Bearer ${token}` } }));
  expect(response.status).toBe(200);
  return new Uint8Array(await response.arrayBuffer());
}

/** The document without what legitimately differs between accounts and moments. */
function comparable(bytes: Uint8Array) {
  const { exportedAt: _at, account: _account, ...rest } = JSON.parse(Buffer.from(bytes).toString('utf8'));
  return rest;
}

/** What an import could have changed in an account: rows and the feed version. */
async function accountState(accountId: number) {
  const where = { accountId };
  const [library, states, history, account] = await Promise.all([
    db().libraryItem.findMany({ where, orderBy: { id: 'asc' } }),
    db().watchState.findMany({ where, orderBy: { id: 'asc' } }),
    db().watchEvent.count({ where }),
    db().account.findUniqueOrThrow({ where: { id: accountId }, select: { feedVersion: true } }),
  ]);
  return { library, states, history, feedVersion: account.feedVersion };
}

/** Export → parse → apply into an empty account → export again; then the same file again. */
async function roundTrip(token: string) {
  const file = await download(token);
  const document = parseAirdateExport(file, 'airdate-export.json');
  const target = await makeAccount();
  const first = await applyImportDocument({ accountId: target.id, document });
  const again = await download(target.token);
  const before = await accountState(target.id);
  const second = await applyImportDocument({ accountId: target.id, document: parseAirdateExport(file, 'airdate-export.json') });
  const after = await accountState(target.id);
  return { file, again, first, second, before, after, target };
}

describe('export → import round trip', () => {
  it('recreates the same document in an empty account, and a second import changes nothing', async () => {
    const { account } = await makeExportLibrary({ timezone: 'Asia/Tokyo' });
    const { file, again, first, second, before, after } = await roundTrip(account.token);
    expect(comparable(again)).toEqual(comparable(file));
    expect(first.imported).toEqual({ shows: 3, episodes: 5, movies: 2, games: 1, history: 9 });
    expect([first.skipped, first.unmatched]).toEqual([[], []]);
    expect(second.imported.history).toBe(0);
    expect(after).toEqual(before);
  });

  it('works over HTTP as a user does it: download, then upload to POST /api/import/airdate', async () => {
    const { account } = await makeExportLibrary();
    const file = await download(account.token);
    const target = await makeAccount();
    const upload = async () => {
      const form = new FormData();
      form.append('file', new File([file as BlobPart], 'airdate-export-2026-11-21.json'));
      const response = await app.fetch(new Request('http://airdate.test/api/import/airdate', { method: 'POST', headers: { authorization: `Bearer ${target.token}` }, body: form }));
      return { status: response.status, json: (await response.json()) as any };
    };
    const first = await upload();
    expect(first).toMatchObject({ status: 200, json: { ok: true, imported: { shows: 3, episodes: 5, movies: 2, games: 1, history: 9 }, skipped: [], unmatched: [] } });
    expect(comparable(await download(target.token))).toEqual(comparable(file));
    const before = await accountState(target.id);
    expect((await upload()).json.imported.history).toBe(0);
    expect(await accountState(target.id)).toEqual(before);
  });

  it('adds no history and no watched change when a file is imported back into the account it came from', async () => {
    const { account } = await makeExportLibrary();
    const file = await download(account.token);
    const before = await accountState(account.id);
    const result = await applyImportDocument({ accountId: account.id, document: parseAirdateExport(file, 'mine.json') });
    expect(result.imported.history).toBe(0);
    const after = await accountState(account.id);
    // The file's flags now count as set by the user (import rule), which may touch library rows.
    expect([after.history, after.states]).toEqual([before.history, before.states]);
    expect(comparable(await download(account.token))).toEqual(comparable(file));
    await applyImportDocument({ accountId: account.id, document: parseAirdateExport(file, 'mine.json') });
    expect(await accountState(account.id)).toEqual(after);
  });

  it('round-trips a generated library of 100 000 history entries', async () => {
    const account = await makeAccount();
    const size = defaultHistorySize;
    const seeded = await seedHistoryLibrary(account.id, externalIdRange(2 * (size.shows + size.movies + size.games)), size);
    expect(seeded).toBe(100_000);
    const { file, again, first, second, before, after } = await roundTrip(account.token);
    const document = comparable(file);
    expect([document.shows.length, document.movies.length, document.games.length]).toEqual([size.shows, size.movies, size.games]);
    expect(first.imported.history).toBe(100_000);
    expect(comparable(again)).toEqual(document);
    expect(second.imported.history).toBe(0);
    expect(after).toEqual(before);
  }, 300_000);
});
