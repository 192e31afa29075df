import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll } from 'vitest';
import { buildRealCatalog, seedRealLibrary, writeCatalogFile, type RealCatalog, type SeededRealLibrary } from '../../bench/real-library.ts';
import { createAccount } from '../../src/accounts/accounts.ts';
import { loadConfig } from '../../src/config.ts';
import { closeDatabase, db, openDatabase } from '../../src/db/client.ts';
import { localDate } from '../../src/time/dates.ts';
import { useTestDatabase } from '../support/database.ts';
import { startServer, type ServerProcess } from '../support/processes.ts';
import { ensureWebBuild, signInThroughPage } from './browser-support.ts';

/** The account that holds the real-size library in these tests, and its password. */
export const realLibraryAccount = { name: 'collector', password: 'collector password 1' } as const;

export interface RealLibraryAirdate {
  server: ServerProcess;
  baseUrl: string;
  catalog: RealCatalog;
  seeded: SeededRealLibrary;
}

const root = fileURLToPath(new URL('../..', import.meta.url));

/**
 * The seeded database, made once per machine, library version, day and zone, and copied for each
 * test file: seeding takes 15–50 s on a loaded machine, a copy well under one. Built under a lock
 * (a folder made atomically) so that test files starting at once seed it once; written under
 * another name and renamed when complete, so a test never copies half a database.
 */
async function templateDatabase(timezone: string, today: string): Promise<{ file: string; catalog: RealCatalog; seeded: SeededRealLibrary }> {
  const version = createHash('sha256')
    .update(readFileSync(path.join(root, 'bench/real-library.ts')))
    .update(readdirSync(path.join(root, 'prisma/migrations')).join(','))
    .update(`${timezone}|${today}|${realLibraryAccount.name}`)
    .digest('hex')
    .slice(0, 16);
  const dir = path.join(tmpdir(), `airdate-real-library-${version}`);
  const file = path.join(dir, 'airdate.db');
  const describe = path.join(dir, 'seeded.json');
  const catalog = buildRealCatalog(today as ReturnType<typeof localDate>);
  const lock = `${dir}.lock`;
  for (let waited = 0; !existsSync(describe); waited += 200) {
    let building = false;
    try {
      mkdirSync(lock);
      building = true;
    } catch {
      if (waited > 300_000) throw new Error(`another test file has been seeding ${dir} for 5 minutes (remove ${lock} if none is)`);
      await new Promise((done) => setTimeout(done, 200));
    }
    if (!building) continue;
    try {
      const work = mkdtempSync(path.join(tmpdir(), 'airdate-real-library-build-'));
      const config = loadConfig({ AIRDATE_DATA_DIR: work, AIRDATE_LOG_LEVEL: 'silent' });
      await openDatabase(config, { migrate: true });
      const account = await createAccount({ name: realLibraryAccount.name, password: realLibraryAccount.password, timezone, role: 'admin' });
      const seeded = await seedRealLibrary(account.id, catalog);
      await db().$queryRawUnsafe('PRAGMA wal_checkpoint(TRUNCATE)');
      await closeDatabase();
      mkdirSync(dir, { recursive: true });
      copyFileSync(path.join(work, 'airdate.db'), file);
      rmSync(work, { recursive: true, force: true });
      writeFileSync(`${describe}.part`, JSON.stringify(seeded));
      renameSync(`${describe}.part`, describe);
    } finally {
      rmSync(lock, { recursive: true, force: true });
    }
  }
  return { file, catalog, seeded: JSON.parse(readFileSync(describe, 'utf8')) as SeededRealLibrary };
}

/**
 * A real `serve` process on the test file's own copy of a database holding the largest real
 * library (bench/real-library.ts: 517 shows with a 2,700-episode one, 2,762 films, 431 games,
 * 12,230 history entries) for one administrator account (`realLibraryAccount`), with the same items
 * in its offline catalog file (search finds them). The account's zone is `timezone` (UTC by
 * default); the library is dated around its today. SQLite only (browser tests run on SQLite).
 */
export async function startRealLibraryAirdate(options: { timezone?: string; env?: Record<string, string> } = {}): Promise<RealLibraryAirdate> {
  await ensureWebBuild();
  const timezone = options.timezone ?? 'UTC';
  const template = await templateDatabase(timezone, localDate(timezone, new Date()));
  const dataDir = mkdtempSync(path.join(tmpdir(), 'airdate-real-library-test-'));
  copyFileSync(template.file, path.join(dataDir, 'airdate.db'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
  // The test process opens the copy too (db() for checks), after the copy, as other browser tests do.
  const config = await useTestDatabase({ AIRDATE_DATA_DIR: dataDir });
  const catalogPath = path.join(dataDir, 'real-catalog.json');
  writeCatalogFile(template.catalog, catalogPath);
  const server = await startServer({
    AIRDATE_DATA_DIR: dataDir,
    DATABASE_URL: config.database.url,
    AIRDATE_LOG_LEVEL: 'warn',
    AIRDATE_RATE_LIMIT_PER_MINUTE: '0',
    AIRDATE_CATALOG_FILE: catalogPath,
    ...options.env,
  });
  afterAll(() => server.stop());
  // The offline catalog file is stored after the server listens: wait until it is ready.
  let ready = false;
  for (let waited = 0; waited < 120_000 && !ready; waited += 100) {
    ready = (await fetch(`${server.baseUrl}/readyz`).catch(() => undefined))?.status === 200;
    if (!ready) await new Promise((done) => setTimeout(done, 100));
  }
  if (!ready) throw new Error(`the server was not ready within 120 s:\n${server.output()}`);
  return { server, baseUrl: server.baseUrl, catalog: template.catalog, seeded: template.seeded };
}

/** Signs the real library's account in through the sign-in page; ends on the home page. */
export async function signInToRealLibrary(page: Page, baseUrl: string): Promise<void> {
  await page.goto(`${baseUrl}/sign-in`);
  await signInThroughPage(page, realLibraryAccount.name, realLibraryAccount.password);
  await page.getByRole('heading', { name: 'Home', exact: true }).waitFor({ timeout: 60_000 });
}
