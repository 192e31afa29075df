import { useState } from 'preact/hooks';
import { request } from '../client.ts';
import { ConfirmButton, CopyField, formatTime, Notice, PageTitle, useAction, useLoad } from '../components.tsx';
import { graphql, type ResultOf } from '../graphql.ts';
import { ServerHistory } from './server-history.tsx';

const ConnectionsQuery = graphql(`
  query Connections {
    viewer {
      mediaServerConnections {
        source
        url
        users
        manualMarks
        lastUsedAt
      }
      mediaServerDeliveries(first: 50) {
        databaseId
        source
        at
        event
        serverUser
        result
        detail
        waiting
      }
    }
  }
`);

const ConnectMediaServer = graphql(`
  mutation ConnectMediaServer($source: MediaServerSource!) {
    connectMediaServer(source: $source) {
      __typename
      ... on Error {
        message
      }
    }
  }
`);

const RevokeMediaServer = graphql(`
  mutation RevokeMediaServer($source: MediaServerSource!) {
    revokeMediaServer(source: $source)
  }
`);

const SetMediaServerOptions = graphql(`
  mutation SetMediaServerOptions($input: MediaServerOptionsInput!) {
    setMediaServerOptions(input: $input) {
      __typename
      ... on Error {
        message
      }
    }
  }
`);

type Viewer = ResultOf<typeof ConnectionsQuery>['viewer'];
type Connection = Viewer['mediaServerConnections'][number];
type Source = Connection['source'];

/** Per server: its name, what to do on it, and what its user names are called there. */
const servers: { source: Source; name: string; users: string; steps: string[] }[] = [
  {
    source: 'JELLYFIN',
    name: 'Jellyfin',
    users: 'Jellyfin user names',
    steps: [
      'Dashboard → Plugins → Catalog: install “Webhook”, then restart Jellyfin.',
      'Dashboard → Plugins → Webhook → Add Generic Destination; paste the URL below as Webhook URL.',
      'Tick Playback Stop (and User Data Saved for manual marks), item types Episodes and Movies, and “Send All Properties”.',
      'Save. Your next finished episode appears here in the delivery log.',
    ],
  },
  {
    source: 'PLEX',
    name: 'Plex',
    users: 'Plex account names',
    steps: [
      'Open plex.tv → Account → Webhooks (needs Plex Pass) and choose Add Webhook.',
      'Paste the URL below and save.',
      'A server’s webhook receives every user’s plays: list your Plex account name below when others share it.',
    ],
  },
  {
    source: 'EMBY',
    name: 'Emby',
    users: 'Emby user names',
    steps: [
      'Settings → Notifications → Add Notification → Webhooks (needs Emby Premiere).',
      'Paste the URL below; request content type application/json.',
      'Choose the events Playback Stop (and Mark played / unplayed for manual marks), limited to your user.',
    ],
  },
  {
    source: 'GENERIC',
    name: 'Other (generic JSON)',
    users: 'names the body gives as "user"',
    steps: ['Kodi add-ons and scripts POST JSON to the URL below: {"kind":"movie","ids":{"tmdb":693134}}. docs/media-servers.md describes every field.'],
  },
];

const loadConnections = async () => (await request(ConnectionsQuery)).viewer;

/**
 * Media servers that mark what is watched: per server the set-up steps, the URL to paste (its own
 * token: it only records watches), its options, regenerate and disconnect; then the delivery log,
 * with why a delivery did not match.
 */
export default function ConnectionsPage() {
  const { data: viewer, error, reload } = useLoad(loadConnections);
  return (
    <section>
      <PageTitle>Connections</PageTitle>
      <p class="hint">When an episode or a film finishes playing on your media server, Airdate marks it watched. Each server gets a URL of its own that can only record watches.</p>
      {error && <p role="alert">{error}</p>}
      {!viewer && !error && <p class="loading">Loading…</p>}
      {viewer && (
        <>
          {servers.map((server) => (
            <ServerCard key={server.source} server={server} connection={viewer.mediaServerConnections.find((connection) => connection.source === server.source)} reload={reload} />
          ))}
          <ServerHistory />
          <DeliveryLog deliveries={viewer.mediaServerDeliveries} reload={reload} />
        </>
      )}
    </section>
  );
}

function ServerCard({ server, connection, reload }: { server: (typeof servers)[number]; connection: Connection | undefined; reload: () => void }) {
  const id = server.source.toLowerCase();
  const connect = useAction(async () => {
    const result = (await request(ConnectMediaServer, { source: server.source })).connectMediaServer;
    if (result.__typename !== 'MutationConnectMediaServerSuccess') throw new Error(result.message);
    reload();
    return connection ? `A new ${server.name} URL was made; the old one no longer works.` : `${server.name} connected: paste the URL into it.`;
  });
  const revoke = useAction(async () => {
    await request(RevokeMediaServer, { source: server.source });
    reload();
    return `${server.name} disconnected; its URL no longer works.`;
  });
  return (
    <section class="card" aria-labelledby={`${id}-heading`}>
      <h2 id={`${id}-heading`}>{server.name}</h2>
      <ol>
        {server.steps.map((step) => (
          <li key={step}>{step}</li>
        ))}
      </ol>
      {!connection && (
        <button type="button" class="primary" disabled={connect.busy} onClick={() => void connect.run()}>
          Connect {server.name}
        </button>
      )}
      {connection && (
        <>
          <CopyField id={`${id}-url`} label={`${server.name} URL`} value={connection.url} />
          <p class="hint">Last delivery: {formatTime(connection.lastUsedAt)}</p>
          <ServerOptions server={server} connection={connection} reload={reload} />
          <div class="actions">
            <ConfirmButton label={`Regenerate ${server.name} URL`} question={`Make a new ${server.name} URL?`} confirm="Regenerate" danger disabled={connect.busy} onConfirm={() => void connect.run()}>
              <p>The current URL stops working at once: paste the new one into {server.name}.</p>
            </ConfirmButton>
            <ConfirmButton label={`Disconnect ${server.name}`} question={`Disconnect ${server.name}?`} confirm="Disconnect" danger disabled={revoke.busy} onConfirm={() => void revoke.run()}>
              <p>Its URL stops working at once. The delivery log stays.</p>
            </ConfirmButton>
          </div>
        </>
      )}
      <Notice outcome={connect.outcome ?? revoke.outcome} />
    </section>
  );
}

function ServerOptions({ server, connection, reload }: { server: (typeof servers)[number]; connection: Connection; reload: () => void }) {
  const id = server.source.toLowerCase();
  const [users, setUsers] = useState(connection.users.join(', '));
  const [manualMarks, setManualMarks] = useState(connection.manualMarks);
  const save = useAction(async () => {
    const list = users
      .split(',')
      .map((user) => user.trim())
      .filter((user) => user !== '');
    const result = (await request(SetMediaServerOptions, { input: { source: server.source, users: list, manualMarks } })).setMediaServerOptions;
    if (result.__typename !== 'MutationSetMediaServerOptionsSuccess') throw new Error(result.message);
    reload();
    return `${server.name} options saved.`;
  });
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        void save.run();
      }}
    >
      <div class="field">
        <label for={`${id}-users`}>Users that count</label>
        <input id={`${id}-users`} value={users} placeholder="everyone" onInput={(event) => setUsers(event.currentTarget.value)} />
        <span class="hint">The {server.users}, separated by commas; empty: every user’s plays count.</span>
      </div>
      <div class="field">
        <label>
          <input type="checkbox" checked={manualMarks} onChange={(event) => setManualMarks(event.currentTarget.checked)} /> Manual “mark played” and “mark unplayed” on the server count
        </label>
      </div>
      <button disabled={save.busy}>Save {server.name} options</button>
      <Notice outcome={save.outcome} />
    </form>
  );
}

const serverName = (source: Source) => servers.find((server) => server.source === source)?.name ?? source;

function DeliveryLog({ deliveries, reload }: { deliveries: Viewer['mediaServerDeliveries']; reload: () => void }) {
  return (
    <section class="card" aria-labelledby="deliveries-heading">
      <h2 id="deliveries-heading">Deliveries</h2>
      <p class="hint">The newest deliveries of your servers (progress events are not kept; a stop before the end is, with how far it got). An unmatched play is retried when the catalog learns it.</p>
      <button type="button" onClick={reload}>
        Refresh deliveries
      </button>
      {deliveries.length === 0 && <p>No deliveries yet.</p>}
      {deliveries.length > 0 && (
        <div class="table-scroll">
          <table>
            <caption class="visually-hidden">Media server deliveries, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Server</th>
                <th scope="col">Event</th>
                <th scope="col">User</th>
                <th scope="col">Result</th>
                <th scope="col">Why</th>
              </tr>
            </thead>
            <tbody>
              {deliveries.map((delivery) => (
                <tr key={delivery.databaseId}>
                  <td>{formatTime(delivery.at)}</td>
                  <td>{serverName(delivery.source)}</td>
                  <td>{delivery.event}</td>
                  <td>{delivery.serverUser ?? '—'}</td>
                  <td>{delivery.waiting ? `${delivery.result} (waiting for the catalog)` : delivery.result}</td>
                  <td>{delivery.detail}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
