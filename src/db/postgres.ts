import type pg from 'pg';
import { DatabaseError } from './errors.ts';

/** How long connecting may take before we give up: an unreachable server fails start-up quickly. */
export const connectTimeoutMs = 5_000;

/** The URL without its password, for messages. */
export function describeUrl(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.password = '';
    parsed.search = '';
    return parsed.toString();
  } catch {
    return 'the PostgreSQL URL in DATABASE_URL';
  }
}

/**
 * Connection settings for a pg Client or Pool on `url`. The Prisma client names the `public` schema
 * in every query; `search_path` makes migrations and raw SQL use the same one.
 */
export function postgresConnection(url: string): pg.ClientConfig {
  return { connectionString: url, connectionTimeoutMillis: connectTimeoutMs, application_name: 'airdate', options: '-c search_path=public' };
}

/** One line saying why connecting to PostgreSQL failed, from pg's error (which is sometimes empty). */
export function explainConnectError(error: unknown): string {
  const failure = error as { code?: string; message?: string; errors?: { code?: string }[] };
  const code = failure.code ?? failure.errors?.[0]?.code;
  const message = (failure.message ?? '').split('\n')[0]!.trim();
  switch (code) {
    case 'ECONNREFUSED':
      return 'connection refused (is PostgreSQL running and listening there?)';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'unknown host';
    case 'ETIMEDOUT':
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return 'the server cannot be reached';
    case '28P01':
      return 'password authentication failed';
    case '28000':
      return `not allowed to connect (${message})`;
    case '3D000':
      return `${message} (create it first, e.g. createdb)`;
    case '57P03':
      return 'the server is starting up or shutting down';
    default:
      if (/timeout/i.test(message)) return `no answer within ${connectTimeoutMs / 1000} s`;
      return message === '' ? String(code ?? 'unknown error') : message;
  }
}

/** A connected pg client, or DatabaseError with one line saying why not. */
export async function connectPostgres(url: string): Promise<pg.Client> {
  // Loaded here, not at the top: a server on SQLite never needs the PostgreSQL driver.
  const { default: driver } = await import('pg');
  const client = new driver.Client(postgresConnection(url));
  // An error after connecting (server restart) must not crash the process; the next query fails instead.
  client.on('error', () => undefined);
  try {
    await client.connect();
    return client;
  } catch (error) {
    await client.end().catch(() => undefined);
    throw new DatabaseError(`cannot connect to PostgreSQL at ${describeUrl(url)}: ${explainConnectError(error)}`);
  }
}
