import { createHash } from 'node:crypto';
import { Response } from '@whatwg-node/fetch';
import { jsonBytes } from './responses.ts';
import { createAccountCache } from './account-cache.ts';

/**
 * Serialized feed answers (the summary and the narrow feeds) kept per account under a version
 * key, each with the ETag that names exactly those bytes: a repeated request costs the token
 * check and a copy, and a client that sends the ETag back in If-None-Match gets a 304 without
 * anything being computed or rendered.
 *
 * The key is built from versions every change bumps (feed and catalog versions, local date, time
 * zone, and the endpoint's own parameters), so a body under an unchanged key is still right. A body
 * that holds `generatedAt` holds the time it was made (docs/decisions.md, "Decisions beyond the
 * specification"): it stays byte-identical as long as it is cached, so its ETag is a strong one,
 * derived from the key and that time rather than from a hash of the whole body.
 */

/**
 * The caching of an account's feed or calendar, on the 200 and the 304 alike: kept by no shared
 * cache (`private`: a proxy between the person and the server, whatever it thinks of a `?token=`
 * URL), and by the client's own only to be revalidated each time (`no-cache`), which its
 * If-None-Match and our 304 make cheap. The rest of an account's answers are `no-store` (app.ts).
 */
export const accountCaching = { 'cache-control': 'private, no-cache' } as const;

/** One account's cached answer of one endpoint. */
interface FeedBody {
  body: Buffer;
  etag: string;
}

/** Answers a feed endpoint from its cache, rendering on a miss. */
export interface FeedBodies {
  /**
   * The answer for `accountId` under `key`: 304 when If-None-Match names the cached body, else
   * the body with its ETag. `render` makes the body on a miss, given the time it stands for.
   */
  answer(request: Request, accountId: number, key: string, render: (generatedAt: Date) => Promise<Buffer>): Promise<Response>;
  /** The headers of the 304 `answer` would give when the kept body under `key` matches `ifNoneMatch`; undefined otherwise (nothing rendered). */
  notModified(accountId: number, key: string, ifNoneMatch: string): Record<string, string> | undefined;
}

/** A cache of `name`'s answers for up to `capacity` accounts (one body each: the latest key). */
export function createFeedBodies(name: string, capacity: number): FeedBodies {
  const bodies = createAccountCache<FeedBody>(capacity, `${name}-bodies`);
  return {
    async answer(request, accountId, key, render) {
      let cached = bodies.get(accountId, key);
      if (cached === undefined) {
        const generatedAt = new Date();
        const body = await render(generatedAt);
        // The account is in the tag: two accounts with equal versions never share one.
        const digest = createHash('sha256').update(`${accountId}\n${key}`).digest('base64url').slice(0, 22);
        cached = { body, etag: `"${name}-${digest}-${generatedAt.getTime().toString(36)}"` };
        bodies.set(accountId, key, cached);
      }
      if (matchesEtag(request.headers.get('if-none-match'), cached.etag)) {
        return new Response(null, { status: 304, headers: notModifiedHeaders(cached.etag) });
      }
      const response = jsonBytes(200, cached.body);
      response.headers.set('etag', cached.etag);
      response.headers.set('cache-control', accountCaching['cache-control']);
      return response;
    },
    notModified(accountId, key, ifNoneMatch) {
      const cached = bodies.get(accountId, key);
      return cached !== undefined && matchesEtag(ifNoneMatch, cached.etag) ? notModifiedHeaders(cached.etag) : undefined;
    },
  };
}

const notModifiedHeaders = (etag: string): Record<string, string> => ({ etag, ...accountCaching });

/** If-None-Match uses the weak comparison (RFC 9110 §13.1.2): `W/"x"` matches `"x"`; `*` matches any. */
export function matchesEtag(header: string | null, etag: string): boolean {
  if (header === null) return false;
  return header.split(',').some((candidate) => {
    const tag = candidate.trim();
    return tag === '*' || tag.replace(/^W\//, '') === etag;
  });
}
