import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { addDays, localDate } from '../../src/time/dates.ts';
import { acceptsGzip, chooseCoding } from '../../src/http/compression.ts';
import { setFollow } from '../../src/library/library.ts';
import { useTestApp } from '../support/database.ts';
import { makeAccount, makeShow } from '../support/factories.ts';

const { app } = await useTestApp();

/** An account whose summary and calendar are well over 1 KB: six followed shows, a dozen episodes each. */
async function busyAccount() {
  const account = await makeAccount();
  const today = localDate('UTC', new Date());
  for (let index = 0; index < 6; index += 1) {
    const episodes = Array.from({ length: 12 }, (_, position) => ({ number: position + 1, airDate: addDays(today, position - 6) }));
    const show = await makeShow({ title: `Compressed Show ${index}`, episodes });
    await setFollow({ accountId: account.id, kind: 'show', id: show.id, followed: true });
  }
  return account;
}

/** The raw answer: status, headers and the body's bytes as sent (not decoded). */
async function fetchRaw(path: string, token: string | undefined, headers: Record<string, string> = {}, method = 'GET') {
  const all = token === undefined ? headers : { ...headers, authorization: `Bearer ${token}` };
  const response = await app.fetch(new Request(new URL(path, 'http://airdate.test'), { method, headers: all }));
  return { status: response.status, headers: response.headers, body: Buffer.from(await response.arrayBuffer()) };
}

const decoders = { gzip: gunzipSync, br: brotliDecompressSync };

describe('response compression', () => {
  it.each(['/api/machine/summary', '/api/calendar.ics'])('%s: gzip and br bodies decompress to the plain body, repeated ones from the cache', async (path) => {
    const account = await busyAccount();
    const plain = await fetchRaw(path, account.token);
    expect(plain.status).toBe(200);
    expect(plain.body.byteLength).toBeGreaterThan(1024);
    expect(plain.headers.get('content-encoding')).toBeNull();
    expect(plain.headers.get('vary')).toMatch(/accept-encoding/i);
    for (const coding of ['gzip', 'br'] as const) {
      const first = await fetchRaw(path, account.token, { 'accept-encoding': coding });
      expect(first.headers.get('content-encoding')).toBe(coding);
      expect(Number(first.headers.get('content-length'))).toBe(first.body.byteLength);
      expect(first.body.byteLength).toBeLessThan(plain.body.byteLength / 2);
      expect(decoders[coding](first.body).equals(plain.body)).toBe(true);
      expect(first.headers.get('vary')).toMatch(/accept-encoding/i);
      // Another representation: the tag turns weak, and still revalidates.
      expect(first.headers.get('etag')).toBe(`W/${plain.headers.get('etag')}`);
      const again = await fetchRaw(path, account.token, { 'accept-encoding': coding });
      expect(again.body.equals(first.body)).toBe(true);
      const revalidated = await fetchRaw(path, account.token, { 'accept-encoding': coding, 'if-none-match': first.headers.get('etag')! });
      expect(revalidated.status).toBe(304);
      expect(revalidated.body.byteLength).toBe(0);
    }
  });

  it('follows the weights of Accept-Encoding, q=0 refusing a coding', async () => {
    const account = await busyAccount();
    const codingFor = async (acceptEncoding: string) =>
      (await fetchRaw('/api/machine/summary', account.token, { 'accept-encoding': acceptEncoding })).headers.get('content-encoding');
    expect(await codingFor('gzip, deflate, br')).toBe('br');
    expect(await codingFor('gzip;q=1.0, br;q=0.5')).toBe('gzip');
    expect(await codingFor('br;q=0, gzip')).toBe('gzip');
    expect(await codingFor('br;q=0, gzip;q=0')).toBeNull();
    expect(await codingFor('identity')).toBeNull();
    expect(await codingFor('deflate')).toBeNull();
    expect(await codingFor('*;q=0')).toBeNull();
    expect(await codingFor('br;q=0, *')).toBe('gzip');
  });

  it('leaves HEAD, small answers and errors plain', async () => {
    const account = await busyAccount();
    const head = await fetchRaw('/api/machine/summary', account.token, { 'accept-encoding': 'gzip, br' }, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.headers.get('content-encoding')).toBeNull();
    expect(head.body.byteLength).toBe(0);
    const refused = await fetchRaw('/api/machine/summary', undefined, { 'accept-encoding': 'gzip, br' });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('content-encoding')).toBeNull();
    expect(JSON.parse(refused.body.toString()).error).toMatch(/token/);
    const small = await fetchRaw('/healthz', undefined, { 'accept-encoding': 'gzip' });
    expect(small.headers.get('content-encoding')).toBeNull();
    expect(JSON.parse(small.body.toString())).toEqual({ ok: true });
  });
});

describe('chooseCoding', () => {
  it('reads weights, wildcards and malformed values', () => {
    expect(chooseCoding(null)).toBeUndefined();
    expect(chooseCoding('')).toBeUndefined();
    expect(chooseCoding('GZIP')).toBe('gzip');
    expect(chooseCoding('x-gzip')).toBe('gzip');
    expect(chooseCoding('br;q=0.001, gzip;q=0.002')).toBe('gzip');
    expect(chooseCoding('br;q=abc, gzip;q=0')).toBeUndefined();
    expect(chooseCoding('br;q=2')).toBeUndefined();
    expect(chooseCoding(',,;;, br ; q = 1')).toBe('br');
  });
});

describe('acceptsGzip (files kept gzipped only)', () => {
  it('takes gzip named, as x-gzip or through the wildcard, and never with q=0', () => {
    for (const header of ['gzip', 'br, gzip', 'GZIP;q=0.5', 'x-gzip', '*', 'br;q=1, *;q=0.1', 'br, gzip;q=0.001']) expect(acceptsGzip(header), header).toBe(true);
    for (const header of [null, '', 'br', 'identity', 'gzip;q=0', 'gzip;q=0, *', '*;q=0', 'gzip;q=abc', 'gzipped', 'br;q=1, gzip;q=0.0']) expect(acceptsGzip(header), String(header)).toBe(false);
  });
});
