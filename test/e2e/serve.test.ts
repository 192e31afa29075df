import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { freshDatabaseEnv } from '../support/database.ts';
import { runCli, startServer, type RunOptions, type ServerProcess } from '../support/processes.ts';

// What `npm start` runs: the one-file build of scripts/build.mjs under plain node, built here from
// the current sources into a folder of this run's own (inside the project, as dist/ is: the build
// finds prisma/ by walking up). A build that cannot find its migrations or loads a module the
// bundle lost fails below, not only in production.
const root = fileURLToPath(new URL('../..', import.meta.url));
const buildDir = mkdtempSync(path.join(root, '.vitest-build-'));
const built: RunOptions = { built: path.join(buildDir, 'main.js') };
execFileSync(process.execPath, ['scripts/build.mjs', built.built!], { cwd: root, stdio: 'inherit' });

const dataDir = mkdtempSync(path.join(tmpdir(), 'airdate-e2e-'));
const catalogFile = path.join(dataDir, 'catalog.json');
// As the README has it: `demo-catalog` writes <data folder>/catalog.json and `serve` picks it up.
// On the PostgreSQL run, the processes get a fresh PostgreSQL database of their own.
const env = { AIRDATE_DATA_DIR: dataDir, ...(await freshDatabaseEnv()) };
let server: ServerProcess | undefined;

afterAll(async () => {
  await server?.stop();
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(buildDir, { recursive: true, force: true });
});

async function http(method: string, url: string, token: string, body?: unknown) {
  const response = await fetch(url, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, json: (await response.json()) as any };
}

describe('the built serve process (npm start), driven like a client', () => {
  it('serves a demo library from the catalog file to a new account', { timeout: 60_000 }, async () => {
    const demo = await runCli(['demo-catalog'], env, built);
    expect(demo.code).toBe(0);
    expect(demo.stdout).toContain(catalogFile);
    // Debug logging writes a line per request, so the check below that no token is logged can fail.
    server = await startServer({ ...env, AIRDATE_LOG_LEVEL: 'debug' }, built);
    // First run: the one-time link to create the administrator in the browser.
    expect(server.output()).toMatch(/No account yet: open http:\/\/localhost:\d+\/setup#code=[\w-]{43} within an hour to create the administrator/);

    expect((await runCli(['user', 'create', 'alice', '--timezone', 'Europe/Berlin'], env, built)).code).toBe(0);
    const token = (await runCli(['token', 'show', 'alice'], env, built)).stdout.trim();
    expect(token).toMatch(/^adt_[0-9A-Za-z]{38}$/);

    const search = await http('POST', `${server.baseUrl}/graphql`, token, {
      query: '{ searchCatalog(query: "e", kind: SHOW) { ... on Show { databaseId title episodes { databaseId season number airDate } } } }',
    });
    expect(search.status).toBe(200);
    const shows = search.json.data.searchCatalog as { databaseId: number; title: string; episodes: { databaseId: number; season: number; number: number; airDate: string | null }[] }[];
    const yesterday = new Date(Date.now() - 2 * 86_400_000).toISOString().slice(0, 10);
    const airedInSeasonOne = (show: (typeof shows)[0], number: number) =>
      show.episodes.some((episode) => episode.season === 1 && episode.number === number && episode.airDate !== null && episode.airDate < yesterday);
    const aired = shows.filter((show) => airedInSeasonOne(show, 1) && airedInSeasonOne(show, 2));
    expect(aired.length).toBeGreaterThanOrEqual(2);
    const [first, second] = aired as [(typeof aired)[0], (typeof aired)[0]];

    for (const show of [first, second]) {
      expect(await http('POST', `${server.baseUrl}/api/machine/follow`, token, { kind: 'show', id: show.databaseId, followed: true })).toEqual({ status: 200, json: { ok: true } });
    }
    const pilot = first.episodes.find((episode) => episode.season === 1 && episode.number === 1)!;
    expect(await http('POST', `${server.baseUrl}/api/machine/watched`, token, { kind: 'episode', id: pilot.databaseId, watched: true })).toEqual({ status: 200, json: { ok: true } });

    const viaQuery = await fetch(`${server.baseUrl}/api/machine/summary?token=${token}`);
    expect(viaQuery.status).toBe(200);
    const summary = (await viaQuery.json()) as any;
    expect(summary.counts.upNext).toBe(2);
    expect(summary.upNext[0].show).toBe(first.title);
    expect(summary.upNext[0].episode).toBe('S01E02');
    // The access line (JSON: stderr is no terminal) has the route template, not the URL and its query.
    expect(server.output()).toMatch(/"method":"GET","route":"\/api\/machine\/summary","status":200,/);
    expect(server.output()).not.toContain(token);

    // An upload and a download, through the build's multipart parser and streamed export.
    const history = [{ id: 1, watched_at: '2024-03-01T20:00:00.000Z', action: 'scrobble', type: 'movie', movie: { title: 'Heat', year: 1995, ids: { trakt: 1, tmdb: 949 } } }];
    const form = new FormData();
    form.append('file', new File([JSON.stringify(history)], 'watched-history-1.json'));
    const upload = await fetch(`${server.baseUrl}/api/import/trakt`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
    expect(await upload.json()).toEqual({ ok: true, imported: { shows: 0, episodes: 0, movies: 1, games: 0, history: 1 }, skipped: [], unmatched: [], notes: [] });
    const exported = await fetch(`${server.baseUrl}/api/export`, { headers: { authorization: `Bearer ${token}` } });
    expect(exported.status).toBe(200);
    const document = (await exported.json()) as any;
    expect(document.movies.map((movie: any) => movie.title)).toContain('Heat');

    expect(await server.stop()).toBe(0);
    server = undefined;
  });

  it('npm start, as the README runs it, builds and serves, and a SIGTERM sent to npm stops the server', { timeout: 60_000 }, async () => {
    const started = await startServer(env, { viaNpmStart: true });
    const ready = await fetch(`${started.baseUrl}/readyz`);
    expect([ready.status, await ready.json()]).toEqual([200, { ok: true, database: 'ok', scheduler: 'ok' }]);
    // `exec` in the start script makes node npm's own child, so npm's forwarded signal reaches it
    // (through a shell in between, the server would outlive npm, as under `docker stop`).
    expect(await started.stop()).toBe(0);
    await expect(fetch(`${started.baseUrl}/readyz`)).rejects.toThrow();
  });

  it('refuses to start on an invalid catalog file, naming the path', { timeout: 30_000 }, async () => {
    const broken = path.join(dataDir, 'broken.json');
    writeFileSync(broken, JSON.stringify({ shows: [{ ids: {}, title: 'No ids', episodes: [] }] }));
    await expect(startServer({ ...env, AIRDATE_CATALOG_FILE: broken }, built)).rejects.toThrow(new RegExp(`exited with 1[\\s\\S]*${broken.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
  });

  it('reports every configuration problem at once and exits 2', { timeout: 30_000 }, async () => {
    const result = await runCli(['serve'], { AIRDATE_DATA_DIR: dataDir, PORT: 'eighty', AIRDATE_MAX_JSON_KB: '-1' });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/PORT/);
    expect(result.stderr).toMatch(/AIRDATE_MAX_JSON_KB/);
  });
});
