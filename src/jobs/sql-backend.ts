import { InMemoryNotificationChannel, type NotificationChannel } from 'agenda';
import type { LockRenewingBackend } from './held-locks.ts';
import { SqlJobRepository } from './sql-job-repository.ts';

/**
 * Agenda's backend on the application's SQLite database (through `db()`), the AgendaJob table;
 * on PostgreSQL createAgenda uses @agendajs/postgres-backend instead. The database belongs to the
 * app: connect and disconnect do nothing, and `ownsConnection` is false so that `agenda.stop()`
 * never closes it. The database must be open (`openDatabase`) before the Agenda instance saves or
 * runs jobs.
 */
export function createSqlJobBackend(): LockRenewingBackend {
  const repository = new SqlJobRepository();
  // Tells this process's Agenda about jobs it saves, so a job due now starts at once instead of
  // at the next poll (other processes find it by polling). One channel per backend: Agenda's
  // stop() disconnects the channel and drops its subscribers, so a channel shared by two Agenda
  // instances would go deaf when either stops.
  const notificationChannel: NotificationChannel = new InMemoryNotificationChannel();
  return {
    name: 'SQL',
    repository,
    notificationChannel,
    ownsConnection: false,
    connect: async () => {},
    disconnect: async () => {},
    renewLocks: (ids, owner, at) => repository.renewLocks(ids, owner, at),
  };
}
