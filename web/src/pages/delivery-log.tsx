import { useEffect, useState } from 'preact/hooks';
import { request } from '../client.ts';
import { formatTime, Notice, useAction, useLoad } from '../components.tsx';
import { graphql } from '../graphql.ts';
import { notificationTitle } from '../text.ts';

const DeliveryLogQuery = graphql(`
  query DeliveryLog {
    viewer {
      notifications(first: 20) {
        edges {
          node {
            databaseId
            itemKey
            kind
            releaseDate
            status
            attempts
            payload
            lastAttemptAt
            nextAttemptAt
            deliveries(first: 20) {
              number
              at
              outcome
              statusCode
              error
            }
          }
        }
      }
    }
  }
`);

const Redeliver = graphql(`
  mutation Redeliver($id: Int!) {
    redeliverNotification(id: $id) {
      __typename
      ... on MutationRedeliverNotificationSuccess {
        data {
          databaseId
          attempts
        }
      }
      ... on Error {
        message
      }
    }
  }
`);

const loadLog = async () => (await request(DeliveryLogQuery)).viewer.notifications.edges.map((edge) => edge.node);

/** The newest release notifications with each delivery attempt, and "send again" for finished ones. */
export function DeliveryLog() {
  const { data: notifications, error, reload } = useLoad(loadLog);
  /** Until when the log reloads itself: the redelivery runs as a job, moments after the answer. */
  const [followUntil, setFollowUntil] = useState(0);
  const redeliver = useAction(async (id: number) => {
    const result = (await request(Redeliver, { id })).redeliverNotification;
    if (result.__typename !== 'MutationRedeliverNotificationSuccess') throw new Error(result.message);
    setFollowUntil(Date.now() + 30_000);
    reload();
    return 'Sending again; the log shows the new attempt when it is made.';
  });
  // While a redelivery asked for here is pending, read the log again every second (30 s at most).
  useEffect(() => {
    if (Date.now() > followUntil || !notifications?.some((notification) => notification.status === 'pending')) return;
    const timer = setTimeout(reload, 1000);
    return () => clearTimeout(timer);
  }, [notifications, followUntil, reload]);
  return (
    <section class="card" aria-labelledby="log-heading">
      <h2 id="log-heading">Delivery log</h2>
      {error && <p role="alert">{error}</p>}
      {notifications?.length === 0 && <p>No release notifications yet.</p>}
      {notifications && notifications.length > 0 && (
        <div class="table-scroll">
          <table>
            <caption class="visually-hidden">Release notifications, newest first (the latest 20)</caption>
            <thead>
              <tr>
                <th scope="col">Item</th>
                <th scope="col">Status</th>
                <th scope="col">Attempts</th>
                <th scope="col">Next retry</th>
                <th scope="col">Action</th>
              </tr>
            </thead>
            <tbody>
              {notifications.map((notification) => (
                <tr key={notification.databaseId}>
                  <td>
                    {notificationTitle(notification)} ({notification.releaseDate})
                    {notification.deliveries.length > 0 && (
                      <details>
                        <summary>Attempts</summary>
                        <ol>
                          {notification.deliveries.map((attempt) => (
                            <li key={attempt.number}>
                              {formatTime(attempt.at)}: {attempt.outcome}
                              {attempt.statusCode ? ` (HTTP ${attempt.statusCode})` : ''}
                              {attempt.error ? ` — ${attempt.error}` : ''}
                            </li>
                          ))}
                        </ol>
                      </details>
                    )}
                  </td>
                  <td>{notification.status}</td>
                  <td>{notification.attempts}</td>
                  <td>{formatTime(notification.nextAttemptAt)}</td>
                  <td>
                    {notification.status !== 'pending' && (
                      <button type="button" disabled={redeliver.busy} aria-label={`Send again: ${notificationTitle(notification)}`} onClick={() => void redeliver.run(notification.databaseId)}>
                        Send again
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Notice outcome={redeliver.outcome} />
    </section>
  );
}
