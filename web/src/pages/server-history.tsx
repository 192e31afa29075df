import { useEffect, useState } from 'preact/hooks';
import { request } from '../client.ts';
import { ConfirmButton, formatTime, Notice, useAction, useLoad } from '../components.tsx';
import { graphql, type ResultOf } from '../graphql.ts';
import { ImportReport, ImportReportFields } from './import-report.tsx';

const HistoriesQuery = graphql(
  `
    query MediaServerHistories {
      viewer {
        mediaServerHistories {
          kind
          address
          state
          dryRun
          read
          total
          error
          periodic
          startedAt
          finishedAt
          serverUser {
            id
            name
          }
          report {
            ...ImportReportFields
          }
        }
      }
    }
  `,
  [ImportReportFields],
);

const SaveHistory = graphql(`
  mutation SaveMediaServerHistory($input: MediaServerHistoryInput!) {
    saveMediaServerHistory(input: $input) {
      __typename
      ... on Error {
        message
      }
    }
  }
`);

const ServerUsers = graphql(`
  query MediaServerUsers($kind: MediaServerHistoryKind!) {
    mediaServerUsers(kind: $kind) {
      id
      name
    }
  }
`);

const StartPull = graphql(`
  mutation StartMediaServerPull($kind: MediaServerHistoryKind!, $userId: String!, $dryRun: Boolean!) {
    startMediaServerPull(kind: $kind, userId: $userId, dryRun: $dryRun) {
      __typename
      ... on Error {
        message
      }
    }
  }
`);

const CancelPull = graphql(`
  mutation CancelMediaServerPull($kind: MediaServerHistoryKind!) {
    cancelMediaServerPull(kind: $kind) {
      __typename
      ... on Error {
        message
      }
    }
  }
`);

const SetPeriodic = graphql(`
  mutation SetMediaServerPeriodicPull($kind: MediaServerHistoryKind!, $periodic: Boolean!) {
    setMediaServerPeriodicPull(kind: $kind, periodic: $periodic) {
      __typename
      ... on Error {
        message
      }
    }
  }
`);

const RemoveHistory = graphql(`
  mutation RemoveMediaServerHistory($kind: MediaServerHistoryKind!) {
    removeMediaServerHistory(kind: $kind)
  }
`);

type History = ResultOf<typeof HistoriesQuery>['viewer']['mediaServerHistories'][number];
type Kind = History['kind'];

const kinds: { kind: Kind; name: string; key: string; hint: string }[] = [
  { kind: 'JELLYFIN', name: 'Jellyfin', key: 'API key', hint: 'Dashboard → API Keys → +' },
  { kind: 'EMBY', name: 'Emby', key: 'API key', hint: 'Settings → API Keys → New API Key' },
  { kind: 'PLEX', name: 'Plex', key: 'Token', hint: 'your X-Plex-Token (Plex’s support article “Finding an authentication token”): Plex reads the plays of the token’s account' },
];
const nameOf = (kind: Kind) => kinds.find((entry) => entry.kind === kind)!.name;

const loadHistories = async () => (await request(HistoriesQuery)).viewer.mediaServerHistories;

/**
 * Bring in the past: a server's address and key (stored encrypted), which of its users is you, a
 * dry run (the file import's report, nothing written) and an import, with progress while it runs
 * (read of total), cancel, the periodic pull, and forgetting the key.
 */
export function ServerHistory() {
  const { data: histories, error, reload } = useLoad(loadHistories);
  const running = histories?.some((history) => history.state === 'QUEUED' || history.state === 'RUNNING') ?? false;
  useEffect(() => {
    if (!running) return undefined;
    const timer = setInterval(reload, 1000);
    return () => clearInterval(timer);
  }, [running, reload]);
  return (
    <section class="card" aria-labelledby="history-heading">
      <h2 id="history-heading">Bring in what you watched before</h2>
      <p class="hint">Airdate reads everything your user has played on the server, with when it was last played, and records it as an import does: a dry run first shows what it would record; a second import adds nothing.</p>
      {error && <p role="alert">{error}</p>}
      <SaveServer reload={reload} />
      {histories?.map((history) => <PullCard key={history.kind} history={history} reload={reload} />)}
    </section>
  );
}

function SaveServer({ reload }: { reload: () => void }) {
  const [kind, setKind] = useState<Kind>('JELLYFIN');
  const [address, setAddress] = useState('');
  const [apiKey, setApiKey] = useState('');
  const entry = kinds.find((candidate) => candidate.kind === kind)!;
  const save = useAction(async () => {
    const result = (await request(SaveHistory, { input: { kind, address, apiKey } })).saveMediaServerHistory;
    if (result.__typename !== 'MutationSaveMediaServerHistorySuccess') throw new Error(result.message);
    setApiKey('');
    reload();
    return `${entry.name} saved: find its users below.`;
  });
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        void save.run();
      }}
    >
      <div class="field">
        <label for="history-kind">Server</label>
        <select id="history-kind" value={kind} onChange={(event) => setKind(event.currentTarget.value as Kind)}>
          {kinds.map((candidate) => (
            <option key={candidate.kind} value={candidate.kind}>
              {candidate.name}
            </option>
          ))}
        </select>
      </div>
      <div class="field">
        <label for="history-address">Address</label>
        <input id="history-address" type="url" required value={address} placeholder="http://192.168.1.20:8096" onInput={(event) => setAddress(event.currentTarget.value)} />
      </div>
      <div class="field">
        <label for="history-key">{entry.key}</label>
        <input id="history-key" type="password" required autocomplete="off" value={apiKey} onInput={(event) => setApiKey(event.currentTarget.value)} />
        <span class="hint">{entry.hint}. Stored encrypted, used only for this, removable.</span>
      </div>
      <button disabled={save.busy}>Save server</button>
      <Notice outcome={save.outcome} />
    </form>
  );
}

function PullCard({ history, reload }: { history: History; reload: () => void }) {
  const name = nameOf(history.kind);
  const id = `history-${history.kind.toLowerCase()}`;
  const [users, setUsers] = useState<{ id: string; name: string }[] | null>(history.serverUser ? [history.serverUser] : null);
  const [userId, setUserId] = useState(history.serverUser?.id ?? '');
  const running = history.state === 'QUEUED' || history.state === 'RUNNING';
  const find = useAction(async () => {
    const found = (await request(ServerUsers, { kind: history.kind })).mediaServerUsers;
    setUsers(found);
    if (!found.some((user) => user.id === userId)) setUserId(found[0]?.id ?? '');
    return found.length === 0 ? 'The server lists no users.' : undefined;
  });
  const start = useAction(async (dryRun: boolean) => {
    const result = (await request(StartPull, { kind: history.kind, userId, dryRun })).startMediaServerPull;
    if (result.__typename !== 'MutationStartMediaServerPullSuccess') throw new Error(result.message);
    reload();
  });
  const cancel = useAction(async () => {
    await request(CancelPull, { kind: history.kind });
    reload();
    return 'Cancelling: nothing of this pull is written.';
  });
  const periodic = useAction(async (on: boolean) => {
    const result = (await request(SetPeriodic, { kind: history.kind, periodic: on })).setMediaServerPeriodicPull;
    if (result.__typename !== 'MutationSetMediaServerPeriodicPullSuccess') throw new Error(result.message);
    reload();
  });
  const remove = useAction(async () => {
    await request(RemoveHistory, { kind: history.kind });
    reload();
    return `${name} forgotten: its address and key are deleted.`;
  });
  return (
    <section aria-labelledby={`${id}-heading`}>
      <h3 id={`${id}-heading`}>
        {name} at {history.address}
      </h3>
      <div class="field">
        <label for={`${id}-user`}>Which user is you</label>
        {users ? (
          <select id={`${id}-user`} value={userId} disabled={running} onChange={(event) => setUserId(event.currentTarget.value)}>
            {users.map((user) => (
              <option key={user.id} value={user.id}>
                {user.name}
              </option>
            ))}
          </select>
        ) : (
          <span class="hint">Ask the server for its users first.</span>
        )}
        <button type="button" disabled={find.busy || running} onClick={() => void find.run()}>
          Find {name} users
        </button>
      </div>
      <Notice outcome={find.outcome} />
      <div class="actions">
        <button type="button" class="primary" disabled={!userId || running || start.busy} onClick={() => void start.run(true)}>
          Dry run
        </button>
        <button type="button" disabled={!userId || running || start.busy} onClick={() => void start.run(false)}>
          Import
        </button>
        {running && (
          <button type="button" disabled={cancel.busy} onClick={() => void cancel.run()}>
            Cancel
          </button>
        )}
      </div>
      <Notice outcome={start.outcome ?? cancel.outcome} />
      <PullStatus history={history} />
      <div class="field">
        <label>
          <input type="checkbox" checked={history.periodic} disabled={periodic.busy || !history.serverUser} onChange={(event) => void periodic.run(event.currentTarget.checked)} /> Import again every 6 hours (picks up the plays the webhook missed)
        </label>
      </div>
      <Notice outcome={periodic.outcome} />
      <ConfirmButton label={`Forget ${name}`} question={`Forget ${name}?`} confirm="Forget" danger disabled={remove.busy} onConfirm={() => void remove.run()}>
        <p>Its address and key are deleted. What was imported stays.</p>
      </ConfirmButton>
      <Notice outcome={remove.outcome} />
    </section>
  );
}

function PullStatus({ history }: { history: History }) {
  const what = history.dryRun ? 'Dry run' : 'Import';
  if (history.state === 'IDLE') return null;
  if (history.state === 'QUEUED') return <p role="status">{what} waiting to start…</p>;
  if (history.state === 'RUNNING') {
    return (
      <p role="status">
        {what}: {history.total === null ? 'asking the server…' : `${history.read} of ${history.total} items read`}{' '}
        {history.total !== null && <progress value={history.read} max={Math.max(history.total, 1)} aria-label={`${what} progress`} />}
      </p>
    );
  }
  if (history.state === 'FAILED' || history.state === 'CANCELLED') {
    return (
      <p role="alert">
        {what} {history.state === 'FAILED' ? 'failed' : 'cancelled'} ({formatTime(history.finishedAt)}): {history.error}
      </p>
    );
  }
  return (
    <>
      <p role="status">
        {what} finished {formatTime(history.finishedAt)}: {history.read} items read.
      </p>
      {history.report && <ImportReport result={history.report} />}
    </>
  );
}
