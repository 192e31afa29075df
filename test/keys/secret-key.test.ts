import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { SecretKeyError, initSecretKey, secretKey } from '../../src/keys/secret-key.ts';
import { loadConfig } from '../../src/config.ts';

const folders: string[] = [];
afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

function freshDataDir(): string {
  const folder = mkdtempSync(path.join(tmpdir(), 'airdate-key-'));
  folders.push(folder);
  // A folder that does not exist yet, as on a first start.
  return path.join(folder, 'data');
}

describe('initSecretKey', () => {
  it('creates <dataDir>/secret.key once, private to the owner, and reuses it', () => {
    const dataDir = freshDataDir();
    const config = loadConfig({ AIRDATE_DATA_DIR: dataDir });
    const first = initSecretKey(config);
    expect(first).toHaveLength(32);
    const file = path.join(dataDir, 'secret.key');
    expect(readFileSync(file, 'utf8')).toBe(`${first.toString('hex')}\n`);
    if (process.platform !== 'win32') expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(secretKey().equals(first)).toBe(true);

    const again = initSecretKey(config);
    expect(again.equals(first)).toBe(true);
    // No temporary files left behind.
    expect(readdirSync(dataDir)).toEqual(['secret.key']);
  });

  it('prefers AIRDATE_SECRET_KEY and writes no file', () => {
    const dataDir = freshDataDir();
    const hex = 'ab'.repeat(32);
    const key = initSecretKey(loadConfig({ AIRDATE_DATA_DIR: dataDir, AIRDATE_SECRET_KEY: hex }));
    expect(key.toString('hex')).toBe(hex);
    expect(secretKey().toString('hex')).toBe(hex);
    expect(() => statSync(dataDir)).toThrow();
  });

  it('refuses a malformed key file, naming its path, and leaves it untouched', () => {
    const dataDir = freshDataDir();
    initSecretKey(loadConfig({ AIRDATE_DATA_DIR: dataDir }));
    const file = path.join(dataDir, 'secret.key');
    writeFileSync(file, 'not a key\n');
    expect(() => initSecretKey(loadConfig({ AIRDATE_DATA_DIR: dataDir }))).toThrow(SecretKeyError);
    expect(() => initSecretKey(loadConfig({ AIRDATE_DATA_DIR: dataDir }))).toThrow(file);
    expect(readFileSync(file, 'utf8')).toBe('not a key\n');
  });

  it('gives every process the same key when several start at once on a fresh data folder', async () => {
    const dataDir = freshDataDir();
    const moduleUrl = new URL('../../src/keys/secret-key.ts', import.meta.url).href;
    const configUrl = new URL('../../src/config.ts', import.meta.url).href;
    const startAt = Date.now() + 1500;
    // Each child waits for the same instant, then races to create the key.
    const script = `
      import { initSecretKey } from ${JSON.stringify(moduleUrl)};
      import { loadConfig } from ${JSON.stringify(configUrl)};
      const config = loadConfig({ AIRDATE_DATA_DIR: ${JSON.stringify(dataDir)} });
      while (Date.now() < ${startAt}) {}
      process.stdout.write(initSecretKey(config).toString('hex'));
    `;
    const run = promisify(execFile);
    const projectRoot = fileURLToPath(new URL('../..', import.meta.url));
    const children = Array.from({ length: 6 }, () =>
      run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: projectRoot }),
    );
    const keys = (await Promise.all(children)).map((child) => child.stdout);
    expect(keys[0]).toMatch(/^[0-9a-f]{64}$/);
    expect(new Set(keys).size).toBe(1);
    expect(readFileSync(path.join(dataDir, 'secret.key'), 'utf8').trim()).toBe(keys[0]);
    expect(readdirSync(dataDir)).toEqual(['secret.key']);
  });
});

describe('secretKey', () => {
  it('fails clearly before initialisation', async () => {
    vi.resetModules();
    const fresh = await import('../../src/keys/secret-key.ts');
    expect(() => fresh.secretKey()).toThrow(/not initialised/);
  });
});
