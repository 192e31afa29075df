/** A libraryChanged event as a stream carries it. */
export interface StreamEvent {
  data?: { libraryChanged: { feedVersion: number } };
  errors?: { message: string }[];
}

/**
 * A GraphQL subscription over server-sent events, read as a client does: a GET of `url` with
 * `Accept: text/event-stream` and `headers`. One read of the body is kept between calls, so a
 * wait that times out loses nothing.
 */
export async function openEventStream(url: URL | string, headers: Record<string, string>) {
  const controller = new AbortController();
  const response = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: controller.signal });
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let buffered = '';
  let ended = false;
  let reading: Promise<ReadableStreamReadResult<Uint8Array>> | undefined;
  /** Takes in what arrives within `ms`; false once `ms` pass with nothing. */
  const take = async (ms: number): Promise<boolean> => {
    if (ended) return false;
    reading ??= reader.read();
    const chunk = await Promise.race([reading, new Promise<'timeout'>((done) => setTimeout(() => done('timeout'), ms))]);
    if (chunk === 'timeout') return false;
    reading = undefined;
    if (chunk.done) ended = true;
    else buffered += decoder.decode(chunk.value, { stream: true });
    return true;
  };
  const eventsTold = () => (buffered.match(/^event: next$/gm) ?? []).length;
  return {
    response,
    /** The next `event: next` of the stream, parsed; undefined at its end or after `ms`. */
    async next(ms = 10_000): Promise<StreamEvent | undefined> {
      const deadline = Date.now() + ms;
      for (;;) {
        const match = /event: next\ndata: (.*)\n\n/.exec(buffered);
        if (match) {
          buffered = buffered.slice(match.index + match[0].length);
          return JSON.parse(match[1]!) as StreamEvent;
        }
        if (ended || !(await take(Math.max(0, deadline - Date.now())))) return undefined;
      }
    },
    /** Reads until the stream ends or `ms` pass: whether it ended, and how many events it told meanwhile (not taken by `next`). */
    async untilEnd(ms = 10_000): Promise<{ ended: boolean; events: number }> {
      const deadline = Date.now() + ms;
      while (!ended && (await take(Math.max(0, deadline - Date.now()))));
      return { ended, events: eventsTold() };
    },
    /** Everything up to the end of the answer (a refusal's whole body). */
    async rest(): Promise<string> {
      while (!ended) await take(60_000);
      return buffered;
    },
    async close(): Promise<void> {
      await reader.cancel().catch(() => undefined);
      controller.abort();
    },
  };
}
