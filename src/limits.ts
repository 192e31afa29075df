/**
 * Every fixed bound of the product, in one place: the README's "Limits" table lists these and the
 * configurable ones (`config.limits`, read from the environment), and every check refers here.
 *
 * Lengths are counted in UTF-16 code units (JavaScript's `length`: a letter of any script is one,
 * an emoji two), so a bound on characters is also a bound on bytes (at most 3 per unit in UTF-8).
 */

/** The largest value the database's INTEGER columns hold (32-bit on PostgreSQL, GraphQL's `Int`). */
export const maxIntColumn = 2_147_483_647;

/** Longest text a person or program may send, per input. Longer is refused (400) before any database work. */
export const inputLengths = {
  /** Account names (`user create`, GraphQL). */
  accountName: 64,
  /** IANA time zone names; the longest real one has 32 characters. */
  timezone: 64,
  /** The webhook URL. */
  webhookUrl: 2_048,
  /** `searchCatalog(query:)`. */
  searchQuery: 200,
  /** An API token as sent (`adt_` + 38); anything longer is refused without a lookup. */
  apiToken: 64,
} as const;

/**
 * Longest values a catalog row may hold, whoever brings them in (an import, the offline file, a
 * network catalog): catalog rows are shared by every account, so one account's file must not be
 * able to make another account's feeds or calendar huge.
 */
export const catalogLengths = {
  /** Show, movie, game and episode titles. */
  title: 500,
  /** Overviews. */
  overview: 10_000,
  /** Poster URLs. */
  posterUrl: 1_024,
} as const;

/** Calendar dates (air and release dates) outside this range are refused. */
export const catalogDateRange = { earliest: '1800-01-01', latest: '2199-12-31' } as const;

/**
 * Watch-history timestamps: from this instant to a day past the present (a clock slightly ahead
 * is fine; a watch in the future is not).
 */
export const historyTimeRange = { earliest: '1900-01-01T00:00:00.000Z', aheadOfNowMs: 24 * 60 * 60 * 1000 } as const;

/**
 * Bounds of one HTTP connection, set on the Node server (src/http/node-server.ts). Past them Node
 * refuses the request before the app sees it, and the server answers a short JSON error.
 */
export const httpLimits = {
  /** Request line and header fields together (Node's default): past it, 431. */
  requestHeaderBytes: 16 * 1024,
  /** Time to receive the request line and headers (Node's default): past it, 408. */
  headersTimeoutMs: 60_000,
  /** Time to receive a whole request, body included (Node's default; 50 MB at ~1.4 Mbit/s): past it, 408. */
  requestTimeoutMs: 300_000,
  /** How often Node checks the two timeouts above (its default), so they can be late by up to this. */
  timeoutCheckMs: 30_000,
  /** Idle keep-alive connections are closed after this; above the 60 s of common load balancers. */
  keepAliveTimeoutMs: 65_000,
  /** How long a connection refused at the edge is kept open for the client to read the answer. */
  refusedLingerMs: 2_000,
  /** Longest part of a request target quoted back in an error message or a log line. */
  quotedTargetChars: 200,
} as const;

/** The shape of `httpLimits`, with any numbers (tests shorten the timeouts). */
export type HttpLimits = Record<keyof typeof httpLimits, number>;

/**
 * Windows of the rate limits (src/http/rate-limit.ts), in seconds: a key gets its limit's points
 * per window, counted from its first request in it. `requests`: every token-carrying request of an
 * account (AIRDATE_RATE_LIMIT_PER_MINUTE).
 */
export const rateLimitWindowSeconds = { requests: 60 } as const;
