import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createServerAdapter } from '@whatwg-node/server';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { db, fastReader, queryCounter } from '../../src/db/client.ts';
import { collectExport, failureTrailer } from '../../src/export/export-service.ts';
import { useTestApp } from '../support/database.ts';
import { makeAccount } from '../support/factories.ts';
import { call } from '../support/http.ts';
import { externalIdRange, makeExportLibrary } from './library-fixture.ts';

const { app } = await useTestApp();

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe('GET /api/export', () => {
  it('answers the document as a JSON attachment', async () => {
    const { account, expected } = await makeExportLibrary();
    const response = await call(app, 'GET', '/api/export', { token: account.token });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.headers.get('content-disposition')).toMatch(/^attachment; filename="airdate-export-\d{4}-\d{2}-\d{2}\.json"$/);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const { exportedAt, account: settings, ...lists } = response.json;
    expect(exportedAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(settings).toEqual({ name: account.name, timezone: 'UTC', webhookUrl: null });
    expect(lists).toEqual({ format: 'airdate-export', version: 1, ...expected });
  });

  it("names the download after the account's local date, in a far-east and a far-west zone", async () => {
    const east = await makeAccount({ timezone: 'Pacific/Kiritimati' });
    const west = await makeAccount({ timezone: 'Pacific/Pago_Pago' });
    // Only Date is faked: the database drivers keep their real timers.
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-11-21T12:30:00.000Z'));
    const eastResponse = await call(app, 'GET', '/api/export', { token: east.token });
    const westResponse = await call(app, 'GET', '/api/export', { token: west.token });
    expect(eastResponse.headers.get('content-disposition')).toBe('attachment; filename="airdate-export-2026-11-22.json"');
    expect(westResponse.headers.get('content-disposition')).toBe('attachment; filename="airdate-export-2026-11-21.json"');
    expect(eastResponse.json.exportedAt).toBe('2026-11-21T12:30:00.000Z');
  });

  it('accepts the token only as a bearer header', async () => {
    const account = await makeAccount();
    const viaQuery = await call(app, 'GET', '/api/export', { queryToken: account.token });
    expect(viaQuery.status).toBe(401);
    expect(viaQuery.json).toEqual({ error: expect.stringContaining('Authorization: Bearer') });
    expect(viaQuery.json.error).toMatch(/\?token=/);
    const missing = await call(app, 'GET', '/api/export');
    expect(missing.status).toBe(401);
    expect(Object.keys(missing.json)).toEqual(['error']);
    expect((await call(app, 'GET', '/api/export', { token: 'adt_not-a-real-token' })).status).toBe(401);
    expect((await call(app, 'POST', '/api/export', { token: account.token })).status).toBe(405);
    const head = await call(app, 'HEAD', '/api/export', { token: account.token });
    expect([head.status, head.text, head.headers.get('content-disposition')]).toEqual([200, '', expect.stringMatching(/^attachment/)]);
  });
});

/** An account with `shows` followed shows of `episodes` episodes each, every episode watched once. */
async function makeLargeLibrary(shows: number, episodes: number) {
  const account = await makeAccount();
  const base = externalIdRange(shows);
  const created = await db().show.createManyAndReturn({
    data: Array.from({ length: shows }, (_, index) => ({ tmdbId: base + index, title: `Large ${index}`, poster: `https://images.example/${index}.jpg` })),
    select: { id: true },
  });
  await db().episode.createMany({
    data: created.flatMap((show) => Array.from({ length: episodes }, (_, index) => ({ showId: show.id, season: 1, number: index + 1, title: `Episode ${index + 1}`, airDate: '2025-01-01' }))),
  });
  await db().libraryItem.createMany({ data: created.map((show) => ({ accountId: account.id, kind: 'show', showId: show.id, followed: true })) });
  const stored = await db().episode.findMany({ where: { showId: { in: created.map((show) => show.id) } }, select: { id: true } });
  const at = new Date('2026-01-01T00:00:00.000Z');
  await db().watchState.createMany({ data: stored.map((episode) => ({ accountId: account.id, kind: 'episode', episodeId: episode.id, watched: true, changedAt: at })) });
  await db().watchEvent.createMany({ data: stored.map((episode) => ({ accountId: account.id, kind: 'episode', episodeId: episode.id, watched: true, at })) });
  return account;
}

describe('GET /api/export streaming', () => {
  it('sends a large library in many chunks, reading the database as the body is consumed', async () => {
    const account = await makeLargeLibrary(300, 20);
    const response = await app.fetch(new Request('http://airdate.test/api/export', { headers: { authorization: `Bearer ${account.token}` } }));
    expect(response.status).toBe(200);
    const queriesBefore = queryCounter();
    const reader = response.body!.getReader();
    const chunks: Uint8Array[] = [];
    let queriesAtFirstChunk = 0;
    for (let next = await reader.read(); !next.done; next = await reader.read()) {
      chunks.push(next.value);
      if (chunks.length === 1) queriesAtFirstChunk = queryCounter() - queriesBefore;
    }
    const queriesInAll = queryCounter() - queriesBefore;
    expect(chunks.length).toBeGreaterThanOrEqual(10);
    // Lazy: the first chunk went out after a few batches were read, not all of them.
    expect(queriesAtFirstChunk).toBeLessThan(queriesInAll / 2);
    expect(Math.max(...chunks.map((chunk) => chunk.byteLength))).toBeLessThan(256 * 1024);

    const document = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    expect(document.shows).toHaveLength(300);
    expect(document.shows.reduce((sum: number, show: any) => sum + show.episodes.length, 0)).toBe(6_000);
    const collected = await collectExport({ accountId: account.id });
    expect({ ...document, exportedAt: collected.exportedAt }).toEqual(collected);
  });
});

describe('GET /api/export failing midway', () => {
  it('ends the body with a line that keeps it from parsing, over real HTTP, and logs the failure', async () => {
    const account = await makeLargeLibrary(300, 5);
    const server = createServer(createServerAdapter((request: Request) => app.fetch(request)));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const logged = vi.spyOn(app.logger, 'error').mockImplementation(() => undefined);
    const reader = fastReader();
    const rows = reader.rows.bind(reader);
    let episodeReads = 0;
    // The first batch of shows (100 of 300) reads fine; the second batch's episodes do not.
    vi.spyOn(reader, 'rows').mockImplementation(async (sql, params) => {
      if (sql.startsWith('SELECT "id", "showId", "season"') && ++episodeReads === 2) throw new Error('disk gone');
      return rows(sql, params);
    });
    try {
      const { port } = server.address() as AddressInfo;
      const response = await fetch(`http://127.0.0.1:${port}/api/export`, { headers: { authorization: `Bearer ${account.token}` }, signal: AbortSignal.timeout(10_000) });
      expect(response.status).toBe(200);
      const body = await response.text();
      expect(body.endsWith(failureTrailer)).toBe(true);
      expect(body).toContain('"title":"Large 99"');
      expect(body).not.toContain('"title":"Large 100"');
      expect(() => JSON.parse(body)).toThrow();
      expect(logged).toHaveBeenCalledWith({ err: expect.objectContaining({ message: 'disk gone' }) }, expect.stringMatching(/^export of account \d+ failed while streaming$/));
    } finally {
      server.close();
    }
  });
});
