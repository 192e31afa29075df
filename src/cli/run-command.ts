import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { initSecretKey } from '../keys/secret-key.ts';
import { buildDemoCatalog } from '../catalog/demo-catalog.ts';
import { defaultCatalogFile } from '../catalog/providers.ts';
import type { Config } from '../config.ts';
import { closeDatabase, db, openDatabase } from '../db/client.ts';
import { migrateDatabase } from '../db/migrate.ts';
import { backupSqlite } from '../db/sqlite-backup.ts';
import { restoreSqlite } from '../db/sqlite-restore.ts';
import { AppError } from '../errors.ts';
import { createAccount, findAccountByName, listAccounts, presentAccount, updateAccount } from '../accounts/accounts.ts';
import { regenerateToken, showToken, showWebhookSecret } from '../accounts/tokens.ts';
import { setPassword } from '../accounts/passwords.ts';
import { setupLinkForServer, setupRequired } from '../accounts/setup-links.ts';
import { checkPasswordRules } from '../accounts/password-hash.ts';
import { PasswordInputError, promptNewPassword, readPasswordLine } from './read-password.ts';
import type { Readable, Writable } from 'node:stream';

/** Where a command writes and what it runs against. */
export interface CommandIo {
  /** Receives each line of normal output, without a line break. */
  stdout: (line: string) => void;
  /** Receives each line of error output, without a line break. */
  stderr: (line: string) => void;
  config: Config;
  /** Where `--password-stdin` and `--password` read from (process.stdin by default). */
  stdin?: Readable;
  /** Where `--password` writes its prompts (process.stderr by default, so stdout stays the result). */
  promptOutput?: Writable;
}

/** Bad command-line input: reported on one line, exit status 2. */
class UsageError extends Error {
  override name = 'UsageError';
}

export const usage = `Usage: airdate <command>

Commands:
  serve                                   run the server (applies pending migrations first)
  migrate                                 apply pending database migrations and exit
  backup <file> [--force]                 copy the SQLite database to <file> while the server runs
                                          (PostgreSQL: pg_dump, see docs/operations.md)
  restore <file>                          put a backup in place of the SQLite database (the server
                                          must be stopped); the old one is kept beside it
  user create <name> [--timezone <IANA>] [--password | --password-stdin] [--admin]
                                          create an account (time zone defaults to UTC); --password
                                          asks at the terminal, --password-stdin reads one line; the
                                          first account of the server is an administrator
  user password <name> [--password-stdin]  set a new password (asked at the terminal, or one line
                                          of stdin) and sign the account out everywhere
  setup-link                              print a one-time link (valid an hour) that creates the
                                          administrator while no account exists, else a user
  user list                               print every account, one JSON object per line
  user set <name> [--timezone <IANA>] [--webhook-url <URL or "">] [--summary-profile full|home-assistant]
                                          change an account's settings ("" turns the webhook off;
                                          home-assistant: a summary Home Assistant's sensors can hold)
  webhook secret <name>                   print the account's webhook signing secret (whsec_…)
  token show <name>                       print the account's API token, creating it on first view
  token regenerate <name>                 print a new API token; the old one stops working at once
  demo-catalog [--out PATH]               write a demo offline catalog (default <data folder>/catalog.json)
  help                                    show this help`;

type StringOptions = Record<string, { type: 'string' } | { type: 'boolean' }>;
type Handler = (args: string[], io: CommandIo) => Promise<void>;

/**
 * Runs one command-line command (everything but `serve`, which src/main.ts runs itself) and
 * returns its exit status: 0 on success, 2 on bad input (one line on stderr), 1 on anything else.
 */
export async function runCommand(argv: string[], io: CommandIo): Promise<number> {
  try {
    const [name, ...rest] = argv;
    if (name === undefined) throw new UsageError('missing command (try "airdate help")');
    const handler = lookup(commands, name === '--help' || name === '-h' ? 'help' : name);
    if (!handler) throw new UsageError(`unknown command "${name}" (try "airdate help")`);
    await handler(rest, io);
    return 0;
  } catch (error) {
    const expected = error instanceof UsageError || error instanceof AppError || error instanceof PasswordInputError;
    io.stderr(`airdate: ${oneLine(error)}`);
    return expected ? 2 : 1;
  }
}

const createSynopsis = 'user create <name> [--timezone <IANA>] [--password | --password-stdin] [--admin]';
const setSynopsis = 'user set <name> [--timezone <IANA>] [--webhook-url <URL or "">] [--summary-profile full|home-assistant]';

const commands: Record<string, Handler> = {
  help: async (args, io) => {
    parse(args, {}, [], 'help');
    for (const line of usage.split('\n')) io.stdout(line);
  },
  serve: async () => {
    throw new UsageError('"serve" takes no arguments');
  },
  migrate: async (args, io) => {
    parse(args, {}, [], 'migrate');
    const applied = await migrateDatabase(io.config);
    if (applied.length === 0) io.stdout('database is up to date');
    for (const name of applied) io.stdout(name);
  },
  backup: async (args, io) => {
    const { positionals, values } = parse(args, { force: { type: 'boolean' } }, ['file'], 'backup <file> [--force]');
    const database = sqliteDatabase(io.config, 'backup');
    io.stdout(JSON.stringify(backupSqlite({ source: database.file, target: positionals[0]!, force: Boolean(values.force) })));
  },
  restore: async (args, io) => {
    const { positionals } = parse(args, {}, ['file'], 'restore <file>');
    const database = sqliteDatabase(io.config, 'restore');
    io.stdout(JSON.stringify(restoreSqlite({ from: positionals[0]!, target: database.file })));
  },
  user: subcommands('user', {
    create: async (args, io) => {
      const options = { timezone: { type: 'string' }, password: { type: 'boolean' }, 'password-stdin': { type: 'boolean' }, admin: { type: 'boolean' } } as const;
      const { positionals, values } = parse(args, options, ['name'], createSynopsis);
      if (values.password && values['password-stdin']) throw new UsageError('use either --password or --password-stdin');
      const password = values.password || values['password-stdin'] ? await readPassword(io, Boolean(values['password-stdin'])) : undefined;
      const account = await withDatabase(io.config, async () => {
        // The first account of a server is its administrator (as the setup link would make it).
        const role = values.admin || (await setupRequired()) ? 'admin' : 'user';
        return createAccount({ name: positionals[0]!, timezone: values.timezone, password, role });
      });
      io.stdout(JSON.stringify({ id: account.id, name: account.name, timezone: account.timezone, role: account.role }));
    },
    password: async (args, io) => {
      const { positionals, values } = parse(args, { 'password-stdin': { type: 'boolean' } }, ['name'], 'user password <name> [--password-stdin]');
      const password = await readPassword(io, Boolean(values['password-stdin']));
      await withDatabase(io.config, async () => setPassword({ accountId: (await findAccountByName(positionals[0]!)).id, password }));
      io.stdout(`password set for "${positionals[0]!.trim()}"; its sessions have ended`);
    },
    list: async (args, io) => {
      parse(args, {}, [], 'user list');
      // The webhook URL is stored sealed with the secret key.
      initSecretKey(io.config);
      const presented = await withDatabase(io.config, async () => {
        const accounts = [];
        for (const account of await listAccounts()) accounts.push(await presentAccount(account));
        return accounts;
      });
      for (const account of presented) io.stdout(JSON.stringify(account));
    },
    set: async (args, io) => {
      const options = { timezone: { type: 'string' }, 'webhook-url': { type: 'string' }, 'summary-profile': { type: 'string' } } as const;
      const { positionals, values } = parse(args, options, ['name'], setSynopsis);
      if (values.timezone === undefined && values['webhook-url'] === undefined && values['summary-profile'] === undefined) {
        throw new UsageError(`nothing to change; usage: airdate ${setSynopsis}`);
      }
      initSecretKey(io.config);
      const account = await withDatabase(io.config, async () =>
        presentAccount(
          await updateAccount({
            name: positionals[0]!,
            timezone: values.timezone,
            webhookUrl: values['webhook-url'],
            summaryProfile: values['summary-profile'],
          }),
        ),
      );
      io.stdout(JSON.stringify(account));
    },
  }),
  webhook: subcommands('webhook', {
    secret: secretCommand('webhook secret <name>', (accountId) => showWebhookSecret({ accountId })),
  }),
  token: subcommands('token', {
    show: secretCommand('token show <name>', (accountId) => showToken({ accountId })),
    regenerate: secretCommand('token regenerate <name>', (accountId) => regenerateToken({ accountId })),
  }),
  'setup-link': async (args, io) => {
    parse(args, {}, [], 'setup-link');
    const origin = io.config.web.publicUrl ?? `http://localhost:${io.config.http.port}`;
    const link = await withDatabase(io.config, () => setupLinkForServer({ origin, inviteOtherwise: true }));
    io.stdout(link!.url);
    io.stderr(link!.purpose === 'first-admin' ? 'creates the administrator; valid for one hour, once' : 'creates a user account; valid for one hour, once');
  },
  'demo-catalog': async (args, io) => {
    const { values } = parse(args, { out: { type: 'string' } }, [], 'demo-catalog [--out PATH]');
    const file = path.resolve(values.out ?? defaultCatalogFile(io.config));
    // The server has no single time zone; UTC's date is within a day of every account's "today".
    const today = new Date().toISOString().slice(0, 10);
    writeFileAtomically(file, `${JSON.stringify(buildDemoCatalog(today), null, 2)}\n`);
    const automatic = io.config.catalogFile === undefined && file === defaultCatalogFile(io.config);
    io.stdout(
      automatic
        ? `wrote a demo catalog for ${today} to ${file}; the server reads it at its next start`
        : `wrote a demo catalog for ${today} to ${file}; use it with AIRDATE_CATALOG_FILE=${file}`,
    );
  },
};

/**
 * The SQLite database `backup` and `restore` work on. PostgreSQL has its own tools, which copy a
 * live database consistently; the message names the exact commands (docs/operations.md explains them).
 */
function sqliteDatabase(config: Config, command: 'backup' | 'restore'): { file: string } {
  if (config.database.kind === 'sqlite') return config.database;
  throw new UsageError(
    command === 'backup'
      ? 'backup copies SQLite databases; on PostgreSQL run: pg_dump --format=custom --no-owner --file=<file> "$DATABASE_URL"'
      : 'restore puts back SQLite databases; on PostgreSQL, into an empty database: pg_restore --no-owner --dbname="$DATABASE_URL" <file>, then airdate migrate',
  );
}

/** The password of `user create` / `user password`: one line of stdin, or asked twice at the terminal. */
async function readPassword(io: CommandIo, fromStdin: boolean): Promise<string> {
  const input = io.stdin ?? process.stdin;
  const password = fromStdin ? await readPasswordLine(input) : await promptNewPassword(input, io.promptOutput ?? process.stderr);
  checkPasswordRules(password);
  return password;
}

/** A command group such as `user`: the next word picks the handler. */
function subcommands(group: string, handlers: Record<string, Handler>): Handler {
  const names = Object.keys(handlers).join(', ');
  return async ([name, ...rest], io) => {
    if (name === undefined) throw new UsageError(`missing ${group} command (one of ${names})`);
    const handler = lookup(handlers, name);
    if (!handler) throw new UsageError(`unknown ${group} command "${name}" (one of ${names})`);
    await handler(rest, io);
  };
}

/** Own entries only: "constructor" or "__proto__" are unknown commands, not Object's methods. */
function lookup(handlers: Record<string, Handler>, name: string): Handler | undefined {
  return Object.hasOwn(handlers, name) ? handlers[name] : undefined;
}

/** `<group> <verb> <name>`: looks the account up and prints one secret, which needs the encryption key. */
function secretCommand(synopsis: string, reveal: (accountId: number) => Promise<string>): Handler {
  return async (args, io) => {
    const { positionals } = parse(args, {}, ['name'], synopsis);
    initSecretKey(io.config);
    const secret = await withDatabase(io.config, async () => reveal((await findAccountByName(positionals[0]!)).id));
    io.stdout(secret);
  };
}

/** Strict parsing: unknown options, missing values and extra or missing arguments are usage errors. */
function parse<Options extends StringOptions>(args: string[], options: Options, positionalNames: string[], synopsis: string) {
  let parsed;
  try {
    parsed = parseArgs({ args, options, strict: true, allowPositionals: true });
  } catch (error) {
    throw new UsageError(describeParseError(error));
  }
  const { positionals } = parsed;
  if (positionals.length < positionalNames.length) {
    throw new UsageError(`missing <${positionalNames[positionals.length]}>; usage: airdate ${synopsis}`);
  }
  if (positionals.length > positionalNames.length) throw new UsageError(`unexpected argument "${positionals[positionalNames.length]}"`);
  return parsed;
}

/** parseArgs explains itself in several sentences; one short line is enough here. */
function describeParseError(error: unknown): string {
  const { code, message } = error as { code?: string; message?: string };
  const option = /'(-[^' ]+)/.exec(message ?? '')?.[1];
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && option) return `unknown option "${option}"`;
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && option) {
    return `option ${option} needs a value (write ${option}=<value> for a value starting with "-")`;
  }
  return oneLine(error);
}

/**
 * Runs `work` with the database open and migrated. Closes it afterwards unless the caller had it
 * open already (tests, or a future in-process caller keep their connection).
 */
async function withDatabase<T>(config: Config, work: () => Promise<T>): Promise<T> {
  const wasOpen = isDatabaseOpen();
  await openDatabase(config, { migrate: true });
  try {
    return await work();
  } finally {
    if (!wasOpen) {
      await closeDatabase();
    }
  }
}

function isDatabaseOpen(): boolean {
  try {
    db();
    return true;
  } catch {
    return false;
  }
}

/** Readers (a running server) see the old file or the new one, never half of it. */
function writeFileAtomically(file: string, text: string): void {
  mkdirSync(path.dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, text);
  renameSync(temporary, file);
}

function oneLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n').map((line) => line.trim()).find((line) => line !== '') ?? 'unexpected error';
}
