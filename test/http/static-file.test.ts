import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { sendStatic, staticFile, staticFiles } from '../../src/http/static-file.ts';

describe('staticFiles', () => {
  it('loads a file once for requests that arrive together, and again after a miss or a failure', async () => {
    const loads: string[] = [];
    let fail = true;
    const file = staticFiles(async (name) => {
      loads.push(name);
      await new Promise((resolve) => setTimeout(resolve, 10));
      if (name === 'broken' && fail) throw new Error('EIO');
      return name === 'missing' ? undefined : staticFile(Buffer.from(name.repeat(2_000)), 'text/plain', true);
    });
    const together = await Promise.all([file('a'), file('a'), file('a')]);
    expect(loads).toEqual(['a']);
    expect(together[0]).toBe(together[2]);
    expect(await file('a')).toBe(together[0]);
    expect(await file('missing')).toBeUndefined();
    expect(await file('missing')).toBeUndefined();
    await expect(file('broken')).rejects.toThrow('EIO');
    fail = false;
    expect((await file('broken'))?.body.byteLength).toBe(12_000);
    expect(loads).toEqual(['a', 'missing', 'missing', 'broken', 'broken']);
  });
});

describe('sendStatic', () => {
  it('sends the gzip to a client that takes it, the plain bytes otherwise, nothing for HEAD', async () => {
    const file = await staticFile(Buffer.from('x'.repeat(5_000)), 'text/plain; charset=utf-8', true);
    const get = (headers: Record<string, string>, method = 'GET') => sendStatic(new Request('http://a.test/f', { method, headers }), file, { 'cache-control': 'no-cache' });
    const zipped = get({ 'accept-encoding': 'gzip' });
    expect([zipped.headers.get('content-encoding'), zipped.headers.get('vary'), zipped.headers.get('cache-control')]).toEqual(['gzip', 'accept-encoding', 'no-cache']);
    expect(gunzipSync(Buffer.from(await zipped.arrayBuffer())).equals(file.body)).toBe(true);
    const plain = get({ 'accept-encoding': 'br, gzip;q=0' });
    expect(plain.headers.get('content-encoding')).toBeNull();
    expect(Buffer.from(await plain.arrayBuffer()).equals(file.body)).toBe(true);
    const head = get({ 'accept-encoding': 'gzip' }, 'HEAD');
    expect([head.status, head.headers.get('content-length'), (await head.arrayBuffer()).byteLength]).toEqual([200, String(file.gzipped!.byteLength), 0]);
    const small = await staticFile(Buffer.from('tiny'), 'text/plain', true);
    expect(small.gzipped).toBeUndefined();
  });
});
