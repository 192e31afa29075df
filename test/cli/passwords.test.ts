import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { verifyPassword } from '../../src/accounts/password-hash.ts';
import { runCommand } from '../../src/cli/run-command.ts';
import { loadConfig, type Config } from '../../src/config.ts';
import { closeDatabase, db, openDatabase } from '../../src/db/client.ts';
import { usableSetupLink } from '../../src/accounts/setup-links.ts';
import { freshDatabaseEnv } from '../support/database.ts';

// runCommand opens and closes the database itself, as the real command line does.
const dataDir = mkdtempSync(path.join(tmpdir(), 'airdate-cli-pw-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
const config: Config = loadConfig({ AIRDATE_DATA_DIR: dataDir, AIRDATE_LOG_LEVEL: 'silent', PORT: '4321', ...(await freshDatabaseEnv()) });

async function run(argv: string[], stdin: Readable = Readable.from([])) {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const code = await runCommand(argv, { stdout: (line) => stdout.push(line), stderr: (line) => stderr.push(line), config, stdin, promptOutput: new PassThrough() });
  return { code, stdout, stderr };
}

/** Reads the stored account while the command line has the database closed. */
async function stored(name: string) {
  await openDatabase(config);
  try {
    return await db().account.findUniqueOrThrow({ where: { name } });
  } finally {
    await closeDatabase();
  }
}

const name = () => `cli-${randomUUID().slice(0, 8)}`;

describe('setup-link and the first account', () => {
  it('prints a first-admin link while no account exists, then the first created account is the administrator', async () => {
    const link = await run(['setup-link']);
    expect(link.code).toBe(0);
    expect(link.stdout[0]).toMatch(/^http:\/\/localhost:4321\/setup#code=[\w-]{43}$/);
    expect(link.stderr[0]).toMatch(/administrator/);
    const code = link.stdout[0]!.split('#code=')[1]!;
    await openDatabase(config);
    try {
      expect(await usableSetupLink(code)).toMatchObject({ purpose: 'first-admin' });
    } finally {
      await closeDatabase();
    }

    const first = name();
    const created = await run(['user', 'create', first, '--password-stdin'], Readable.from(['first password\nignored second line\n']));
    expect(created.code).toBe(0);
    expect(JSON.parse(created.stdout[0]!)).toMatchObject({ name: first, role: 'admin' });
    const account = await stored(first);
    expect(await verifyPassword('first password', account.passwordHash!)).toBe(true);

    const second = name();
    expect(JSON.parse((await run(['user', 'create', second])).stdout[0]!)).toMatchObject({ role: 'user' });
    expect((await stored(second)).passwordHash).toBeNull();
    expect(JSON.parse((await run(['user', 'create', name(), '--admin'])).stdout[0]!)).toMatchObject({ role: 'admin' });

    const invite = await run(['setup-link']);
    expect(invite.stderr[0]).toMatch(/user account/);
    await openDatabase(config);
    try {
      // The first-admin link no longer works once an account exists.
      expect(await usableSetupLink(code)).toBeNull();
      expect(await usableSetupLink(invite.stdout[0]!.split('#code=')[1]!)).toMatchObject({ purpose: 'invite' });
    } finally {
      await closeDatabase();
    }
  });
});

describe('user password', () => {
  it('resets the password from stdin and ends the sessions', async () => {
    const who = name();
    expect((await run(['user', 'create', who, '--password-stdin'], Readable.from(['old password\r\n']))).code).toBe(0);
    const { id } = await stored(who);
    await openDatabase(config);
    await db().session.create({ data: { accountId: id, digest: randomUUID(), method: 'password', expiresAt: new Date(Date.now() + 60_000) } });
    await closeDatabase();
    const reset = await run(['user', 'password', who, '--password-stdin'], Readable.from(['brand new password\n']));
    expect(reset).toEqual({ code: 0, stdout: [`password set for "${who}"; its sessions have ended`], stderr: [] });
    const account = await stored(who);
    expect(await verifyPassword('brand new password', account.passwordHash!)).toBe(true);
    expect(await verifyPassword('old password', account.passwordHash!)).toBe(false);
    await openDatabase(config);
    expect(await db().session.count({ where: { accountId: id } })).toBe(0);
    await closeDatabase();
  });

  it('refuses bad passwords and bad usage with exit status 2, changing nothing', async () => {
    const who = name();
    expect((await run(['user', 'create', who])).code).toBe(0);
    const cases: [string[], string, RegExp][] = [
      [['user', 'password', who, '--password-stdin'], 'short\n', /at least 8 characters/],
      [['user', 'password', who, '--password-stdin'], '', /no password on stdin/],
      [['user', 'password', who, '--password-stdin'], `${'x'.repeat(5000)}\n`, /at most 200 characters/],
      [['user', 'password', who], '', /--password needs a terminal/],
      [['user', 'password', 'nobody-here', '--password-stdin'], 'long enough pw\n', /unknown user "nobody-here"/],
      [['user', 'create', name(), '--password', '--password-stdin'], 'long enough pw\n', /either --password or --password-stdin/],
      [['user', 'create', name(), '--password-stdin'], 'tiny\n', /at least 8 characters/],
    ];
    for (const [argv, input, message] of cases) {
      const result = await run(argv, Readable.from(input === '' ? [] : [input]));
      expect(result.code, argv.join(' ')).toBe(2);
      expect(result.stderr.join('\n'), argv.join(' ')).toMatch(message);
    }
    expect((await stored(who)).passwordHash).toBeNull();
  });
});
