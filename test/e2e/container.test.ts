import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { environmentVariables, loadConfig } from '../../src/config.ts';
import { freshDatabaseEnv } from '../support/database.ts';
import { startServer, type ServerProcess } from '../support/processes.ts';
import { parseYamlSubset, type YamlValue } from '../support/yaml-subset.ts';

/**
 * No container builder can build the image here (docs/operations.md, "Containers"), so this keeps the
 * Dockerfile and compose.yaml true without one: the image's health check command, taken from the
 * Dockerfile, run against a server started the way the image's CMD starts it (after the build the
 * image runs), the CMD stopping on SIGTERM, and compose.yaml naming variables the server reads.
 */
const root = fileURLToPath(new URL('../..', import.meta.url));
const dockerfile = readFileSync(path.join(root, 'Dockerfile'), 'utf8');
const dataDir = mkdtempSync(path.join(tmpdir(), 'airdate-container-'));
const databaseEnv = await freshDatabaseEnv();
let server: ServerProcess | undefined;
afterAll(async () => {
  if (server?.child.exitCode === null) await server.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

/** The Dockerfile's instructions, continuation lines joined, grouped by stage (each FROM starts one). */
function stages(text: string): { keyword: string; args: string }[][] {
  const joined = text.replace(/\\\n/g, ' ').split('\n').map((line) => line.trim()).filter((line) => line !== '' && !line.startsWith('#'));
  const result: { keyword: string; args: string }[][] = [];
  for (const line of joined) {
    const [, keyword, args] = /^(\S+)\s+(.*)$/.exec(line)!;
    if (keyword!.toUpperCase() === 'FROM') result.push([]);
    result.at(-1)?.push({ keyword: keyword!.toUpperCase(), args: args!.replace(/\s+/g, ' ') });
  }
  return result;
}

const runtime = stages(dockerfile).at(-1)!;
const instruction = (keyword: string) => runtime.filter((entry) => entry.keyword === keyword).map((entry) => entry.args);
/** The runtime stage's ENV settings (`ENV A=1 B=2` form). */
const imageEnv = Object.fromEntries(instruction('ENV').flatMap((args) => [...args.matchAll(/(\w+)=(\S+)/g)].map((match) => [match[1]!, match[2]!])));

/** The exec form (a JSON array) of CMD or of HEALTHCHECK's CMD. */
function execForm(args: string): string[] {
  const json = args.slice(args.indexOf('['));
  const parsed = JSON.parse(json) as unknown;
  expect(Array.isArray(parsed) && parsed.every((part) => typeof part === 'string')).toBe(true);
  return parsed as string[];
}

/** Runs the image's HEALTHCHECK command as Docker would inside the container (its ENV, PORT given); resolves its exit status. */
function runHealthcheck(port: string): Promise<number | null> {
  const [command, ...args] = execForm(instruction('HEALTHCHECK')[0]!);
  expect(command).toBe('node');
  const timeoutSeconds = Number(/--timeout=(\d+)s/.exec(instruction('HEALTHCHECK')[0]!)?.[1]);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { env: { PATH: process.env.PATH, ...imageEnv, PORT: port }, stdio: 'ignore' });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutSeconds * 1000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
}

describe('Dockerfile', () => {
  it('builds in a build stage and runs as a non-root user on a /data volume in a slim Node 22+ image', () => {
    const all = stages(dockerfile);
    expect(all.length).toBeGreaterThanOrEqual(2);
    const base = /^ARG NODE_IMAGE=(\S+)$/m.exec(dockerfile)?.[1];
    expect(base).toMatch(/^node:(22|24)-\w+-slim$/);
    expect(all.map((stage) => stage[0]!.args)).toEqual(['${NODE_IMAGE} AS build', '${NODE_IMAGE} AS runtime']);
    expect(instruction('USER')).toEqual(['node']);
    expect(instruction('VOLUME')).toEqual(['/data']);
    expect(imageEnv.AIRDATE_DATA_DIR).toBe('/data');
    expect(instruction('EXPOSE')).toEqual([imageEnv.PORT]);
    expect(instruction('STOPSIGNAL')).toEqual(['SIGTERM']);
    // Every variable the image sets is one the server reads.
    expect(Object.keys(imageEnv).filter((name) => name !== 'NODE_ENV' && !environmentVariables.includes(name))).toEqual([]);
    // The build stage installs as .ci/run does and builds as `npm run build`.
    const buildSteps = all[0]!.filter((entry) => entry.keyword === 'RUN').map((entry) => entry.args);
    expect(buildSteps).toEqual(expect.arrayContaining(['npm ci || npm install', 'npm run build', 'npm prune --omit=dev']));
    expect(readFileSync(path.join(root, '.ci/run'), 'utf8')).toMatch(/if ! npm ci [^\n]*\n(.*\n){1,3}\s*npm install\n/);
  });

  it(
    'CMD starts the built server (production dependencies only) with node itself: HEALTHCHECK passes against it, fails once it stopped on SIGTERM (exit 0, promptly)',
    { timeout: 120_000 },
    async () => {
      const cmd = execForm(instruction('CMD')[0]!);
      expect(cmd[0]).toBe('node');
      expect(cmd.slice(2)).toEqual(['serve']);
      // What the build stage runs; the entry file the CMD names must be its output.
      execFileSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' });
      const entry = path.join(root, cmd[1]!);
      expect(existsSync(entry)).toBe(true);
      // The runtime stage has the production dependencies only (npm prune --omit=dev): every
      // package the built server imports must be one of them.
      const bundle = readFileSync(entry, 'utf8');
      const specifiers = [...bundle.matchAll(/(?:^import [^;]*? from |\bimport\()["']([^"'./][^"']*)["']/gm)].map((match) => match[1]!).filter((name) => !name.startsWith('node:'));
      const packages = new Set(specifiers.map((name) => name.split('/').slice(0, name.startsWith('@') ? 2 : 1).join('/')));
      const { dependencies } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
      expect(packages.size).toBeGreaterThan(10);
      expect([...packages].filter((name) => !Object.hasOwn(dependencies, name))).toEqual([]);
      // Every path the runtime stage copies from the build stage exists after the build.
      for (const args of instruction('COPY').filter((args) => args.startsWith('--from=build'))) {
        const sources = args.split(' ').slice(1, -1);
        for (const source of sources) expect(existsSync(path.join(root, path.relative('/app', source))), source).toBe(true);
      }

      server = await startServer({ ...imageEnv, AIRDATE_DATA_DIR: dataDir, AIRDATE_LOG_LEVEL: 'warn', ...databaseEnv }, { built: entry });
      const port = new URL(server.baseUrl).port;
      expect(await runHealthcheck(port)).toBe(0);
      // The API reference (/api/docs) serves swagger-ui-dist's files, found from the built server in
      // the production dependencies, and the document built by the bundle.
      expect(Object.hasOwn(dependencies, 'swagger-ui-dist')).toBe(true);
      for (const asset of ['/api/openapi.json', '/api/docs', '/api/docs/swagger-ui-bundle.js', '/api/docs/swagger-ui.css']) {
        expect((await fetch(`${server.baseUrl}${asset}`)).status, asset).toBe(200);
      }
      // GraphiQL's files come from @graphql-yoga/render-graphiql, loaded by the built server on the first visit.
      const graphiql = await (await fetch(`${server.baseUrl}/graphql`, { headers: { accept: 'text/html' } })).text();
      const start = /src="(\/graphiql\/[^"]+\/start\.js)"/.exec(graphiql)?.[1];
      expect(start).toBeDefined();
      expect((await fetch(`${server.baseUrl}${start!.replace('start.js', 'yoga-graphiql.js')}`)).status).toBe(200);

      const stopping = performance.now();
      expect(await server.stop()).toBe(0);
      expect(performance.now() - stopping).toBeLessThan(10_000);
      expect(await runHealthcheck(port)).not.toBe(0);
    },
  );
});

describe('compose.yaml', () => {
  const compose = parseYamlSubset(readFileSync(path.join(root, 'compose.yaml'), 'utf8')) as { [key: string]: any };
  const airdate = compose.services.airdate;
  const postgres = compose.services.postgres;

  it('runs Airdate from this Dockerfile on PostgreSQL once PostgreSQL is healthy', () => {
    expect(Object.keys(compose.services)).toEqual(['postgres', 'airdate']);
    expect(airdate.build).toBe('.');
    expect(airdate.depends_on).toEqual({ postgres: { condition: 'service_healthy' } });
    expect(postgres.healthcheck.test[0]).toBe('CMD-SHELL');
    expect(postgres.healthcheck.test[1]).toMatch(/^pg_isready /);
    expect(postgres.volumes).toEqual([expect.stringMatching(/^[\w-]+:\/var\/lib\/postgresql\/data$/)]);
  });

  it('sets only variables the server reads, and they make a valid PostgreSQL configuration for the compose database', () => {
    const environment = airdate.environment as Record<string, YamlValue>;
    expect(Object.keys(environment).filter((name) => !environmentVariables.includes(name))).toEqual([]);
    const config = loadConfig(environment as Record<string, string>);
    expect(config.database.kind).toBe('postgres');
    const url = new URL(config.database.url);
    expect(url.hostname).toBe('postgres');
    expect([url.username, url.password, url.pathname.slice(1)]).toEqual([postgres.environment.POSTGRES_USER, postgres.environment.POSTGRES_PASSWORD, postgres.environment.POSTGRES_DB]);
    // The data folder (secret.key) is a named volume, and the port published is the one it listens on.
    expect(airdate.volumes).toEqual([`airdate-data:${config.dataDir}`]);
    expect(Object.keys(compose.volumes)).toEqual(expect.arrayContaining(['airdate-data', postgres.volumes[0].split(':')[0]]));
    expect(airdate.ports).toEqual([`${config.http.port}:${config.http.port}`]);
  });
});
