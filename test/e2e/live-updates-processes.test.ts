import { describe, expect, it } from 'vitest';
import { initSecretKey } from '../../src/keys/secret-key.ts';
import { useTestDatabase } from '../support/database.ts';
import { makeAccount, makeShow } from '../support/factories.ts';
import { serverProcesses } from '../support/server-processes.ts';

// Two real `serve` processes on one database (the PostgreSQL run is the one that matters: several
// processes behind a load balancer): a stream opened on the first hears of a mark made through
// the second, and a stopping server ends its stream (the client sees the end, and it reconnects
// elsewhere), rather than holding the shutdown.
const config = await useTestDatabase();
initSecretKey(config);
const serve = serverProcesses(config, { AIRDATE_ROLE: 'web' });

/** The next `event: next` of a stream (undefined at its end or after `ms`). */
async function nextEvent(reader: ReadableStreamDefaultReader<Uint8Array>, state: { text: string }, ms = 15_000): Promise<string | undefined> {
  const deadline = Date.now() + ms;
  for (;;) {
    const match = /event: (next|complete)\ndata: ?(.*)\n\n/.exec(state.text);
    if (match) {
      state.text = state.text.slice(match.index + match[0].length);
      if (match[1] === 'complete') return undefined;
      return match[2];
    }
    const left = deadline - Date.now();
    if (left <= 0) return undefined;
    const chunk = await Promise.race([reader.read(), new Promise<'timeout'>((done) => setTimeout(() => done('timeout'), left))]);
    if (chunk === 'timeout' || chunk.done) return undefined;
    state.text += new TextDecoder().decode(chunk.value);
  }
}

describe('live updates across server processes', () => {
  it('a mark made through one process reaches a stream open on another; a stopping server ends its stream', { timeout: 90_000 }, async () => {
    const account = await makeAccount();
    const show = await makeShow({ episodes: [{ number: 1, airDate: '2024-01-01' }] });
    const [first, second] = await Promise.all([serve(), serve()]);
    const url = `${first.baseUrl}/graphql?query=${encodeURIComponent('subscription { libraryChanged { feedVersion } }')}`;
    const response = await fetch(url, { headers: { accept: 'text/event-stream', authorization: `Bearer ${account.token}` } });
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    const state = { text: '' };
    // The first process reads the account's versions when the stream opens; give it that read.
    await new Promise((done) => setTimeout(done, 1_500));
    const marked = await fetch(`${second.baseUrl}/api/machine/watched`, {
      method: 'POST',
      headers: { authorization: `Bearer ${account.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ kind: 'episode', id: show.episodes[0]!.id, watched: true }),
    });
    expect(marked.status).toBe(200);
    const event = await nextEvent(reader, state);
    expect(JSON.parse(event!)).toEqual({ data: { libraryChanged: { feedVersion: expect.any(Number) } } });

    // SIGTERM: the stream ends at once (not after the 25 s bound for requests under way).
    const started = Date.now();
    const stopping = first.stop();
    expect(await nextEvent(reader, state, 20_000)).toBeUndefined();
    await stopping;
    expect(Date.now() - started).toBeLessThan(20_000);
  });
});
