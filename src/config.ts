import path from 'node:path';
import { z } from 'zod';
import { decodeSecretKey } from './keys/secret-key.ts';
import { isLoopbackHttp } from './http/loopback-http.ts';
import { parseAllowedHosts } from './http/allowed-hosts.ts';
import { parseTargetPolicy, type TargetPolicy } from './webhooks/target-policy.ts';
import { crashSteps, type CrashStep } from './jobs/crash-points.ts';
import { parseSmtpUrl, type MailServer } from './mail/mail-server.ts';
import { parseMqttUrl, parseTopicPrefix, type MqttSettings } from './mqtt/mqtt-settings.ts';

/** Raised when the environment does not describe a runnable server; lists every problem at once. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration: ${problems.join('; ')}`);
    this.name = 'ConfigError';
  }
}

const logLevels = ['debug', 'info', 'warn', 'error', 'silent'] as const;
export type LogLevel = (typeof logLevels)[number];

const logFormats = ['auto', 'json', 'pretty'] as const;
export type LogFormat = (typeof logFormats)[number];

const roles = ['web', 'worker', 'all'] as const;
export type Role = (typeof roles)[number];

const optionalText = z
  .string()
  .optional()
  .transform((value) => (value === undefined || value.trim() === '' ? undefined : value.trim()));

/** `true`/`false` (also 1/0, yes/no, on/off); unset or empty is `unset`. */
const booleanWithDefault = (unset: boolean) =>
  z
    .string()
    .optional()
    .transform((value, context) => {
      const text = (value ?? '').trim().toLowerCase();
      if (text === '') return unset;
      if (['false', '0', 'no', 'off'].includes(text)) return false;
      if (['true', '1', 'yes', 'on'].includes(text)) return true;
      context.addIssue({ code: 'custom', message: 'must be true or false (or on/off)' });
      return z.NEVER;
    });

/** `true`/`false` (also 1/0, yes/no, on/off); unset or empty is false. */
const booleanSetting = booleanWithDefault(false);

const httpUrl = z
  .string()
  .refine((value) => /^https?:\/\/[^\s]+$/.test(value), 'must be an http:// or https:// URL')
  .transform((value) => value.replace(/\/+$/, ''));

const environmentSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(4000),
  HOST: optionalText,
  AIRDATE_DATA_DIR: z.string().min(1).default('./data'),
  DATABASE_URL: optionalText.refine(
    (value) => value === undefined || /^(file:|postgres(ql)?:\/\/)/.test(value),
    'must start with file: (SQLite) or postgres:// (PostgreSQL)',
  ),
  AIRDATE_SECRET_KEY: optionalText.refine(
    (value) => value === undefined || decodeSecretKey(value) !== undefined,
    'must be 32 bytes, as 64 hex characters or base64',
  ),
  AIRDATE_CATALOG_FILE: optionalText,
  AIRDATE_MAX_JSON_KB: z.coerce.number().int().min(1).max(1024 * 1024).default(256),
  AIRDATE_MAX_UPLOAD_MB: z.coerce.number().int().min(1).max(10 * 1024).default(50),
  AIRDATE_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(0).max(1_000_000).default(600),
  AIRDATE_LIVE_STREAMS_PER_CREDENTIAL: z.coerce.number().int().min(1).max(1_000).default(10),
  AIRDATE_LIVE_STREAMS_PER_ACCOUNT: z.coerce.number().int().min(0).max(1_000).default(30),
  AIRDATE_MEDIA_SERVER_PER_MINUTE: z.coerce.number().int().min(0).max(1_000_000).default(1_200),
  AIRDATE_CATALOG_REQUESTS_PER_HOUR: z.coerce.number().int().min(0).max(1_000_000).default(1_000),
  AIRDATE_GRAPHQL_MAX_DEPTH: z.coerce.number().int().min(1).max(100).default(10),
  AIRDATE_GRAPHQL_MAX_COST: z.coerce.number().int().min(1).max(10_000_000).default(20_000),
  AIRDATE_GRAPHQL_MAX_ALIASES: z.coerce.number().int().min(0).max(1_000).default(15),
  AIRDATE_GRAPHQL_MAX_DIRECTIVES: z.coerce.number().int().min(0).max(1_000).default(20),
  AIRDATE_GRAPHQL_MAX_TOKENS: z.coerce.number().int().min(100).max(1_000_000).default(2_000),
  AIRDATE_LOG_LEVEL: z.enum(logLevels).default('info'),
  AIRDATE_LOG_FORMAT: z.enum(logFormats).default('auto'),
  AIRDATE_METRICS: booleanWithDefault(true),
  AIRDATE_METRICS_PORT: z.preprocess((value) => (typeof value === 'string' && value.trim() === '' ? undefined : value), z.coerce.number().int().min(0).max(65535).optional()),
  AIRDATE_METRICS_TOKEN: optionalText.refine(
    (value) => value === undefined || /^[\x21-\x7e]{16,256}$/.test(value),
    'must be 16 to 256 printable characters without spaces',
  ),
  TMDB_API_KEY: optionalText,
  TVDB_API_KEY: optionalText,
  TVDB_PIN: optionalText,
  IGDB_CLIENT_ID: optionalText,
  IGDB_CLIENT_SECRET: optionalText,
  AIRDATE_TMDB_URL: httpUrl.default('https://api.themoviedb.org/3'),
  AIRDATE_TMDB_IMAGE_URL: httpUrl.default('https://image.tmdb.org/t/p/w500'),
  AIRDATE_TVDB_URL: httpUrl.default('https://api4.thetvdb.com/v4'),
  AIRDATE_IGDB_URL: httpUrl.default('https://api.igdb.com/v4'),
  AIRDATE_TWITCH_TOKEN_URL: httpUrl.default('https://id.twitch.tv/oauth2/token'),
  AIRDATE_ROLE: z.enum(roles).default('all'),
  AIRDATE_MONGODB_URL: optionalText.refine(
    (value) => value === undefined || /^mongodb(\+srv)?:\/\//.test(value),
    'must start with mongodb:// or mongodb+srv://',
  ),
  AIRDATE_JOB_POLL_MS: z.coerce.number().int().min(50).max(600_000).default(2000),
  AIRDATE_JOB_LOCK_MS: z.coerce.number().int().min(500).max(600_000).default(30_000),
  AIRDATE_TEST_CRASH_AT: z.enum(crashSteps).optional(),
  AIRDATE_WEBHOOK_ALLOWED_HOSTS: z.string().default('external,private'),
  AIRDATE_WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(15_000),
  AIRDATE_SMTP_URL: optionalText,
  AIRDATE_MQTT_URL: optionalText,
  AIRDATE_MQTT_DISCOVERY_PREFIX: z.string().default('homeassistant'),
  AIRDATE_MQTT_TOPIC_PREFIX: z.string().default('airdate'),
  AIRDATE_PUBLIC_URL: optionalText.refine(
    (value) => value === undefined || /^https?:\/\/[^/?#\s]+\/?$/.test(value),
    'must be the origin people open, e.g. https://airdate.example.com (no path)',
  ),
  AIRDATE_ALLOWED_HOSTS: z.string().default(''),
  AIRDATE_TRUST_PROXY: booleanSetting,
  AIRDATE_OPEN_SIGNUP: booleanSetting,
  AIRDATE_OIDC_ISSUER: optionalText.refine((value) => value === undefined || /^https?:\/\/\S+$/.test(value), 'must be an http(s) URL'),
  AIRDATE_OIDC_CLIENT_ID: optionalText,
  AIRDATE_OIDC_CLIENT_SECRET: optionalText,
  AIRDATE_OIDC_CREATE_USERS: booleanSetting,
  AIRDATE_OIDC_LABEL: optionalText,
});

/** Every environment variable the configuration reads (docs/configuration.md's table; compose.yaml sets some). */
export const environmentVariables: readonly string[] = Object.keys(environmentSchema.shape);

/** The server's whole configuration, parsed once from the environment. */
export interface Config {
  http: { port: number; host: string | undefined };
  dataDir: string;
  database: { kind: 'sqlite'; url: string; file: string } | { kind: 'postgres'; url: string };
  /** 32-byte key for AES-256-GCM; undefined means "use or create the key file in dataDir". */
  secretKey: Buffer | undefined;
  catalogFile: string | undefined;
  /**
   * Configurable bounds (the fixed ones are in src/limits.ts). `requestsPerMinute`: per account;
   * 0 turns the limit off. `graphql`: what one GraphQL document may ask for (refused up front).
   */
  limits: {
    maxJsonBytes: number;
    maxUploadBytes: number;
    requestsPerMinute: number;
    /** Live update streams one credential (a session: one browser's tabs; the API token) may hold open in one process. */
    liveStreamsPerCredential: number;
    /**
     * Live update streams one account may hold open in one process, all its credentials together;
     * 0 turns live updates off, else at least twice liveStreamsPerCredential.
     */
    liveStreamsPerAccount: number;
    /** Deliveries per media server connection and minute (src/media-servers); 0 turns the limit off. */
    mediaServerPerMinute: number;
    /**
     * Catalog requests one media server connection, or one account's imports, may cause an hour
     * (src/catalog/catalog-budget.ts); 0 turns the budgets off.
     */
    catalogRequestsPerHour: number;
    graphql: { maxDepth: number; maxCost: number; maxAliases: number; maxDirectives: number; maxTokens: number };
  };
  logLevel: LogLevel;
  /** AIRDATE_LOG_FORMAT: `auto` is readable lines when stderr is a terminal, JSON lines otherwise. */
  logFormat: LogFormat;
  /** Prometheus metrics (docs/operations.md "Metrics"). */
  metrics: {
    enabled: boolean;
    /** Its own listener on this port (same HOST); undefined: `/metrics` on the main port. */
    port: number | undefined;
    /** When set, a scrape must send `Authorization: Bearer <token>`. */
    token: string | undefined;
  };
  /** External catalogs; a catalog is present only when its keys are set. Base URLs have no trailing slash. */
  catalogs: {
    tmdb: { apiKey: string; baseUrl: string; imageBaseUrl: string } | undefined;
    tvdb: { apiKey: string; pin: string | undefined; baseUrl: string } | undefined;
    igdb: { clientId: string; clientSecret: string; baseUrl: string; tokenUrl: string } | undefined;
  };
  jobs: {
    /** web: HTTP only; worker: jobs only; all: both. */
    role: Role;
    /** Agenda runs on MongoDB when set, else on the application's database. */
    mongodbUrl: string | undefined;
    /** How often a worker looks for due jobs it was not told about. */
    pollMs: number;
    /**
     * How long a job's lock holds without being renewed: a process renews the locks of the jobs it
     * holds every third of this, so the jobs of a process that died are taken over by another
     * this long (plus a poll) after its last renewal.
     */
    lockMs: number;
    /**
     * Testing aid (AIRDATE_TEST_CRASH_AT): the process kills itself with SIGKILL the first time a
     * job reaches this step, as a crash there would (src/jobs/crash-points.ts). Unset in use.
     */
    crashAt: CrashStep | undefined;
  };
  webhooks: {
    /** AIRDATE_WEBHOOK_ALLOWED_HOSTS, parsed: which addresses deliveries may connect to. */
    policy: TargetPolicy;
    timeoutMs: number;
  };
  /**
   * AIRDATE_SMTP_URL, parsed: the server-wide mail server, through which a notification channel
   * given as a plain address sends (src/notifications/channels/mail.ts); undefined when unset.
   */
  smtp: MailServer | undefined;
  /**
   * AIRDATE_MQTT_URL and its prefixes, parsed: the broker the library is published to for Home
   * Assistant (src/home-assistant); undefined when AIRDATE_MQTT_URL is unset (off).
   */
  mqtt: MqttSettings | undefined;
  /** The web app's sign-in (docs/accounts.md). */
  web: {
    /** The origin people open (no trailing slash); undefined: taken from each request's Host. */
    publicUrl: string | undefined;
    /** AIRDATE_ALLOWED_HOSTS: host names answered to besides the default ones (src/http/allowed-hosts.ts). */
    allowedHosts: readonly string[];
    /** Believe X-Forwarded-For / X-Forwarded-Proto / X-Forwarded-Host (behind a reverse proxy). */
    trustProxy: boolean;
    /** Anyone who opens the sign-in page may create an account. */
    openSignup: boolean;
    /** OpenID Connect single sign-on; undefined when AIRDATE_OIDC_ISSUER is unset. */
    oidc: { issuer: string; clientId: string; clientSecret: string | undefined; createUsers: boolean; label: string } | undefined;
  };
}

/** Parses `env` (normally `process.env`); throws ConfigError naming every bad variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const parsed = environmentSchema.safeParse(env);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`));
  }
  const values = parsed.data;
  let webhookPolicy: TargetPolicy;
  let allowedHosts: string[];
  try {
    webhookPolicy = parseTargetPolicy(values.AIRDATE_WEBHOOK_ALLOWED_HOSTS);
  } catch (error) {
    throw new ConfigError([(error as Error).message]);
  }
  let smtp: MailServer | undefined;
  try {
    smtp = values.AIRDATE_SMTP_URL === undefined ? undefined : parseSmtpUrl(values.AIRDATE_SMTP_URL);
  } catch (error) {
    throw new ConfigError([`AIRDATE_SMTP_URL: ${(error as Error).message}`]);
  }
  let mqtt: MqttSettings | undefined;
  if (values.AIRDATE_MQTT_URL !== undefined) {
    const problems: string[] = [];
    const parse = <T>(name: string, parser: () => T): T | undefined => {
      try {
        return parser();
      } catch (error) {
        problems.push(`${name}: ${(error as Error).message}`);
        return undefined;
      }
    };
    const broker = parse('AIRDATE_MQTT_URL', () => parseMqttUrl(values.AIRDATE_MQTT_URL!));
    const discoveryPrefix = parse('AIRDATE_MQTT_DISCOVERY_PREFIX', () => parseTopicPrefix(values.AIRDATE_MQTT_DISCOVERY_PREFIX.trim()));
    const topicPrefix = parse('AIRDATE_MQTT_TOPIC_PREFIX', () => parseTopicPrefix(values.AIRDATE_MQTT_TOPIC_PREFIX.trim()));
    if (problems.length === 0 && discoveryPrefix === topicPrefix) problems.push('AIRDATE_MQTT_TOPIC_PREFIX: must differ from AIRDATE_MQTT_DISCOVERY_PREFIX');
    if (problems.length > 0) throw new ConfigError(problems);
    mqtt = { ...broker!, discoveryPrefix: discoveryPrefix!, topicPrefix: topicPrefix! };
  }
  try {
    allowedHosts = parseAllowedHosts(values.AIRDATE_ALLOWED_HOSTS);
  } catch (error) {
    throw new ConfigError([`AIRDATE_ALLOWED_HOSTS: ${(error as Error).message}`]);
  }
  if (values.AIRDATE_OIDC_ISSUER !== undefined && values.AIRDATE_OIDC_CLIENT_ID === undefined) {
    throw new ConfigError(['AIRDATE_OIDC_CLIENT_ID: required when AIRDATE_OIDC_ISSUER is set']);
  }
  if (values.AIRDATE_OIDC_ISSUER !== undefined) {
    const issuer = URL.canParse(values.AIRDATE_OIDC_ISSUER) ? new URL(values.AIRDATE_OIDC_ISSUER) : undefined;
    if (!issuer) throw new ConfigError(['AIRDATE_OIDC_ISSUER: not a valid URL']);
    if (issuer.protocol === 'http:' && !isLoopbackHttp(issuer)) {
      throw new ConfigError(['AIRDATE_OIDC_ISSUER: must be an https:// URL (plain http only for a provider on this machine: localhost, 127.0.0.1, [::1])']);
    }
  }
  if (values.AIRDATE_LIVE_STREAMS_PER_ACCOUNT !== 0 && values.AIRDATE_LIVE_STREAMS_PER_ACCOUNT < 2 * values.AIRDATE_LIVE_STREAMS_PER_CREDENTIAL) {
    // One credential's streams (a leaked token's, a forgotten browser's) must leave the account room for another's.
    throw new ConfigError([
      `AIRDATE_LIVE_STREAMS_PER_ACCOUNT: must be 0 (live updates off) or at least twice AIRDATE_LIVE_STREAMS_PER_CREDENTIAL (${values.AIRDATE_LIVE_STREAMS_PER_CREDENTIAL}), so that one session's or token's streams never fill the account's`,
    ]);
  }
  const dataDir = path.resolve(values.AIRDATE_DATA_DIR);
  return {
    http: { port: values.PORT, host: values.HOST },
    dataDir,
    database: databaseFrom(values.DATABASE_URL, dataDir),
    secretKey: values.AIRDATE_SECRET_KEY === undefined ? undefined : decodeSecretKey(values.AIRDATE_SECRET_KEY),
    catalogFile: values.AIRDATE_CATALOG_FILE === undefined ? undefined : path.resolve(values.AIRDATE_CATALOG_FILE),
    limits: {
      maxJsonBytes: values.AIRDATE_MAX_JSON_KB * 1024,
      maxUploadBytes: values.AIRDATE_MAX_UPLOAD_MB * 1024 * 1024,
      requestsPerMinute: values.AIRDATE_RATE_LIMIT_PER_MINUTE,
      liveStreamsPerCredential: values.AIRDATE_LIVE_STREAMS_PER_CREDENTIAL,
      liveStreamsPerAccount: values.AIRDATE_LIVE_STREAMS_PER_ACCOUNT,
      mediaServerPerMinute: values.AIRDATE_MEDIA_SERVER_PER_MINUTE,
      catalogRequestsPerHour: values.AIRDATE_CATALOG_REQUESTS_PER_HOUR,
      graphql: {
        maxDepth: values.AIRDATE_GRAPHQL_MAX_DEPTH,
        maxCost: values.AIRDATE_GRAPHQL_MAX_COST,
        maxAliases: values.AIRDATE_GRAPHQL_MAX_ALIASES,
        maxDirectives: values.AIRDATE_GRAPHQL_MAX_DIRECTIVES,
        maxTokens: values.AIRDATE_GRAPHQL_MAX_TOKENS,
      },
    },
    logLevel: values.AIRDATE_LOG_LEVEL,
    logFormat: values.AIRDATE_LOG_FORMAT,
    metrics: { enabled: values.AIRDATE_METRICS, port: values.AIRDATE_METRICS_PORT, token: values.AIRDATE_METRICS_TOKEN },
    catalogs: {
      tmdb:
        values.TMDB_API_KEY === undefined
          ? undefined
          : { apiKey: values.TMDB_API_KEY, baseUrl: values.AIRDATE_TMDB_URL, imageBaseUrl: values.AIRDATE_TMDB_IMAGE_URL },
      tvdb:
        values.TVDB_API_KEY === undefined
          ? undefined
          : { apiKey: values.TVDB_API_KEY, pin: values.TVDB_PIN, baseUrl: values.AIRDATE_TVDB_URL },
      igdb:
        values.IGDB_CLIENT_ID === undefined || values.IGDB_CLIENT_SECRET === undefined
          ? undefined
          : {
              clientId: values.IGDB_CLIENT_ID,
              clientSecret: values.IGDB_CLIENT_SECRET,
              baseUrl: values.AIRDATE_IGDB_URL,
              tokenUrl: values.AIRDATE_TWITCH_TOKEN_URL,
            },
    },
    jobs: {
      role: values.AIRDATE_ROLE,
      mongodbUrl: values.AIRDATE_MONGODB_URL,
      pollMs: values.AIRDATE_JOB_POLL_MS,
      lockMs: values.AIRDATE_JOB_LOCK_MS,
      crashAt: values.AIRDATE_TEST_CRASH_AT,
    },
    webhooks: { policy: webhookPolicy, timeoutMs: values.AIRDATE_WEBHOOK_TIMEOUT_MS },
    smtp,
    mqtt,
    web: {
      publicUrl: values.AIRDATE_PUBLIC_URL?.replace(/\/+$/, ''),
      allowedHosts,
      trustProxy: values.AIRDATE_TRUST_PROXY,
      openSignup: values.AIRDATE_OPEN_SIGNUP,
      oidc:
        values.AIRDATE_OIDC_ISSUER === undefined
          ? undefined
          : {
              issuer: values.AIRDATE_OIDC_ISSUER,
              clientId: values.AIRDATE_OIDC_CLIENT_ID!,
              clientSecret: values.AIRDATE_OIDC_CLIENT_SECRET,
              createUsers: values.AIRDATE_OIDC_CREATE_USERS,
              label: values.AIRDATE_OIDC_LABEL ?? 'Single sign-on',
            },
    },
  };
}

function databaseFrom(url: string | undefined, dataDir: string): Config['database'] {
  if (url === undefined) {
    const file = path.join(dataDir, 'airdate.db');
    return { kind: 'sqlite', url: `file:${file}`, file };
  }
  if (url.startsWith('file:')) {
    const file = path.resolve(url.slice('file:'.length));
    return { kind: 'sqlite', url: `file:${file}`, file };
  }
  return { kind: 'postgres', url };
}
