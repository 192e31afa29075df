// Each test pulls over real HTTP and writes through the import: under a loaded machine (load 30 on 2 cores) one took over 20 s; alone, under a second.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { db } from '../../../src/db/client.ts';
import { periodicPullJob } from '../../../src/media-servers/history/history-jobs.ts';
import { cancelPull, listServerUsers, runPull, saveHistoryServer, setPeriodicPull } from '../../../src/media-servers/history/history-pulls.ts';
import type { HistoryKind } from '../../../src/media-servers/history/pull-document.ts';
import type { PullTarget } from '../../../src/media-servers/history/server-client.ts';
import { parseTargetPolicy } from '../../../src/webhooks/target-policy.ts';
import { useTestApp } from '../../support/database.ts';
import { makeAccount } from '../../support/factories.ts';
import { graphql } from '../../support/http.ts';
import { storeFixtureCatalog } from '../catalog.ts';
import { watched } from '../support.ts';
import { fixture, generatedJellyfinLibrary, startFakeServer, type FakeServer, type FakeServerOptions } from './fake-media-server.ts';

const { app, config } = await useTestApp({ AIRDATE_WEBHOOK_ALLOWED_HOSTS: 'loopback', AIRDATE_WEBHOOK_TIMEOUT_MS: '1500', AIRDATE_JOB_POLL_MS: '100', AIRDATE_RATE_LIMIT_PER_MINUTE: '0' });
const target: PullTarget = { policy: config.webhooks.policy, timeoutMs: config.webhooks.timeoutMs };
const silent = { warn: () => undefined };
let catalog: Awaited<ReturnType<typeof storeFixtureCatalog>>;
beforeAll(async () => {
  catalog = await storeFixtureCatalog();
  // The worker, as `serve` starts it: the GraphQL test's pulls run as jobs.
  await app.jobs.start();
});

const servers: FakeServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});
async function server(options: FakeServerOptions) {
  const started = await startFakeServer(options);
  servers.push(started);
  return started;
}

/** An account with the server saved and its user picked, the pull queued as startPull leaves it; the row. */
async function prepared(kind: HistoryKind, url: string, key: string, userId: string, dryRun: boolean, accountId?: number) {
  const account = accountId ?? (await makeAccount()).id;
  await saveHistoryServer({ accountId: account, kind, address: url, key, target });
  const row = await db().mediaServerHistory.update({ where: { accountId_kind: { accountId: account, kind } }, data: { serverUserId: userId, serverUserName: 'sam', state: 'queued', dryRun } });
  return { accountId: account, row };
}
const rowOf = (id: number) => db().mediaServerHistory.findUniqueOrThrow({ where: { id } });
const report = async (id: number) => JSON.parse((await rowOf(id)).report!) as { imported: Record<string, number>; unmatched: { title: string }[]; notes: { note: string }[]; skipped: unknown[]; dryRun: boolean };
const sam = fixture('jellyfin-users.json')[0].Id as string;
const episodeKey = (number: number) => `episode:${catalog.episode(number).id}`;

describe('Jellyfin', { timeout: 60_000 }, () => {
  it('a dry run reports and writes nothing; the import records each play at its last played time; a second import adds nothing', async () => {
    const jellyfin = await server({ kind: 'jellyfin', key: 'jf-key' });
    const { accountId, row } = await prepared('jellyfin', jellyfin.url, 'jf-key', sam, true);
    await runPull({ historyId: row.id, target, logger: silent, pageSize: 2 });
    const dry = await report(row.id);
    expect((await rowOf(row.id))).toMatchObject({ state: 'done', read: 4, total: 4, error: null });
    expect(dry).toMatchObject({ dryRun: true, imported: { shows: 1, episodes: 3, movies: 1, history: 4 } });
    expect(dry.unmatched.map((item) => item.title)).toEqual(["Frieren: Beyond Journey's End"]);
    expect(dry.notes.map((note) => note.note)).toEqual([
      expect.stringContaining('1 item(s) were played more than once'),
      "2 item(s) carry ids Airdate cannot use, such as Dune: Part Two: TmdbCollection 726871 (Airdate matches by TheTVDB, TMDB and IMDb ids only); Frieren: Beyond Journey's End: AniDB 239021 (Airdate matches by TheTVDB, TMDB and IMDb ids only)",
    ]);
    expect(await watched(accountId)).toEqual([]);
    expect(await db().pendingImport.count({ where: { accountId } })).toBe(0);
    // Pages of 2: the played items asked from 0 and 2, then the shows' ids in one request.
    expect(jellyfin.requests.filter((path) => path.includes('IsPlayed=true')).map((path) => new URL(path, 'http://x').searchParams.get('StartIndex'))).toEqual(['0', '2']);
    expect(jellyfin.requests.at(-1)).toContain('Ids=');

    await db().mediaServerHistory.update({ where: { id: row.id }, data: { state: 'queued', dryRun: false } });
    await runPull({ historyId: row.id, target, logger: silent });
    expect(await report(row.id)).toMatchObject({ dryRun: false, imported: { history: 4 } });
    expect(await watched(accountId)).toEqual([episodeKey(2), episodeKey(3), episodeKey(4), `movie:${catalog.dune.id}`].sort());
    const entries = await db().watchEvent.findMany({ where: { accountId }, orderBy: { at: 'asc' } });
    expect(entries.map((entry) => [entry.source, entry.at.toISOString()])).toEqual([
      ['import:jellyfin', '2025-03-02T21:03:11.123Z'],
      ['import:jellyfin', '2025-03-03T20:00:00.000Z'],
      ['import:jellyfin', '2025-03-03T20:00:00.000Z'],
      ['import:jellyfin', '2025-04-12T19:30:00.000Z'],
    ]);
    // The unmatched one is kept and retried like a file import's.
    expect(await db().pendingImport.findMany({ where: { accountId }, select: { source: true, kind: true } })).toEqual([{ source: 'jellyfin', kind: 'show' }]);

    await db().mediaServerHistory.update({ where: { id: row.id }, data: { state: 'queued' } });
    await runPull({ historyId: row.id, target, logger: silent });
    expect((await report(row.id)).imported.history).toBe(0);
    expect(await db().watchEvent.count({ where: { accountId } })).toBe(4);
    expect(await db().pendingImport.count({ where: { accountId } })).toBe(1);
  });

  it('lists the server’s users with the kept key; a wrong key is a clear 401 message and nothing is imported', async () => {
    const jellyfin = await server({ kind: 'jellyfin', key: 'jf-key' });
    const account = await makeAccount();
    await saveHistoryServer({ accountId: account.id, kind: 'jellyfin', address: `${jellyfin.url}/`, key: 'jf-key', target });
    expect(await listServerUsers({ accountId: account.id, kind: 'jellyfin', target })).toEqual([
      { id: sam, name: 'sam' },
      { id: '9a8b7c6d5e4f30211203f4e5d6c7b8a9', name: 'kim' },
    ]);
    const { row, accountId } = await prepared('jellyfin', jellyfin.url, 'wrong-key', sam, false);
    await expect(listServerUsers({ accountId, kind: 'jellyfin', target })).rejects.toThrow(/refused the API key \(401\)/);
    await runPull({ historyId: row.id, target, logger: silent });
    const failed = await rowOf(row.id);
    expect(failed.state).toBe('failed');
    expect(failed.error).toMatch(/^the server at 127\.0\.0\.1:\d+ refused the API key \(401\) for the played items from 0: check it.*nothing was imported$/);
    expect(await db().watchEvent.count({ where: { accountId } })).toBe(0);
  });

  it('a reverse proxy’s HTML login page is named as such; nothing is imported', async () => {
    const proxy = await server({ kind: 'jellyfin', key: 'jf-key', html: true });
    const { row, accountId } = await prepared('jellyfin', proxy.url, 'jf-key', sam, false);
    await runPull({ historyId: row.id, target, logger: silent });
    expect((await rowOf(row.id)).error).toMatch(/answered the played items from 0 with an HTML page \(status 200\), not the media server's JSON: a reverse proxy's login page\?/);
    expect(await db().watchEvent.count({ where: { accountId } })).toBe(0);
  });

  it('a server that stops answering mid-way fails the pull after the deadline, saying where; nothing is imported', async () => {
    const { items, series } = generatedJellyfinLibrary(10);
    const hangs = await server({ kind: 'jellyfin', key: 'jf-key', items, series, hangFrom: 4 });
    const { row, accountId } = await prepared('jellyfin', hangs.url, 'jf-key', sam, false);
    await runPull({ historyId: row.id, target, logger: silent, pageSize: 2 });
    expect(await rowOf(row.id)).toMatchObject({ state: 'failed', read: 4, total: 10, error: expect.stringMatching(/did not answer the played items from 4 within 2 s$/) });
    expect(await db().watchEvent.count({ where: { accountId } })).toBe(0);
  });

  it('cancelled between pages: stops, says so, writes nothing; a pull cut by a restart (left running) starts over', async () => {
    const { items, series } = generatedJellyfinLibrary(6);
    const jellyfin = await server({ kind: 'jellyfin', key: 'jf-key', items, series });
    const { row, accountId } = await prepared('jellyfin', jellyfin.url, 'jf-key', sam, false);
    await db().mediaServerHistory.update({ where: { id: row.id }, data: { state: 'running' } });
    const cancelled = await cancelPull({ accountId, kind: 'jellyfin' });
    expect(cancelled.state).toBe('running');
    await runPull({ historyId: row.id, target, logger: silent, pageSize: 2 });
    expect(await rowOf(row.id)).toMatchObject({ state: 'cancelled', read: 0, error: 'cancelled: nothing of this pull was written', cancelRequested: false });
    expect(jellyfin.requests.filter((path) => path.includes('IsPlayed'))).toHaveLength(1);
    expect(await db().watchEvent.count({ where: { accountId } })).toBe(0);

    // A process killed mid-pull leaves the row running; the job, run again, starts from the first page.
    await db().mediaServerHistory.update({ where: { id: row.id }, data: { state: 'running', read: 4, total: 6 } });
    await runPull({ historyId: row.id, target, logger: silent, pageSize: 2 });
    expect(await rowOf(row.id)).toMatchObject({ state: 'done', read: 6, total: 6 });
    expect(await db().watchEvent.count({ where: { accountId } })).toBe(6);
  });

  it('20 000 plays in pages of 1000: every one recorded', async () => {
    const library = generatedJellyfinLibrary(20_000, 9_100_000); // shows no earlier test's account made
    const jellyfin = await server({ kind: 'jellyfin', key: 'jf-key', ...library });
    const { row, accountId } = await prepared('jellyfin', jellyfin.url, 'jf-key', sam, false);
    await runPull({ historyId: row.id, target, logger: silent });
    expect(await rowOf(row.id)).toMatchObject({ state: 'done', read: 20_000, total: 20_000 });
    expect((await report(row.id)).imported).toMatchObject({ shows: 200, episodes: 20_000, history: 20_000 });
    expect(await db().watchState.count({ where: { accountId, watched: true } })).toBe(20_000);
  }, 180_000);
});

describe('Emby and Plex', { timeout: 60_000 }, () => {
  it('Emby: the same API with X-Emby-Token', async () => {
    const emby = await server({ kind: 'emby', key: 'emby-key' });
    const { row, accountId } = await prepared('emby', emby.url, 'emby-key', sam, false);
    await runPull({ historyId: row.id, target, logger: silent });
    expect(await watched(accountId)).toEqual([episodeKey(2), episodeKey(3), episodeKey(4), `movie:${catalog.dune.id}`].sort());
  });

  it('Plex: every library’s played films and episodes (viewCount, lastViewedAt, Guid, a legacy agent’s guid), paged; music and unplayed items left', async () => {
    const plex = await server({ kind: 'plex', key: 'plex-token' });
    const account = await makeAccount();
    await saveHistoryServer({ accountId: account.id, kind: 'plex', address: plex.url, key: 'plex-token', target });
    expect(await listServerUsers({ accountId: account.id, kind: 'plex', target })).toEqual([
      { id: '1', name: 'alex' },
      { id: '23561234', name: 'sam' },
    ]);
    const { row, accountId } = await prepared('plex', plex.url, 'plex-token', '1', false, account.id);
    await runPull({ historyId: row.id, target, logger: silent, pageSize: 2 });
    expect(await rowOf(row.id)).toMatchObject({ state: 'done', read: 5, total: 5 });
    expect(await watched(accountId)).toEqual([episodeKey(1), episodeKey(3), `movie:${catalog.dune.id}`].sort());
    const entries = await db().watchEvent.findMany({ where: { accountId }, orderBy: { at: 'asc' } });
    expect(entries.map((entry) => entry.at.toISOString())).toEqual(['2025-03-02T20:40:00.000Z', '2025-03-03T22:00:00.000Z', '2025-04-12T19:30:00.000Z']);
    expect((await report(row.id)).notes.map((note) => note.note)).toEqual([expect.stringContaining('2 item(s) were played more than once')]);
    expect(plex.requests.some((path) => path.startsWith('/library/sections/3'))).toBe(false);
    const wrong = await prepared('plex', plex.url, 'bad-token', '1', false);
    await runPull({ historyId: wrong.row.id, target, logger: silent });
    expect((await rowOf(wrong.row.id)).error).toMatch(/refused the token \(401\) for the list of libraries/);
  });
});

describe('the outbound policy and GraphQL', { timeout: 60_000 }, () => {
  it('an address the policy does not allow, or Airdate’s own, is refused', async () => {
    const account = await makeAccount();
    const external = { ...target, policy: parseTargetPolicy('external') };
    await saveHistoryServer({ accountId: account.id, kind: 'jellyfin', address: 'http://192.168.1.20:8096', key: 'k', target: external });
    await expect(listServerUsers({ accountId: account.id, kind: 'jellyfin', target: external })).rejects.toThrow(/192\.168\.1\.20:8096 is not an address Airdate may connect to: .*AIRDATE_WEBHOOK_ALLOWED_HOSTS/);
    const own = { ...target, ownOrigins: ['https://airdate.example.com'], ownPort: 4000 };
    await expect(saveHistoryServer({ accountId: account.id, kind: 'plex', address: 'https://airdate.example.com/', key: 'k', target: own })).rejects.toThrow("https://airdate.example.com is this Airdate server's own address");
    await expect(saveHistoryServer({ accountId: account.id, kind: 'plex', address: 'http://127.0.0.1:4000', key: 'k', target: own })).rejects.toThrow('own address');
    await expect(saveHistoryServer({ accountId: account.id, kind: 'plex', address: 'ftp://nas', key: 'k', target })).rejects.toThrow('http:// or https://');
    await expect(saveHistoryServer({ accountId: account.id, kind: 'plex', address: 'http://nas:32400', key: 'a b', target })).rejects.toThrow('no spaces');
  });

  it('save, list users, a dry run then an import through the job system, progress, the key stored encrypted, remove', async () => {
    const jellyfin = await server({ kind: 'jellyfin', key: 'secret-jellyfin-key' });
    const account = await makeAccount();
    const saved = await graphql(app, account.token, 'mutation($i: MediaServerHistoryInput!) { saveMediaServerHistory(input: $i) { __typename ... on MutationSaveMediaServerHistorySuccess { data { kind address state } } } }', {
      i: { kind: 'JELLYFIN', address: jellyfin.url, apiKey: 'secret-jellyfin-key' },
    });
    expect(saved.json.data.saveMediaServerHistory.data).toEqual({ kind: 'JELLYFIN', address: jellyfin.url, state: 'IDLE' });
    const stored = await db().mediaServerHistory.findFirstOrThrow({ where: { accountId: account.id } });
    expect(stored.encryptedKey).not.toContain('secret-jellyfin-key');
    const users = await graphql(app, account.token, '{ mediaServerUsers(kind: JELLYFIN) { id name } }');
    expect(users.json.errors).toBeUndefined();
    expect(users.json.data.mediaServerUsers.map((user: { name: string }) => user.name)).toEqual(['sam', 'kim']);
    const read = '{ viewer { mediaServerHistories { state dryRun read total error serverUser { name } report { dryRun imported { episodes movies history } unmatched { title } } } } }';
    for (const dryRun of [true, false]) {
      const started = await graphql(app, account.token, 'mutation($u: String!, $d: Boolean!) { startMediaServerPull(kind: JELLYFIN, userId: $u, dryRun: $d) { __typename ... on MutationStartMediaServerPullSuccess { data { state } } } }', { u: sam, d: dryRun });
      expect(started.json.data.startMediaServerPull.data.state).toBe('QUEUED');
      let history: any;
      for (let attempt = 0; attempt < 100; attempt += 1) {
        history = (await graphql(app, account.token, read)).json.data.viewer.mediaServerHistories[0];
        if (history.state === 'DONE' || history.state === 'FAILED') break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(history).toMatchObject({ state: 'DONE', dryRun, read: 4, total: 4, error: null, serverUser: { name: 'sam' }, report: { dryRun, imported: { episodes: 3, movies: 1, history: 4 } } });
    }
    expect(await watched(account.id)).toHaveLength(4);
    // Two starts at once: one pull queued, the other refused.
    const both = await Promise.all([1, 2].map(() => graphql(app, account.token, 'mutation($u: String!) { startMediaServerPull(kind: JELLYFIN, userId: $u, dryRun: true) { __typename } }', { u: sam })));
    expect(both.map((answer) => answer.json.data?.startMediaServerPull?.__typename ?? answer.json.errors[0].message).sort()).toEqual([
      'MutationStartMediaServerPullSuccess',
      'a pull from this server is running already: wait for it or cancel it',
    ]);
    for (let attempt = 0; attempt < 100 && (await db().mediaServerHistory.findFirstOrThrow({ where: { accountId: account.id } })).state !== 'done'; attempt += 1) await new Promise((resolve) => setTimeout(resolve, 100));
    const badUser = await graphql(app, account.token, 'mutation { startMediaServerPull(kind: JELLYFIN, userId: "nobody", dryRun: true) { __typename ... on InputError { message field } } }');
    expect(badUser.json.data.startMediaServerPull).toEqual({ __typename: 'InputError', message: 'the server has no user with id nobody: pick one of sam, kim', field: 'userId' });
    expect((await graphql(app, account.token, 'mutation { removeMediaServerHistory(kind: JELLYFIN) }')).json.data.removeMediaServerHistory).toBe(true);
    expect(await db().mediaServerHistory.count({ where: { accountId: account.id } })).toBe(0);
    expect(await watched(account.id)).toHaveLength(4);
  });
});

describe('the periodic pull', { timeout: 60_000 }, () => {
  it('is off by default; turned on, its job queues an import of each server whose pull is not running, which adds only what is new', async () => {
    const jellyfin = await server({ kind: 'jellyfin', key: 'jf-key' });
    const { row, accountId } = await prepared('jellyfin', jellyfin.url, 'jf-key', sam, false);
    await runPull({ historyId: row.id, target, logger: silent });
    expect((await rowOf(row.id)).periodic).toBe(false);
    const queued: number[] = [];
    const jobs = { queue: async (_definition: unknown, props: { historyId: number }) => void queued.push(props.historyId), live: async () => [] };
    await periodicPullJob.perform({}, { jobs, services: {} } as never);
    expect(queued).not.toContain(row.id);
    await setPeriodicPull({ accountId, kind: 'jellyfin', periodic: true });
    await periodicPullJob.perform({}, { jobs, services: {} } as never);
    expect(queued.filter((id) => id === row.id)).toHaveLength(1);
    expect(await rowOf(row.id)).toMatchObject({ state: 'queued', dryRun: false });
    // Queued already: not queued twice.
    await periodicPullJob.perform({}, { jobs, services: {} } as never);
    expect(queued.filter((id) => id === row.id)).toHaveLength(1);
    await runPull({ historyId: row.id, target, logger: silent });
    expect((await report(row.id)).imported.history).toBe(0);
    const fresh = await makeAccount();
    await saveHistoryServer({ accountId: fresh.id, kind: 'plex', address: jellyfin.url, key: 'k', target });
    await expect(setPeriodicPull({ accountId: fresh.id, kind: 'plex', periodic: true })).rejects.toThrow('pick the server');
  });
});
