import Database from 'better-sqlite3';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { initSecretKey } from '../../src/keys/secret-key.ts';
import { db } from '../../src/db/client.ts';
import { useTestDatabase } from '../support/database.ts';
import { makeAccount } from '../support/factories.ts';
import type { ServerProcess } from '../support/processes.ts';
import { serverProcesses } from '../support/server-processes.ts';
import { multipart } from '../support/upload.ts';
import { json, traktEpisodePlay, traktMoviePlay, traktShow } from '../imports/fixtures.ts';

/**
 * One import request is one unit, tested the way it fails: a real `serve` process killed with
 * SIGKILL while it writes a five-file upload, restarted on the same database, and the account
 * checked. It holds either nothing of the upload or all of it, never some files' worth. With a
 * transaction per file (the old rule), the kills after the first file's commit left a partial
 * library.
 */
const config = await useTestDatabase();
initSecretKey(config);
const serve = serverProcesses(config);

const files = 5;
const playsPerFile = 3_000;
const showsPerFile = 60;

/**
 * Five Trakt history files, each with shows of its own (so each file creates catalog rows too),
 * numbered by `upload` so that every upload's items are new to the catalog.
 */
function traktUpload(upload: number): Record<string, Uint8Array> {
  const parts: Record<string, Uint8Array> = {};
  for (let file = 0; file < files; file += 1) {
    const plays = [];
    for (let index = 0; index < playsPerFile; index += 1) {
      const at = new Date(Date.UTC(2021, 0, 1) + (file * playsPerFile + index) * 60_000).toISOString();
      const id = upload * 1_000_000 + file * playsPerFile + index;
      if (index % 10 === 9) {
        const movie = 8_000_000 + upload * 1_000 + file * 100 + (Math.floor(index / 10) % 100);
        plays.push(traktMoviePlay(id, at, `Movie ${movie}`, movie));
        continue;
      }
      const played = index - Math.floor(index / 10); // episode plays before this one
      const show = 6_000_000 + upload * 1_000 + file * showsPerFile + (played % showsPerFile);
      const episode = Math.floor(played / showsPerFile) + 1;
      plays.push(traktEpisodePlay(id, at, traktShow(`Show ${show}`, show, show + 1_000_000), 1, episode));
    }
    parts[`watched-history-${file + 1}.json`] = json(plays);
  }
  return parts;
}

async function sendImport(server: ServerProcess, token: string, parts: Record<string, Uint8Array>) {
  const form = new FormData();
  Object.entries(parts).forEach(([name, content], index) => form.append(`file${index}`, new File([content as BlobPart], name)));
  const { body, contentType } = await multipart(form);
  const response = await fetch(`${server.baseUrl}/api/import/trakt`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': contentType },
    body: body as BodyInit,
  });
  return { status: response.status, json: (await response.json()) as any };
}

/** What the account holds, and how many of the upload's shows and movies the catalog holds. */
async function holdings(accountId: number, upload: number) {
  const ids = (base: number) => ({ gte: base + upload * 1_000, lt: base + (upload + 1) * 1_000 });
  return {
    library: await db().libraryItem.count({ where: { accountId } }),
    watchStates: await db().watchState.count({ where: { accountId } }),
    history: await db().watchEvent.count({ where: { accountId } }),
    catalogShows: await db().show.count({ where: { tmdbId: ids(6_000_000) } }),
    catalogMovies: await db().movie.count({ where: { tmdbId: ids(8_000_000) } }),
  };
}

const nothing = { library: 0, watchStates: 0, history: 0, catalogShows: 0, catalogMovies: 0 };

/**
 * Resolves once another connection has held a write transaction open for a while (three looks
 * 15 ms apart), i.e. once the import's transaction is writing: a job's transactions last
 * milliseconds. SQLite: BEGIN IMMEDIATE without waiting fails while another connection writes.
 * PostgreSQL: a backend of the database holds a transaction id once it has written.
 */
async function whenWriting(): Promise<void> {
  const database = config.database;
  let writing: () => Promise<boolean>;
  let close: () => Promise<void>;
  if (database.kind === 'sqlite') {
    const connection = new Database(database.file, { timeout: 0 });
    writing = async () => {
      try {
        connection.exec('BEGIN IMMEDIATE');
        connection.exec('ROLLBACK');
        return false;
      } catch (error) {
        if ((error as { code?: string }).code === 'SQLITE_BUSY') return true;
        throw error;
      }
    };
    close = async () => void connection.close();
  } else {
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    writing = async () => {
      const { rows } = await client.query(
        'SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND backend_xid IS NOT NULL AND pid <> pg_backend_pid()',
      );
      return rows[0].n > 0;
    };
    close = () => client.end();
  }
  try {
    for (let seen = 0; seen < 3; ) {
      seen = (await writing()) ? seen + 1 : 0;
      await new Promise((resolve) => setTimeout(resolve, 15));
    }
  } finally {
    await close();
  }
}

describe('an import killed mid-way (SIGKILL)', () => {
  it('leaves the account with all of a five-file upload or none of it, and the upload then imports whole', { timeout: 180_000 }, async () => {
    // The whole upload, uninterrupted: what "all of it" is, and how long its writing takes.
    const server = await serve();
    const reference = await makeAccount();
    const written = whenWriting().then(() => performance.now());
    const answer = await sendImport(server, reference.token, traktUpload(0));
    const writeTime = performance.now() - (await written);
    expect(answer.status).toBe(200);
    const all = await holdings(reference.id, 0);
    expect(all).toEqual({ library: 5 * showsPerFile + 500, watchStates: 5 * 2_700 + 500, history: 5 * playsPerFile, catalogShows: 5 * showsPerFile, catalogMovies: 500 });
    expect(answer.json.imported.history).toBe(5 * playsPerFile);
    await server.stop();

    // Killed at points spread over the writing: early, half-way, late. The writing's length varies
    // with the machine's load, so an import can finish before its kill: its account then holds all
    // of the upload (checked), and the trial is run again on a new account, killed twice as early.
    const killed: { accountId: number; token: string; upload: number }[] = [];
    let upload = 0;
    for (const fraction of [0.1, 0.45, 0.8]) {
      let cutOff = false;
      for (let attempt = 0; attempt < 4 && !cutOff; attempt += 1) {
        upload += 1;
        const account = await makeAccount();
        const victim = await serve();
        const exited = new Promise((resolve) => victim.child.once('close', resolve));
        const request = sendImport(victim, account.token, traktUpload(upload)).then(
          () => 'answered',
          () => 'cut off',
        );
        await whenWriting();
        await new Promise((resolve) => setTimeout(resolve, (fraction / 2 ** attempt) * writeTime));
        victim.child.kill('SIGKILL');
        await exited;
        cutOff = (await request) === 'cut off';
        const held = await holdings(account.id, upload);
        if (!cutOff) {
          expect(held, `answered before the kill at ${fraction / 2 ** attempt}`).toEqual(all);
          continue;
        }
        // Killed before its answer: none of the upload is there.
        expect(held, `killed at ${fraction / 2 ** attempt} of the writing`).toEqual(nothing);
        killed.push({ accountId: account.id, token: account.token, upload });
      }
      expect(cutOff, `an import killed at ${fraction} of the writing or earlier`).toBe(true);
    }

    // Restarted, the server serves the accounts, and the same upload sent again lands whole.
    const restarted = await serve();
    for (const { accountId, token, upload } of killed) {
      const summary = await fetch(`${restarted.baseUrl}/api/machine/summary`, { headers: { authorization: `Bearer ${token}` } });
      expect(summary.status).toBe(200);
      const again = await sendImport(restarted, token, traktUpload(upload));
      expect(again.status).toBe(200);
      expect(again.json.imported.history).toBe(5 * playsPerFile);
      expect(await holdings(accountId, upload)).toEqual(all);
    }
  });
});
