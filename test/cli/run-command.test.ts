import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { initSecretKey } from '../../src/keys/secret-key.ts';
import { isWellFormedToken } from '../../src/keys/token-format.ts';
import { runCommand } from '../../src/cli/run-command.ts';
import { loadConfig, type Config } from '../../src/config.ts';
import { inputLengths } from '../../src/limits.ts';
import { closeDatabase, db, openDatabase } from '../../src/db/client.ts';
import { postgresMigrationsDir, readMigrations, sqliteMigrationsDir } from '../../src/db/migrate.ts';
import { authenticateToken } from '../../src/accounts/tokens.ts';
import { freshDatabaseEnv } from '../support/database.ts';

// runCommand opens and closes the database itself, as the real command line does, so this file
// gives it a data folder instead of an already-open test database.
const folders: string[] = [];
afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

/** A new data folder and an empty database of the kind under test (see test/support/database.ts). */
async function freshConfig(): Promise<Config> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'airdate-cli-'));
  folders.push(dataDir);
  return loadConfig({ AIRDATE_DATA_DIR: dataDir, AIRDATE_LOG_LEVEL: 'silent', ...(await freshDatabaseEnv()) });
}

const config = await freshConfig();

async function run(argv: string[], runConfig: Config = config) {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const code = await runCommand(argv, { stdout: (line) => stdout.push(line), stderr: (line) => stderr.push(line), config: runConfig });
  return { code, stdout, stderr };
}

/** Creates a fresh account through the command line and returns its name. */
async function makeUser(...options: string[]): Promise<string> {
  const name = `user-${randomUUID().slice(0, 8)}`;
  expect((await run(['user', 'create', name, ...options])).code).toBe(0);
  return name;
}

describe('help', () => {
  it('prints the usage on stdout', async () => {
    for (const argv of [['help'], ['--help'], ['-h']]) {
      const result = await run(argv);
      expect(result.code).toBe(0);
      expect(result.stderr).toEqual([]);
      expect(result.stdout[0]).toBe('Usage: airdate <command>');
      for (const command of ['migrate', 'backup', 'restore', 'user create', 'user list', 'user set', 'webhook secret', 'token show', 'token regenerate', 'demo-catalog']) {
        expect(result.stdout.join('\n')).toContain(command);
      }
    }
  });
});

describe('migrate', () => {
  it('prints the migrations it applied, then that the database is up to date', async () => {
    const fresh = await freshConfig();
    const first = await run(['migrate'], fresh);
    const migrations = readMigrations(fresh.database.kind === 'sqlite' ? sqliteMigrationsDir : postgresMigrationsDir);
    expect(first).toEqual({ code: 0, stdout: migrations.map((migration) => migration.name), stderr: [] });
    expect(await run(['migrate'], fresh)).toEqual({ code: 0, stdout: ['database is up to date'], stderr: [] });
  });
});

describe('user create', () => {
  it('prints exactly {"id","name","timezone","role"} on one line', async () => {
    const name = `user-${randomUUID().slice(0, 8)}`;
    const result = await run(['user', 'create', name]);
    expect(result.code).toBe(0);
    expect(result.stderr).toEqual([]);
    expect(result.stdout).toHaveLength(1);
    const printed = JSON.parse(result.stdout[0]!);
    expect(Object.keys(printed)).toEqual(['id', 'name', 'timezone', 'role']);
    expect(printed).toEqual({ id: expect.any(Number), name, timezone: 'UTC', role: expect.stringMatching(/^(admin|user)$/) });
  });

  it('takes --timezone and stores its canonical spelling', async () => {
    const name = `user-${randomUUID().slice(0, 8)}`;
    const result = await run(['user', 'create', name, '--timezone', 'america/new_york']);
    expect(JSON.parse(result.stdout[0]!)).toMatchObject({ name, timezone: 'America/New_York' });
  });
});

describe('user list', () => {
  it('prints one account JSON object per line', async () => {
    const first = await makeUser();
    const second = await makeUser('--timezone=Asia/Tokyo');
    const result = await run(['user', 'list']);
    expect(result.code).toBe(0);
    const accounts = result.stdout.map((line) => JSON.parse(line));
    for (const account of accounts) expect(Object.keys(account)).toEqual(['id', 'name', 'timezone', 'webhookUrl', 'summaryProfile']);
    expect(accounts).toContainEqual({ id: expect.any(Number), name: first, timezone: 'UTC', webhookUrl: null, summaryProfile: 'full' });
    expect(accounts).toContainEqual({ id: expect.any(Number), name: second, timezone: 'Asia/Tokyo', webhookUrl: null, summaryProfile: 'full' });
  });
});

describe('user set', () => {
  it('changes the time zone and webhook URL and prints the account', async () => {
    const name = await makeUser();
    const result = await run(['user', 'set', name, '--timezone', 'Europe/Paris', '--webhook-url', 'https://hooks.example/airdate']);
    expect(result.code).toBe(0);
    expect(result.stdout).toHaveLength(1);
    expect(JSON.parse(result.stdout[0]!)).toEqual({ id: expect.any(Number), name, timezone: 'Europe/Paris', webhookUrl: 'https://hooks.example/airdate', summaryProfile: 'full' });
  });

  it('turns the webhook off with an empty URL', async () => {
    const name = await makeUser();
    await run(['user', 'set', name, '--webhook-url', 'http://192.168.1.10:8123/api/webhook/x']);
    const result = await run(['user', 'set', name, '--webhook-url', '']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout[0]!).webhookUrl).toBeNull();
  });
});

describe('user set --summary-profile', () => {
  /** The stored row, read with the database opened for the moment (runCommand closes it itself). */
  const stored = async (name: string) => {
    await openDatabase(config);
    try {
      return await db().account.findUniqueOrThrow({ where: { name } });
    } finally {
      await closeDatabase();
    }
  };
  const feedVersion = async (name: string) => (await stored(name)).feedVersion;

  it('stores home-assistant and full, bumping the feed version once per real change', async () => {
    const name = await makeUser();
    const before = await feedVersion(name);
    const set = await run(['user', 'set', name, '--summary-profile', 'home-assistant']);
    expect(set).toEqual({ code: 0, stdout: [expect.any(String)], stderr: [] });
    expect(JSON.parse(set.stdout[0]!)).toMatchObject({ name, summaryProfile: 'home-assistant' });
    expect(await feedVersion(name)).toBe(before + 1);
    // The same profile again changes nothing, not even the cache key.
    expect((await run(['user', 'set', name, '--summary-profile', 'home-assistant'])).code).toBe(0);
    expect(await feedVersion(name)).toBe(before + 1);
    expect(JSON.parse((await run(['user', 'set', name, '--summary-profile', 'full'])).stdout[0]!).summaryProfile).toBe('full');
    expect(await feedVersion(name)).toBe(before + 2);
  });

  it('refuses another value with exit status 2, one line, and stores nothing', async () => {
    const name = await makeUser();
    for (const value of ['homeassistant', 'HOME_ASSISTANT', 'Full', '', 'x'.repeat(100_000)]) {
      const result = await run(['user', 'set', name, `--summary-profile=${value}`]);
      expect(result.code).toBe(2);
      expect(result.stdout).toEqual([]);
      expect(result.stderr).toHaveLength(1);
      expect(result.stderr[0]).toMatch(/^airdate: unknown summary profile ".{0,60}": use full or home-assistant$/);
    }
    expect((await run(['user', 'set', name, '--summary-profile'])).stderr).toEqual(['airdate: option --summary-profile needs a value (write --summary-profile=<value> for a value starting with "-")']);
    expect((await stored(name)).summaryProfile).toBe('full');
  });
});

describe('text limits (src/limits.ts inputLengths): the limit is taken, one character more is refused and nothing is stored', () => {
  const accountsNamed = async (name: string) => (await run(['user', 'list'])).stdout.filter((line) => JSON.parse(line).name === name).length;

  it('account names: 64 characters (letters of any script count one each), not 65', async () => {
    const atLimit = `${'語'.repeat(32)}${randomUUID().replace(/-/g, '')}`;
    expect([...atLimit]).toHaveLength(inputLengths.accountName);
    expect((await run(['user', 'create', atLimit])).code).toBe(0);
    const tooLong = `${atLimit.slice(0, -1)}ab`;
    expect(await run(['user', 'create', tooLong])).toEqual({ code: 2, stdout: [], stderr: ['airdate: the account name must be at most 64 characters'] });
    expect(await accountsNamed(tooLong)).toBe(0);
    // Looking an account up by a name past the limit is refused the same way.
    expect((await run(['token', 'show', 'n'.repeat(100_000)])).stderr).toEqual(['airdate: the account name must be at most 64 characters']);
  });

  it('time zones and webhook URLs on user set', async () => {
    const name = await makeUser('--timezone', 'Asia/Tokyo');
    const webhookUrl = `https://hooks.example/${'h'.repeat(inputLengths.webhookUrl - 22)}`;
    expect(JSON.parse((await run(['user', 'set', name, '--webhook-url', webhookUrl])).stdout[0]!).webhookUrl).toBe(webhookUrl);
    expect((await run(['user', 'set', name, '--webhook-url', `${webhookUrl}h`])).stderr).toEqual(['airdate: the webhook URL must be at most 2048 characters']);
    expect((await run(['user', 'set', name, '--timezone', 'T'.repeat(inputLengths.timezone + 1)])).stderr).toEqual(['airdate: the time zone must be at most 64 characters']);
    expect((await run(['user', 'create', `other-${randomUUID().slice(0, 8)}`, '--timezone', 'T'.repeat(1_000_000)])).stderr).toEqual(['airdate: the time zone must be at most 64 characters']);
    const [stored] = (await run(['user', 'list'])).stdout.map((line) => JSON.parse(line)).filter((account) => account.name === name);
    expect(stored).toMatchObject({ timezone: 'Asia/Tokyo', webhookUrl });
  });
});

describe('webhook secret', () => {
  it('prints the whsec_ secret alone, the same one every time', async () => {
    const name = await makeUser();
    const first = await run(['webhook', 'secret', name]);
    expect(first.code).toBe(0);
    expect(first.stdout).toHaveLength(1);
    expect(first.stdout[0]).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect((await run(['webhook', 'secret', name])).stdout).toEqual(first.stdout);
  });
});

describe('token show and token regenerate', () => {
  it('shows the token alone on one line, the same every time', async () => {
    const name = await makeUser();
    const first = await run(['token', 'show', name]);
    expect(first).toEqual({ code: 0, stdout: [expect.stringMatching(/^adt_[0-9A-Za-z]{38}$/)], stderr: [] });
    expect(isWellFormedToken(first.stdout[0])).toBe(true);
    expect((await run(['token', 'show', name])).stdout).toEqual(first.stdout);
  });

  it('regenerates: prints a new token, and the old one fails at once', async () => {
    const name = await makeUser();
    const old = (await run(['token', 'show', name])).stdout[0]!;
    const regenerated = await run(['token', 'regenerate', name]);
    expect(regenerated.code).toBe(0);
    expect(regenerated.stdout).toHaveLength(1);
    const fresh = regenerated.stdout[0]!;
    expect(isWellFormedToken(fresh)).toBe(true);
    expect(fresh).not.toBe(old);
    expect((await run(['token', 'show', name])).stdout).toEqual([fresh]);

    initSecretKey(config);
    await openDatabase(config);
    try {
      expect(await authenticateToken(old)).toBeNull();
      expect(await authenticateToken(fresh)).toMatchObject({ name });
    } finally {
      await closeDatabase();
    }
  });
});

describe('demo-catalog', () => {
  it('writes <dataDir>/catalog.json by default and --out PATH when given', async () => {
    const fresh = await freshConfig();
    const result = await run(['demo-catalog'], fresh);
    expect(result.code).toBe(0);
    const defaultFile = path.join(fresh.dataDir, 'catalog.json');
    expect(result.stdout).toEqual([expect.stringContaining(defaultFile)]);
    const catalog = JSON.parse(readFileSync(defaultFile, 'utf8'));
    expect(catalog.shows.length).toBeGreaterThan(0);

    const out = path.join(fresh.dataDir, 'nested', 'demo.json');
    expect((await run(['demo-catalog', '--out', out], fresh)).code).toBe(0);
    expect(JSON.parse(readFileSync(out, 'utf8'))).toEqual(catalog);
  });
});

describe('bad input: one line on stderr, exit status 2, nothing on stdout', () => {
  const cases: [string, string[], string | RegExp][] = [
    ['no command', [], 'airdate: missing command (try "airdate help")'],
    ['unknown command', ['frobnicate'], 'airdate: unknown command "frobnicate" (try "airdate help")'],
    ['an Object method name', ['constructor'], 'airdate: unknown command "constructor" (try "airdate help")'],
    ['an Object method name as subcommand', ['user', 'toString'], 'airdate: unknown user command "toString" (one of create, password, list, set)'],
    ['serve with arguments', ['serve', '--port', '1'], 'airdate: "serve" takes no arguments'],
    ['unknown user subcommand', ['user', 'delete', 'bob'], 'airdate: unknown user command "delete" (one of create, password, list, set)'],
    ['missing user subcommand', ['user'], 'airdate: missing user command (one of create, password, list, set)'],
    ['unknown token subcommand', ['token', 'revoke', 'bob'], 'airdate: unknown token command "revoke" (one of show, regenerate)'],
    ['missing name on create', ['user', 'create'], 'airdate: missing <name>; usage: airdate user create <name> [--timezone <IANA>] [--password | --password-stdin] [--admin]'],
    ['missing name on token show', ['token', 'show'], 'airdate: missing <name>; usage: airdate token show <name>'],
    ['missing name on webhook secret', ['webhook', 'secret'], 'airdate: missing <name>; usage: airdate webhook secret <name>'],
    ['extra argument', ['user', 'list', 'everyone'], 'airdate: unexpected argument "everyone"'],
    ['extra argument to migrate', ['migrate', 'now'], 'airdate: unexpected argument "now"'],
    ['unknown option', ['user', 'create', 'carol', '--tz', 'UTC'], 'airdate: unknown option "--tz"'],
    ['unknown short option', ['token', 'show', 'carol', '-v'], 'airdate: unknown option "-v"'],
    ['option without value', ['user', 'create', 'carol', '--timezone'], /^airdate: option --timezone needs a value/],
    ['invalid time zone', ['user', 'create', 'carol', '--timezone', 'Mars/Base'], /^airdate: unknown time zone "Mars\/Base"/],
    ['invalid name', ['user', 'create', 'carol smith'], /^airdate: invalid account name "carol smith"/],
    ['unknown user on token show', ['token', 'show', 'bob-nobody'], 'airdate: unknown user "bob-nobody"'],
    ['unknown user on regenerate', ['token', 'regenerate', 'bob-nobody'], 'airdate: unknown user "bob-nobody"'],
    ['unknown user on webhook secret', ['webhook', 'secret', 'bob-nobody'], 'airdate: unknown user "bob-nobody"'],
    ['unknown user on set', ['user', 'set', 'bob-nobody', '--timezone', 'UTC'], 'airdate: unknown user "bob-nobody"'],
    ['nothing to set', ['user', 'set', 'bob-nobody'], /^airdate: nothing to change; usage: airdate user set <name>/],
    ['bad webhook URL', ['user', 'set', 'NAME', '--webhook-url', 'ftp://files.example/hook'], /^airdate: invalid webhook URL "ftp:\/\/files\.example\/hook"/],
    ['relative webhook URL', ['user', 'set', 'NAME', '--webhook-url', '/hook'], /^airdate: invalid webhook URL "\/hook"/],
    ['unknown option on demo-catalog', ['demo-catalog', '--output', 'x.json'], 'airdate: unknown option "--output"'],
  ];

  for (const [title, argv, expected] of cases) {
    it(title, async () => {
      const name = argv.includes('NAME') ? await makeUser() : undefined;
      const result = await run(argv.map((arg) => (arg === 'NAME' ? name! : arg)));
      expect(result.code).toBe(2);
      expect(result.stdout).toEqual([]);
      expect(result.stderr).toHaveLength(1);
      if (typeof expected === 'string') expect(result.stderr[0]).toBe(expected);
      else expect(result.stderr[0]).toMatch(expected);
    });
  }

  it('a taken name', async () => {
    const name = await makeUser();
    expect(await run(['user', 'create', name])).toEqual({ code: 2, stdout: [], stderr: [`airdate: an account named "${name}" already exists`] });
  });
});

describe('unexpected failures: one line on stderr, exit status 1', () => {
  it('a malformed secret key file', async () => {
    const broken = await freshConfig();
    expect((await run(['user', 'create', 'dora'], broken)).code).toBe(0);
    const keyFile = path.join(broken.dataDir, 'secret.key');
    writeFileSync(keyFile, 'garbage\n');
    const result = await run(['token', 'show', 'dora'], broken);
    expect(result.code).toBe(1);
    expect(result.stdout).toEqual([]);
    expect(result.stderr).toEqual([expect.stringMatching(new RegExp(`^airdate: the secret key file ${keyFile.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is malformed`))]);
  });

  it('a data folder that cannot be created', async () => {
    const parent = mkdtempSync(path.join(tmpdir(), 'airdate-cli-'));
    folders.push(parent);
    writeFileSync(path.join(parent, 'file'), '');
    const dataDir = path.join(parent, 'file', 'data');
    // The SQLite database lives in the data folder; with PostgreSQL only the secret key does.
    const [blocked, argv] =
      config.database.kind === 'sqlite'
        ? [loadConfig({ AIRDATE_DATA_DIR: dataDir }), ['user', 'list']]
        : [loadConfig({ AIRDATE_DATA_DIR: dataDir, DATABASE_URL: config.database.url }), ['token', 'show', await makeUser()]];
    const result = await run(argv, blocked);
    expect(result.code).toBe(1);
    expect(result.stderr).toHaveLength(1);
    expect(result.stderr[0]).toMatch(/^airdate: /);
  });
});

describe('database handling', () => {
  it('leaves the database closed after each command', async () => {
    await makeUser();
    expect(() => db()).toThrow(/not open/);
    if (config.database.kind === 'sqlite') expect(existsSync(config.database.file)).toBe(true);
  });
});
