import type { CatalogService } from '../../catalog/catalog-service.ts';
import { db } from '../../db/client.ts';
import { ConflictError, InputError, NotFoundError } from '../../errors.ts';
import { applyImportDocuments } from '../../imports/import-service.ts';
import { collectIdQueries, importBudget, resolveUnknownIds, type PrepassQuery } from '../../imports/import-prepass.ts';
import type { ImportSummary } from '../../imports/import-upload.ts';
import { validateImportDocument } from '../../imports/sources/validate-document.ts';
import type { JobQueue } from '../../jobs/job-definition.ts';
import { decryptSecret, encryptSecret } from '../../keys/crypto.ts';
import { secretKey } from '../../keys/secret-key.ts';
import type { Warner } from '../../log.ts';
import { pullDocument, type HistoryKind } from './pull-document.ts';
import { maxServerUsers, type ServerReader, type ServerUser } from './pulled-play.ts';
import { jellyfinReader } from './read-jellyfin.ts';
import { plexReader } from './read-plex.ts';
import { PullError, serverAddress, type PullTarget } from './server-client.ts';

/**
 * Pulling a media server's past plays into an account (docs/media-servers.md "Bring in the
 * past"): the server's address and key are kept (the key AES-256-GCM encrypted, deleted with the
 * row), the person picks which of the server's users is them, and a pull (a dry run, or an
 * import) runs as a job (history-jobs.ts): it reads every played item page by page, saying how
 * many it has read of how many, stops between pages when cancelled, and records them through the
 * import machinery (pull-document.ts) in one transaction at the end, so that a pull cut short by a
 * crash or a restart has written nothing and is run again from its first page by the job system.
 */

export type PullState = 'idle' | 'queued' | 'running' | 'done' | 'failed' | 'cancelled';

export interface HistoryView {
  id: number;
  kind: HistoryKind;
  address: string;
  serverUser: ServerUser | null;
  state: PullState;
  dryRun: boolean;
  read: number;
  total: number | null;
  report: ImportSummary | null;
  error: string | null;
  periodic: boolean;
  startedAt: Date | null;
  finishedAt: Date | null;
}

type Row = NonNullable<Awaited<ReturnType<typeof findRow>>>;

const findRow = (accountId: number, kind: HistoryKind) => db().mediaServerHistory.findUnique({ where: { accountId_kind: { accountId, kind } } });

export function historyView(row: Row): HistoryView {
  return {
    id: row.id,
    kind: row.kind as HistoryKind,
    address: row.address,
    serverUser: row.serverUserId !== null ? { id: row.serverUserId, name: row.serverUserName ?? row.serverUserId } : null,
    state: row.state as PullState,
    dryRun: row.dryRun,
    read: row.read,
    total: row.total,
    report: row.report === null ? null : (JSON.parse(row.report) as ImportSummary),
    error: row.error,
    periodic: row.periodic,
    startedAt: row.startedAt,
    finishedAt: row.finishedAt,
  };
}

export async function listHistories(accountId: number): Promise<HistoryView[]> {
  return (await db().mediaServerHistory.findMany({ where: { accountId }, orderBy: { id: 'asc' } })).map(historyView);
}

async function rowOf(accountId: number, kind: HistoryKind): Promise<Row> {
  const row = await findRow(accountId, kind);
  if (!row) throw new NotFoundError(`no ${kind} server is set up for pulling history: give its address and key first`);
  return row;
}

const maxKeyLength = 500;

/**
 * Keeps (or replaces) the address and key of the account's `kind` server. The address is checked
 * (http or https, not Airdate's own); the key is stored encrypted. A changed address or key forgets
 * the user picked. Refused while a pull runs.
 */
export async function saveHistoryServer(props: { accountId: number; kind: HistoryKind; address: string; key: string; target: PullTarget }): Promise<HistoryView> {
  const base = serverAddress(props.address, props.target);
  const key = props.key.trim();
  if (key === '') throw new InputError(props.kind === 'plex' ? 'give the Plex token (X-Plex-Token)' : 'give an API key (Dashboard → API Keys)', 'apiKey');
  if (key.length > maxKeyLength || /[\s"\u0000-\u001f]/.test(key)) throw new InputError(`the ${props.kind === 'plex' ? 'token' : 'API key'} must be up to ${maxKeyLength} characters with no spaces or quotes`, 'apiKey');
  const existing = await findRow(props.accountId, props.kind);
  if (existing && (existing.state === 'queued' || existing.state === 'running')) throw new ConflictError('a pull from this server is running: cancel it first');
  const data = { address: base.href.replace(/\/$/, ''), encryptedKey: encryptSecret(key, secretKey()), serverUserId: null, serverUserName: null };
  const row = await db().mediaServerHistory.upsert({
    where: { accountId_kind: { accountId: props.accountId, kind: props.kind } },
    update: data,
    create: { accountId: props.accountId, kind: props.kind, ...data },
  });
  return historyView(row);
}

/** Forgets the server: its address, its key and its latest report. False when none was kept. A running pull stops at its next page. */
export async function removeHistoryServer(props: { accountId: number; kind: HistoryKind }): Promise<boolean> {
  const { count } = await db().mediaServerHistory.deleteMany({ where: { accountId: props.accountId, kind: props.kind } });
  return count > 0;
}

/** Turns the periodic pull (an import, every 6 hours: history-jobs.ts) on or off. */
export async function setPeriodicPull(props: { accountId: number; kind: HistoryKind; periodic: boolean }): Promise<HistoryView> {
  const row = await rowOf(props.accountId, props.kind);
  if (props.periodic && row.serverUserId === null) throw new InputError('pick the server\'s user first (a dry run or an import does)', 'periodic');
  return historyView(await db().mediaServerHistory.update({ where: { id: row.id }, data: { periodic: props.periodic } }));
}

function readerOf(row: Pick<Row, 'kind' | 'address' | 'encryptedKey'>, target: PullTarget, pageSize?: number): ServerReader {
  const props = { target, base: new URL(row.address), key: decryptSecret(row.encryptedKey, secretKey()), pageSize };
  return row.kind === 'plex' ? plexReader(props) : jellyfinReader(props, row.kind as 'jellyfin' | 'emby');
}

/** The server's users, asked of the server with the kept key (PullError: the server's refusal, in words). */
export async function listServerUsers(props: { accountId: number; kind: HistoryKind; target: PullTarget }): Promise<ServerUser[]> {
  const row = await rowOf(props.accountId, props.kind);
  serverAddress(row.address, props.target);
  return (await readerOf(row, props.target).users()).slice(0, maxServerUsers);
}

/**
 * Starts a pull of `userId`'s plays (a dry run, or an import): the user is checked against the
 * server's list (which checks the key too, before any job is queued), the row reset to `queued`,
 * and the job queued. ConflictError while one runs.
 */
export async function startPull(props: { accountId: number; kind: HistoryKind; userId: string; dryRun: boolean; target: PullTarget; jobs: JobQueue; queue: (jobs: JobQueue, historyId: number) => Promise<void> }): Promise<HistoryView> {
  const row = await rowOf(props.accountId, props.kind);
  if (row.state === 'queued' || row.state === 'running') throw new ConflictError('a pull from this server is running already: wait for it or cancel it');
  const users = await listServerUsers(props);
  const user = users.find((candidate) => candidate.id === props.userId);
  if (!user) throw new InputError(`the server has no user with id ${props.userId.slice(0, 100)}: pick one of ${users.map((one) => one.name).join(', ') || 'its users'}`, 'userId');
  // Only from a state that is not running: two starts at once queue one pull.
  const { count } = await db().mediaServerHistory.updateMany({
    where: { id: row.id, state: { notIn: ['queued', 'running'] } },
    data: { serverUserId: user.id, serverUserName: user.name, state: 'queued', dryRun: props.dryRun, read: 0, total: null, report: null, error: null, cancelRequested: false, startedAt: null, finishedAt: null },
  });
  if (count === 0) throw new ConflictError('a pull from this server is running already: wait for it or cancel it');
  await props.queue(props.jobs, row.id);
  return historyView(await db().mediaServerHistory.findUniqueOrThrow({ where: { id: row.id } }));
}

/** Asks the pull to stop: a queued one is cancelled at once, a running one at its next page (nothing of it is written). */
export async function cancelPull(props: { accountId: number; kind: HistoryKind }): Promise<HistoryView> {
  const row = await rowOf(props.accountId, props.kind);
  await db().mediaServerHistory.updateMany({ where: { id: row.id, state: 'queued' }, data: { state: 'cancelled', finishedAt: new Date(), error: 'cancelled before it started' } });
  await db().mediaServerHistory.updateMany({ where: { id: row.id, state: 'running' }, data: { cancelRequested: true } });
  return historyView(await db().mediaServerHistory.findUniqueOrThrow({ where: { id: row.id } }));
}

/** A pull stopped on request (between pages). */
class Cancelled extends Error {}

export interface RunPullProps {
  historyId: number;
  target: PullTarget;
  catalog?: CatalogService;
  logger: Warner;
  /** Items per page (tests make it small to see several pages). */
  pageSize?: number;
  now?: () => Date;
}

/**
 * One pull, the job's whole work: reads every played item of the picked user, page by page
 * (progress written after each page, cancellation checked), then asks the catalogs about ids no
 * stored row has (the import's pre-pass, the account's import budget) and applies the document
 * through the import machinery: a dry run rolls back and keeps the report; an import records
 * (and keeps the unmatched items as pending imports, retried on every sync). A queued or running
 * pull (a run cut by a restart) starts over from its first page; any other state is left alone.
 */
export async function runPull(props: RunPullProps): Promise<void> {
  const now = props.now ?? (() => new Date());
  const row = await db().mediaServerHistory.findUnique({ where: { id: props.historyId } });
  if (!row || (row.state !== 'queued' && row.state !== 'running') || row.serverUserId === null) return;
  const claimed = await db().mediaServerHistory.updateMany({ where: { id: row.id, state: { in: ['queued', 'running'] } }, data: { state: 'running', read: 0, startedAt: now() } });
  if (claimed.count === 0) return;
  const finish = (data: { state: PullState; error?: string | null; report?: string | null }) =>
    db().mediaServerHistory.updateMany({ where: { id: row.id }, data: { ...data, finishedAt: now(), cancelRequested: false } });
  try {
    const reader = readerOf(row, props.target, props.pageSize);
    const plays = await reader.plays(row.serverUserId, async (read, total) => {
      const current = await db().mediaServerHistory.findUnique({ where: { id: row.id }, select: { cancelRequested: true } });
      if (!current || current.cancelRequested) throw new Cancelled();
      await db().mediaServerHistory.updateMany({ where: { id: row.id }, data: { read, total } });
    });
    const fileName = `${row.kind} ${new URL(row.address).host} (${row.serverUserName ?? row.serverUserId})`;
    const document = validateImportDocument(pullDocument(row.kind as HistoryKind, fileName, plays, now()));
    if (props.catalog) {
      const queries = new Map<string, PrepassQuery>();
      collectIdQueries(document, queries);
      await resolveUnknownIds(props.catalog, queries, row.accountId, props.logger, importBudget(props.catalog, row.accountId));
    }
    const stillThere = await db().mediaServerHistory.findUnique({ where: { id: row.id }, select: { cancelRequested: true } });
    if (!stillThere || stillThere.cancelRequested) throw new Cancelled();
    const result = await applyImportDocuments({ accountId: row.accountId, documents: () => [document], dryRun: row.dryRun, now: now(), imageOrigins: props.catalog?.imageOrigins() });
    const report: ImportSummary = { imported: result.imported, skipped: result.skipped, notes: result.notes, unmatched: result.unmatched, dryRun: row.dryRun };
    await finish({ state: 'done', report: JSON.stringify(report), error: null });
  } catch (error) {
    if (error instanceof Cancelled) await finish({ state: 'cancelled', error: 'cancelled: nothing of this pull was written' });
    else if (error instanceof PullError) await finish({ state: 'failed', error: error.message });
    else {
      await finish({ state: 'failed', error: `the pull failed: ${(error as Error).message}` });
      throw error;
    }
  }
}
