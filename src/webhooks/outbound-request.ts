import { lookup as dnsLookup } from 'node:dns';
import type { LookupAddress } from 'node:dns';
import { request as httpRequest } from 'node:http';
import type { ClientRequest, IncomingHttpHeaders, IncomingMessage, RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Socket } from 'node:net';
import { PolicyRefusal, readCapped } from './send-helpers.ts';
import { checkAddress } from './target-policy.ts';
import type { TargetPolicy } from './target-policy.ts';

/**
 * A resolver with `dns.lookup`'s calling convention, called with `{ all: true }`; `dns.lookup`
 * itself is the default, tests inject their own.
 */
export type LookupFunction = (
  hostname: string,
  options: { all: true },
  callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

/** Properties of {@link requestUnderPolicy}. */
export interface OutboundRequestProps {
  /** An http:// or https:// URL; user and password in it become Basic authentication. */
  url: URL;
  method: string;
  /** Header names as they are to be sent; content-length is added. */
  headers: Record<string, string>;
  /** The request body, sent as it is; none for a GET. */
  body?: Buffer;
  /** Which addresses may be connected to. */
  policy: TargetPolicy;
  /** The deadline of the whole exchange: resolving, connecting, sending and waiting for the status. */
  deadline: Deadline;
  /** Most bytes of the answer's body read; the rest is never read and the connection is closed. */
  maxResponseBytes: number;
  /** Resolver; `dns.lookup` unless given. */
  lookup?: LookupFunction;
  /** Certificates trusted on top of the system's (tests with a self-signed peer only). */
  trustedCertificates?: readonly string[];
}

/** What the peer answered, with at most `maxResponseBytes` of its body. */
export interface OutboundAnswer {
  status: number;
  statusMessage: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** The deadline of an exchange passed: a network failure worth retrying. */
export class DeadlineExceeded extends Error {}

/**
 * One HTTP exchange with a peer under the outbound address policy (AIRDATE_WEBHOOK_ALLOWED_HOSTS):
 * the host name is resolved once, every address is checked, Node is handed only the allowed
 * ones (no second resolution for a rebinding DNS server to answer differently), and the socket's
 * remote address is checked again before anything is written. Redirects are never followed.
 * Throws PolicyRefusal when the policy forbids the peer, DeadlineExceeded when the deadline passes
 * before the status arrives, and Node's own errors for network failures.
 */
export async function requestUnderPolicy(props: OutboundRequestProps): Promise<OutboundAnswer> {
  const target = await props.deadline.race(resolveTarget(props.url, props.policy, props.lookup ?? (dnsLookup as LookupFunction)));
  // Not raced: once the status has arrived, a body still trickling in at the deadline does not
  // turn the answer into a timeout (exchange settles with the status then).
  return exchange(props, target);
}

/** Where to connect: a literal IP, or a host name with the allowed addresses it resolved to. */
export interface ResolvedTarget {
  hostname: string;
  addresses: LookupAddress[];
}

/**
 * The allowed addresses of a URL's host: a literal IP checked as it is, a name resolved once
 * with every answer checked. Throws PolicyRefusal when none is allowed. Also used for the SMTP
 * connections of mail channels, which connect to the address this returns.
 */
export async function resolveTarget(url: { hostname: string }, policy: TargetPolicy, lookup: LookupFunction = dnsLookup as LookupFunction): Promise<ResolvedTarget> {
  // WHATWG URL has already turned 0x7f000001, 2130706433, 127.1 and 0177.0.0.1 into 127.0.0.1,
  // and writes IPv6 in brackets; a literal is checked as it is, without a resolver.
  const hostname = url.hostname.replace(/^\[|\]$/g, '');
  const literal = checkLiteral(hostname);
  if (literal !== null) {
    const check = checkAddress(policy, hostname, hostname);
    if (!check.allowed) throw new PolicyRefusal(check.reason);
    return { hostname, addresses: [literal] };
  }
  const resolved = await new Promise<LookupAddress[]>((resolve, reject) => {
    lookup(hostname, { all: true }, (error, addresses) => {
      if (error) reject(error);
      // A resolver that ignores `all` answers one address as a string.
      else resolve(typeof addresses === 'string' ? [{ address: addresses, family: (addresses as string).includes(':') ? 6 : 4 }] : addresses);
    });
  });
  if (resolved.length === 0) throw Object.assign(new Error('no address'), { code: 'ENOTFOUND' });
  // A name can hold refused addresses next to allowed ones (a LAN host's link-local IPv6 next to
  // its private IPv4, say); only the allowed ones are ever handed to the socket.
  const checks = resolved.map((entry) => ({ entry, check: checkAddress(policy, entry.address, hostname) }));
  const allowed = checks.filter(({ check }) => check.allowed).map(({ entry }) => entry);
  if (allowed.length === 0) {
    const refusal = checks.find(({ check }) => !check.allowed)!.check as { reason: string };
    throw new PolicyRefusal(refusal.reason);
  }
  return { hostname, addresses: allowed };
}

function checkLiteral(hostname: string): LookupAddress | null {
  if (/^[\d.]+$/.test(hostname)) return { address: hostname, family: 4 };
  if (hostname.includes(':')) return { address: hostname, family: 6 };
  return null;
}

/** One request over a fresh connection (no agent pool: every socket is checked afresh). */
function exchange(props: OutboundRequestProps, target: ResolvedTarget): Promise<OutboundAnswer> {
  const { url } = props;
  const bodyBytes = props.body ?? Buffer.alloc(0);
  const headers = props.body === undefined ? props.headers : { ...props.headers, 'content-length': String(bodyBytes.length) };
  const options: RequestOptions = {
    method: props.method,
    host: target.hostname,
    port: url.port === '' ? undefined : Number(url.port),
    path: `${url.pathname}${url.search}`,
    headers,
    auth: url.username || url.password ? `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}` : undefined,
    agent: false,
    // Hands out the addresses checked above; Node never asks DNS again.
    lookup: ((_hostname: string, options: { all?: boolean; family?: number }, callback: (...args: unknown[]) => void) => {
      const family = options.family === 4 || options.family === 6 ? options.family : undefined;
      const usable = target.addresses.filter((entry) => family === undefined || entry.family === family);
      if (usable.length === 0) callback(Object.assign(new Error('no allowed address of that family'), { code: 'ENOTFOUND' }));
      else if (options.all) callback(null, usable);
      else callback(null, usable[0]!.address, usable[0]!.family);
    }) as RequestOptions['lookup'],
  };
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  if (url.protocol === 'https:' && props.trustedCertificates?.length) {
    (options as { ca?: string[] }).ca = [...props.trustedCertificates];
  }

  return new Promise<OutboundAnswer>((resolve, reject) => {
    const request: ClientRequest = send(options);
    let answer: OutboundAnswer | undefined;
    props.deadline.onExpire(() => {
      if (answer) resolve(answer);
      request.destroy(new DeadlineExceeded());
    });
    request.on('error', reject);
    request.on('socket', (socket: Socket) => {
      // Nothing is written before the connected address has been checked again.
      const whenConnected = () => {
        const remote = socket.remoteAddress;
        const check = remote === undefined ? { allowed: false as const, reason: 'the connection has no remote address' } : checkAddress(props.policy, remote, target.hostname);
        if (!check.allowed) request.destroy(new PolicyRefusal(check.reason));
        else request.end(bodyBytes);
      };
      if (socket.connecting) socket.once('connect', whenConnected);
      else whenConnected();
    });
    request.on('response', (response: IncomingMessage) => {
      answer = {
        status: response.statusCode ?? 0,
        statusMessage: response.statusMessage ?? '',
        headers: response.headers,
        body: Buffer.alloc(0),
      };
      // Only the first bytes are read so the answer completes, then the connection is closed, so a
      // huge answer can neither hold memory nor the attempt.
      void readCapped(response, props.maxResponseBytes).then((bytes) => {
        answer!.body = bytes;
        request.destroy();
        resolve(answer!);
      });
    });
  });
}

/** One timer for a whole exchange; whatever is racing it loses when it fires. */
export class Deadline {
  private readonly timer: NodeJS.Timeout;
  private readonly expired: Promise<never>;
  private readonly listeners: (() => void)[] = [];

  constructor(timeoutMs: number) {
    let expire!: (error: Error) => void;
    this.expired = new Promise<never>((_, reject) => (expire = reject));
    this.expired.catch(() => {});
    this.timer = setTimeout(() => {
      for (const listener of this.listeners) listener();
      expire(new DeadlineExceeded());
    }, Math.max(timeoutMs, 1));
  }

  race<T>(promise: Promise<T>): Promise<T> {
    return Promise.race([promise, this.expired]);
  }

  onExpire(listener: () => void): void {
    this.listeners.push(listener);
  }

  clear(): void {
    clearTimeout(this.timer);
  }
}
