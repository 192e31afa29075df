import net from 'node:net';

/** One HTTP response as read off a socket. */
export interface RawResponse {
  status: number;
  /** Header names in lower case. */
  headers: Record<string, string>;
  body: string;
  /** The whole answer as received, for messages. */
  raw: string;
}

/**
 * Sends `bytes` exactly as given (latin1: one byte per character) to `port` on 127.0.0.1 over a
 * fresh connection and reads the responses until the connection closes or `expect` responses
 * (each framed by its Content-Length) have arrived. `holdMs`: how long to keep the connection
 * open for answers before giving up (the request may be incomplete on purpose). Answers to HEAD
 * requests cannot be framed this way.
 */
export function rawRequest(port: number, bytes: string, options: { expect?: number; holdMs?: number } = {}): Promise<RawResponse[]> {
  const expect = options.expect ?? 1;
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let received = Buffer.alloc(0);
    let settled = false;
    const finish = () => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(parseResponses(received));
    };
    const timer = setTimeout(finish, options.holdMs ?? 5_000);
    socket.on('data', (chunk) => {
      received = Buffer.concat([received, chunk]);
      if (parseResponses(received).length >= expect) finish();
    });
    socket.on('close', finish);
    socket.on('error', (error: NodeJS.ErrnoException) => {
      // A reset after the answer arrived still leaves the answer readable.
      if (error.code === 'ECONNRESET') finish();
      else if (!settled) reject(error);
    });
    socket.write(Buffer.from(bytes, 'latin1'));
  });
}

/** Complete responses in `data`, each framed by its Content-Length (absent: the rest; none for 1xx, 204, 304). */
function parseResponses(data: Buffer): RawResponse[] {
  const responses: RawResponse[] = [];
  let offset = 0;
  while (offset < data.length) {
    const headEnd = data.indexOf('\r\n\r\n', offset);
    if (headEnd < 0) break;
    const head = data.subarray(offset, headEnd).toString('latin1');
    const [statusLine, ...lines] = head.split('\r\n');
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    const status = Number(/^HTTP\/\d\.\d (\d{3})/.exec(statusLine!)?.[1] ?? NaN);
    // Interim (1xx), 204 and 304 answers have no body.
    const bodiless = status < 200 || status === 204 || status === 304;
    const length = bodiless ? 0 : headers['content-length'] === undefined ? data.length - headEnd - 4 : Number(headers['content-length']);
    const bodyEnd = headEnd + 4 + length;
    if (bodyEnd > data.length) break;
    responses.push({
      status,
      headers,
      body: data.subarray(headEnd + 4, bodyEnd).toString('utf8'),
      raw: data.subarray(offset, bodyEnd).toString('latin1'),
    });
    offset = bodyEnd;
  }
  return responses;
}
