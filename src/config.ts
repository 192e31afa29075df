import path from 'node:path';
import { z } from 'zod';

/** Raised when the environment does not describe a runnable server; lists every problem at once. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration: ${problems.join('; ')}`);
    this.name = 'ConfigError';
  }
}

const logLevels = ['debug', 'info', 'warn', 'error', 'silent'] as const;
export type LogLevel = (typeof logLevels)[number];

const optionalText = z
  .string()
  .optional()
  .transform((value) => (value === undefined || value.trim() === '' ? undefined : value.trim()));

const environmentSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(4000),
  HOST: optionalText,
  AIRDATE_DATA_DIR: z.string().min(1).default('./data'),
  DATABASE_URL: optionalText.refine(
    (value) => value === undefined || /^(file:|postgres(ql)?:\/\/)/.test(value),
    'must start with file: (SQLite) or postgres:// (PostgreSQL)',
  ),
  AIRDATE_SECRET_KEY: optionalText.refine(
    (value) => value === undefined || /^[0-9a-fA-F]{64}$/.test(value) || Buffer.from(value, 'base64').length === 32,
    'must be 32 bytes, as 64 hex characters or base64',
  ),
  AIRDATE_CATALOG_FILE: optionalText,
  AIRDATE_MAX_JSON_KB: z.coerce.number().int().min(1).max(1024 * 1024).default(256),
  AIRDATE_MAX_UPLOAD_MB: z.coerce.number().int().min(1).max(10 * 1024).default(50),
  AIRDATE_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(0).max(1_000_000).default(600),
  AIRDATE_LOG_LEVEL: z.enum(logLevels).default('info'),
});

/** The server's whole configuration, parsed once from the environment. */
export interface Config {
  http: { port: number; host: string | undefined };
  dataDir: string;
  database: { kind: 'sqlite'; url: string; file: string } | { kind: 'postgres'; url: string };
  /** 32-byte key for AES-256-GCM; undefined means "use or create the key file in dataDir". */
  secretKey: Buffer | undefined;
  catalogFile: string | undefined;
  /** `requestsPerMinute`: per account on this server instance; 0 turns the limit off. */
  limits: { maxJsonBytes: number; maxUploadBytes: number; requestsPerMinute: number };
  logLevel: LogLevel;
}

/** Parses `env` (normally `process.env`); throws ConfigError naming every bad variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const parsed = environmentSchema.safeParse(env);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`));
  }
  const values = parsed.data;
  const dataDir = path.resolve(values.AIRDATE_DATA_DIR);
  return {
    http: { port: values.PORT, host: values.HOST },
    dataDir,
    database: databaseFrom(values.DATABASE_URL, dataDir),
    secretKey: values.AIRDATE_SECRET_KEY === undefined ? undefined : decodeKey(values.AIRDATE_SECRET_KEY),
    catalogFile: values.AIRDATE_CATALOG_FILE === undefined ? undefined : path.resolve(values.AIRDATE_CATALOG_FILE),
    limits: {
      maxJsonBytes: values.AIRDATE_MAX_JSON_KB * 1024,
      maxUploadBytes: values.AIRDATE_MAX_UPLOAD_MB * 1024 * 1024,
      requestsPerMinute: values.AIRDATE_RATE_LIMIT_PER_MINUTE,
    },
    logLevel: values.AIRDATE_LOG_LEVEL,
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

function decodeKey(text: string): Buffer {
  return /^[0-9a-fA-F]{64}$/.test(text) ? Buffer.from(text, 'hex') : Buffer.from(text, 'base64');
}
