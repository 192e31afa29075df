/**
 * Every fixed bound of the product, in one place: docs/configuration.md's "Limits" table lists these and the
 * configurable ones (`config.limits`, read from the environment), and every check refers here.
 *
 * Lengths are counted in characters, that is Unicode code points (a letter of any script is one, an
 * emoji such as 🎬 one), which is what SQL's length() and substr() count on SQLite and PostgreSQL
 * alike: the repair migration of over-long stored values (prisma/migrations/*_catalog_value_bounds)
 * then shortens exactly as the runtime checks do (src/value-bounds.ts). A bound on characters is
 * also a bound on bytes: at most 4 per character in UTF-8.
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
  /**
   * One record of an imported CSV file (TV Time, Grouvee, Letterboxd, IMDb): the characters of all
   * its cells (delimiters, quotes and the line break not counted). Real rows are well under 4 000;
   * Grouvee's longest carry JSON lists of shelves, genres and developers.
   */
  importCsvRecord: 65_536,
  /**
   * An import item's own id or URI at its source (Grouvee id, Letterboxd URI, TV Time uuid): echoed
   * in the report and kept with a pending import. Real ones are under 60 characters.
   */
  importSourceId: 500,
} as const;

/**
 * Notification channels (src/notifications/notification-channels.ts, docs/notifications.md): a
 * bound per account, so that one account cannot make every release fan out to thousands of sends,
 * and the longest name. A browser subscribed for web push is a channel too.
 */
export const channelLimits = {
  /** Channels of one account, web push devices and the signed webhook included. */
  perAccount: 20,
  /** A channel's name, in characters. */
  nameLength: 100,
  /**
   * Deliveries to one channel that end failed in a row (each after its retries) before the channel
   * is turned off and the account's other channels are told: a channel broken for good (a revoked
   * token, a deleted chat) stops costing a send per release, one down for an hour does not.
   */
  failuresInARow: 10,
} as const;

/**
 * Longest values a catalog row may hold, whoever brings them in (an import, the offline file, a
 * network catalog): catalog rows are shared by every account, so one account's file must not be
 * able to make another account's feeds or calendar huge. Longer values are refused from imports
 * and the offline file, and shortened to the limit (ending in "…") from the network catalogs.
 */
export const catalogLengths = {
  /** Show, movie, game and episode titles. */
  title: 500,
  /** Overviews. */
  overview: 10_000,
  /** Poster URLs. */
  posterUrl: 1_024,
} as const;

/**
 * Calendar dates (air and release dates) outside this range are refused from imports and the
 * offline file, and dropped (stored as unknown) from the network catalogs.
 */
export const catalogDateRange = { earliest: '1800-01-01', latest: '2199-12-31' } as const;

/**
 * Running times (episodes, movies) in whole minutes: from 1 to a week (the longest films run
 * about 14 000 minutes). Refused outside from the offline file, stored as unknown from the network
 * catalogs, which give 0 for "not known".
 */
export const catalogRuntimeMinutes = { min: 1, max: 20_160 } as const;

/**
 * Watch-history timestamps: from this instant to a day past the present (a clock slightly ahead
 * is fine; a watch in the future is not).
 */
export const historyTimeRange = { earliest: '1900-01-01T00:00:00.000Z', aheadOfNowMs: 24 * 60 * 60 * 1000 } as const;

/**
 * Page sizes of every GraphQL list that grows with the library or the catalog: `default` when the
 * client asks for none, `max` the most one page may hold (asking for more is a 400). The cost of a
 * GraphQL document multiplies each list's selection by its page size, so what a document may ask
 * for is known before anything runs.
 */
export const listLimits = {
  /** `Show.episodes(first, offset)`. */
  episodes: { default: 100, max: 500 },
  /** `searchCatalog(first)`: the catalog service never finds more than this. */
  search: { default: 20, max: 50 },
  /** Relay connections: `library`, `Account.notifications`. */
  connection: { default: 20, max: 100 },
  /** `Notification.deliveries(first, offset)`. */
  deliveries: { default: 20, max: 100 },
  /** `Summary.upNext/today/week/releasing(first)`; the REST feeds answer up to `max`. */
  feedItems: { default: 200, max: 5_000 },
  /** `Calendar.events(first, offset)`; `calendar.ics` holds up to `max` events. */
  calendarEvents: { default: 500, max: 20_000 },
  /** `statistics { shows(first, offset) }`: the most-watched shows of a year. */
  statisticsShows: { default: 10, max: 100 },
  /** `export { shows/movies/games(first, offset) }`. */
  exportItems: { default: 10, max: 500 },
  /** `ExportShow.episodes(first, offset)`. */
  exportEpisodes: { default: 50, max: 1_000 },
  /** `history(first, offset)` of an export episode, movie or game. */
  history: { default: 10, max: 1_000 },
  /** `Account.pendingImports(first, offset)`: unmatched import items still waiting for a catalog. */
  pendingImports: { default: 50, max: 500 },
  /** `accounts(first, offset)`: the administration page's list. */
  adminAccounts: { default: 50, max: 500 },
  /** `watchHistory(first, offset)`: the history page's entries, newest first. */
  watchHistory: { default: 50, max: 200 },
  /** `Account.sessions` (no arguments): the newest `max` sessions; an account rarely has more than a few. */
  accountSessions: { default: 100, max: 100 },
} as const;

/**
 * The `home-assistant` summary profile (docs/api.md "Summary"), sized so each sensor the Home Assistant
 * integration builds fits Home Assistant: the recorder drops a state's attributes whose JSON passes
 * 16 384 bytes, and a state longer than 255 characters makes the sensor `unknown`. Texts are
 * measured in "JSON cost": the most bytes they take in a JSON string, as UTF-8 or as Python's
 * json.dumps writes them (ASCII, `\uXXXX` escapes), whichever is more (src/feeds/home-assistant-summary.ts).
 */
export const homeAssistantSummary = {
  /** Home Assistant's limits. */
  attributesBytes: 16_384,
  stateCharacters: 255,
  /**
   * Items of `upNext`, `today` and `week`. An item at its largest is 137 bytes of keys, 10-digit
   * ids, the longest episode code and `, ` / `: ` separators, plus two texts of `textCost`, plus
   * 2 between items: 649 bytes; 25 of them in `{"up_next": [...]}` are 16 238 bytes.
   */
  listItems: 25,
  /** Largest JSON cost of an item's `show` and `episode_title`: the state limit, so `next.show` fits it too. */
  textCost: 255,
  /**
   * Largest JSON cost of a `releasing` item's `title` (an episode's: the show and its code). Such an
   * item is at most 76 + 40 + 2 bytes: `releasing` (never cut) fits whatever the titles up to
   * 138 items, and further with shorter titles.
   */
  releasingTitleCost: 40,
} as const;

/**
 * What a field costs itself, beside its selection, where that is more than one unit: a unit is
 * about the work of one value read through Prisma (~6 µs). A search scans every stored title
 * (three queries, ~20 ms at 1 000 shows), a calendar loads each day of its window, a summary is
 * computed over the whole library when it is not cached. Each episode a `Show.episodes` page can
 * hold costs `episodeRow` on top of its selection: Prisma reads a page of shows' episodes in one
 * query and builds its rows in one piece of work (100 shows × 48 episodes held the event loop
 * 40-70 ms), whatever few fields are selected. `Show.seasons` reads every episode of the show and
 * the viewer's marks on them once (~3 ms for 2,700 episodes), answering one row per season.
 */
export const fieldCosts = { search: 1_000, calendarPerDay: 1, summary: 200, episodeRow: 4, statistics: 200, showSeasons: 100 } as const;

/**
 * Lists of a mutation's answer that the request itself bounds (an import's `skipped` and
 * `unmatched`: at most one entry per item of the upload): counted at this size in the cost.
 */
export const reportListWeight = 100;

/**
 * Time bounds of database transactions. An import request is one transaction over all its files
 * (all or nothing), rolled back if it runs longer than `importMs`. On SQLite, which runs one
 * transaction at a time, any other transaction waits up to `sqliteWaitMs` for its turn (an import
 * of the largest upload allowed takes tens of seconds there) before it fails; Prisma's default
 * is 2 s.
 */
export const transactionTimes = { importMs: 300_000, sqliteWaitMs: 60_000 } as const;

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

/**
 * Catalog lookups an import request makes before its transaction (src/imports/import-prepass.ts)
 * for ids the database does not know yet (TV Time's episode ids, imdb-only movies, Giant Bomb
 * games): at most `perRequest` ids (the rest stay unmatched and are reported; a TV Time account
 * of ~200 shows has a few thousand watched episodes, but one lookup per show resolves all of its
 * episodes, so the limit counts lookups, not ids), `concurrent` at a time (TMDB allows ~40/s,
 * IGDB 4/s with 8 open; the HTTP clients pace requests themselves).
 */
export const importCatalogLookups = { perRequest: 2_000, concurrent: 4 } as const;

/**
 * What one import request may list across its files (src/imports/import-rows.ts), refused with
 * 413 naming the bound: `perRequest` entries, counting every show, film, game, episode, episode
 * reference, watch-history entry and skipped line the parsed files hold (a CSV row is one or two:
 * the item and its viewing). The largest real exports stay well under it (a Trakt history of
 * 100 000 plays, 450 shows and 5 000 films: 200 900); past it, one request would hold the
 * writer and hundreds of MB for minutes. A CSV file with more data rows than `perRequest` is
 * refused while it is read, before its rows are made into items. Split a bigger library into
 * several imports: the merge rules make each one add only what is new.
 */
export const importRows = { perRequest: 500_000 } as const;

/**
 * Reading an import's files (inflating its zips, parsing and validating every file) runs in a
 * worker thread, never on the event loop (src/imports/read-off-loop.ts): `heapMb` is the worker's
 * JavaScript heap (V8's old generation; the inflated entries themselves are bounded by the zip
 * limits, at most 256 MiB), `timeoutMs` how long it may take; past either the worker is ended and
 * the request answered 413, nothing written. A generated Trakt history of 240 000 plays in one
 * 96 MB JSON file (about the largest real exports; 480 000 entries) needs more than 160 MB and is
 * read within 256 MB (13 s at a load average of 15 on 2 cores); the issue's 122 MiB entry of 14
 * million objects does not fit (413 when the worker reaches its bound, after ~50 s of one core).
 * `concurrent`: workers at once per process (each holds up to heapMb and its inflated entries);
 * further imports, each of another account (one import at a time per account), wait their turn.
 */
export const importReading = { heapMb: 384, timeoutMs: 120_000, concurrent: 2 } as const;

/**
 * Unmatched import items kept with an account and retried (src/imports/pending-imports.ts):
 * at most `perAccount` rows per account (past it, a new unmatched item is only reported; the same
 * item imported again still replaces its row), and at most `retriedPerRun` of them retried per
 * account per sync or periodic refresh, those tried longest ago first (each may cost a catalog
 * lookup, importCatalogLookups.perRequest of them at most), so 20 000 rows come round in ten runs.
 */
export const pendingImports = { perAccount: 20_000, retriedPerRun: 2_000 } as const;

/**
 * Sessions of the web app (src/accounts/sessions.ts): a session ends `idleMs` after it was last seen
 * and `absoluteMs` after it was created, whichever comes first. `lastSeenAt` is written at most
 * once per `lastSeenWriteMs`, so a busy page costs no write per request.
 */
export const sessionTimes = {
  idleMs: 14 * 24 * 60 * 60 * 1000,
  absoluteMs: 30 * 24 * 60 * 60 * 1000,
  lastSeenWriteMs: 60_000,
} as const;

/** Sign-in passwords, in characters (code points). */
export const passwordLength = { min: 8, max: 200 } as const;

/** A setup link (first administrator or invitation) works once, within this time of its creation. */
export const setupLinkValidityMs = 60 * 60 * 1000;

/**
 * Password checks (src/accounts/sign-in-limit.ts), `points` per window of `windowSeconds` for each key:
 * a sign-in's check counts against the account name as typed (`perName`), or, from a browser
 * that signed in to that account before (its device cookie), against that browser (`perDevice`)
 * instead; and against the client's address (`perAddress`, an IPv6 address by its /64). A
 * `changePassword` check counts against the account (`perAccountChange`) and the address. Each
 * check is reserved before the password is hashed and given back when the password was right, so
 * only wrong ones count, and concurrent attempts never pass the limit; past it, 429 with
 * Retry-After, even with the right password.
 */
export const signInFailures = {
  perName: { points: 10, windowSeconds: 15 * 60 },
  perDevice: { points: 10, windowSeconds: 15 * 60 },
  perAddress: { points: 50, windowSeconds: 15 * 60 },
  perAccountChange: { points: 10, windowSeconds: 15 * 60 },
} as const;

/**
 * A browser is trusted for an account's sign-in (its own failure count instead of the name's,
 * signInFailures.perDevice) for this long after it last signed in to it: the device cookie's life.
 */
export const trustedDeviceMs = 180 * 24 * 60 * 60 * 1000;

/**
 * Password hashing in one process (src/accounts/password-hash.ts, src/accounts/work-queue.ts): each scrypt
 * run holds 128 MiB and a core for about a fifth of a second, so at most `concurrent` run at once.
 * A client address (its limit key) may have `perAddress` running or waiting, past which its next
 * one is refused at once (429); at most `waiting` wait in all, past which 503. Both carry
 * Retry-After `retryAfterSeconds`. A free slot goes to the address that has had the fewest
 * started (work-queue.ts), so another person's sign-in waits for the hashes running and at most one
 * of each other address waiting, however long their bursts.
 */
export const passwordHashing = { concurrent: 2, perAddress: 4, waiting: 32, retryAfterSeconds: 1 } as const;

/**
 * Bulk writes of the web app's marks (markWatched, markEpisodes, undoMarks: up to 5 000 items each)
 * per account in one process (src/library/bulk-writes.ts): `running` at a time, up to `waiting`
 * more wait their turn for at most `waitMs`, and any past those — or a waiter still waiting after
 * `waitMs` — is refused, 429 with Retry-After `retryAfterSeconds`. On SQLite every write takes
 * its turn at the one writer, so one account's burst would otherwise put all of its transactions
 * ahead of everyone else's writes; with the bound another account's write waits for at most one
 * bulk transaction of each account. A markWatched or undoMarks of at most `smallItems` items (the web
 * app's toggle of one episode, an undo from the history page) is no bulk write and takes no turn: it
 * costs about what as many toggles of the machine API do, which no turn bounds either (the rate
 * limit per account does); markEpisodes always takes one.
 */
export const bulkWrites = { running: 1, waiting: 3, waitMs: 30_000, retryAfterSeconds: 5, smallItems: 20 } as const;

/** Longest User-Agent kept with a session (the session list shows it; longer is cut). */
export const sessionUserAgentChars = 300;

/**
 * OpenID Connect sign-in (src/accounts/single-sign-on/oidc.ts): a sign-in must come back from the provider within
 * `stateMs` (its PKCE verifier, state and nonce live that long in an encrypted cookie); the
 * provider's discovery document is fetched within `discoveryTimeoutSeconds`, and after a failure
 * not again before `discoveryRetryMs` (a provider that is down is not asked on every click).
 * `returnToChars`: longest path a sign-in returns to; `errorChars`: longest provider error text
 * passed on to the sign-in page; `subjectChars`: longest `sub` claim accepted (OpenID Connect Core
 * 1.0, section 2, allows 255).
 */
export const oidcTimes = { stateMs: 10 * 60 * 1000, discoveryTimeoutSeconds: 10, discoveryRetryMs: 10_000 } as const;
export const oidcLengths = { returnToChars: 2_000, errorChars: 300, subjectChars: 255 } as const;

/**
 * Live update streams (src/library/live-updates.ts): how often a process with open streams reads
 * the counters that tell a change (one small query; none while no stream is open).
 */
export const liveUpdates = { pollMs: 1_000 } as const;

/**
 * Media server webhooks (src/media-servers, docs/media-servers.md): what one delivery may be, how
 * often a connection may deliver, and what is kept.
 */
export const mediaServerLimits = {
  /** A JSON, text/plain or form-encoded body (a Jellyfin "Send All Properties" body is 2–6 KB). */
  bodyBytes: 256 * 1024,
  /** A multipart body: Plex's carries a JPEG thumbnail besides its JSON (tens to hundreds of KB). */
  multipartBytes: 4 * 1024 * 1024,
  /** Deliveries kept in an account's log (newest first); older ones are deleted as new ones come. */
  logKept: 100,
  /** Unmatched deliveries kept for retry per account, past the log's newest (the oldest are dropped). */
  pendingKept: 200,
  /** Unmatched deliveries retried per account and run (the account's sync, the catalog refresh). */
  retriedPerRun: 50,
  /**
   * One watch per account and item within this window: a second "played" of an item whose watch
   * was recorded (by anyone) less than this ago is a duplicate (autoplay, credits skipped, a stop
   * and a scrobble of one play), even if it was unmarked in between.
   */
  duplicateWindowMs: 6 * 60 * 60 * 1000,
  /** Server user names a connection may list. */
  usersPerConnection: 50,
  /** Longest server user name a connection may list. */
  userNameLength: 200,
} as const;
