import { describe, expect, it } from 'vitest';
import { regenerateToken } from '../../src/accounts/tokens.ts';
import { initSecretKey } from '../../src/keys/secret-key.ts';
import { setFollow } from '../../src/library/library.ts';
import { useTestDatabase } from '../support/database.ts';
import { makeAccount, makeShow } from '../support/factories.ts';
import { serverProcesses } from '../support/server-processes.ts';

// The early answers (src/early-answers.ts) of a real serve process, while another process (this
// test) writes to the same database: nothing it answers from what it kept may outlive a commit.

const config = await useTestDatabase();
initSecretKey(config);
const serve = serverProcesses(config);

describe('conditional GETs of a serve process while another process writes', () => {
  it('refuse a token regenerated elsewhere at once, and answer 200 once a follow elsewhere changed the feeds', { timeout: 60_000 }, async () => {
    const server = await serve();
    const account = await makeAccount();
    const show = await makeShow({ title: 'Early Show' });
    const get = (path: string, token: string, etag?: string) =>
      fetch(`${server.baseUrl}${path}`, { headers: { authorization: `Bearer ${token}`, ...(etag === undefined ? {} : { 'if-none-match': etag }) } });
    const paths = ['/api/calendar.ics', '/api/machine/summary', '/api/machine/widget'];
    const etags: string[] = [];
    for (const path of paths) {
      const first = await get(path, account.token);
      expect(first.status, path).toBe(200);
      etags.push(first.headers.get('etag')!);
      expect((await get(path, account.token, etags.at(-1))).status, path).toBe(304);
    }
    const token = await regenerateToken({ accountId: account.id });
    for (const [index, path] of paths.entries()) {
      const old = await get(path, account.token, etags[index]);
      expect(old.status, path).toBe(401);
      expect(await old.json()).toEqual({ error: 'invalid API token' });
      // The token is not in the key: the new one revalidates what the old one fetched.
      expect((await get(path, token, etags[index])).status, path).toBe(304);
    }
    await setFollow({ accountId: account.id, kind: 'show', id: show.id, followed: true });
    for (const [index, path] of paths.entries()) {
      const changed = await get(path, token, etags[index]);
      expect(changed.status, path).toBe(200);
      expect(changed.headers.get('etag'), path).not.toBe(etags[index]);
    }
  });
});
