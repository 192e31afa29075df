import { InMemoryNotificationChannel, type AgendaBackend, type JobRepository, type NotificationChannel } from 'agenda';
import { SqlJobRepository } from './sql-job-repository.ts';

/** Options of `createSqlJobBackend`. */
export interface SqlJobBackendOptions {
  /**
   * Tell this process's Agenda about jobs it saves, so that a job due now starts at once instead
   * of at the next poll (default true). Other processes still find jobs by polling. Each save
   * then also tries to lock due jobs of that name, which costs a query or two per save when
   * thousands of jobs are queued in a loop; turn it off for a process that only queues.
   */
  notifyInProcess?: boolean;
}

/**
 * Agenda's backend on the application's database (SQLite or PostgreSQL through `db()`), the
 * AgendaJob table. The database belongs to the app: connect and disconnect do nothing, and
 * `ownsConnection` is false so that `agenda.stop()` never closes it. The database must be open
 * (`openDatabase`) before the Agenda instance saves or runs jobs.
 */
export function createSqlJobBackend(options: SqlJobBackendOptions = {}): AgendaBackend {
  const repository: JobRepository = new SqlJobRepository();
  // One channel per backend: Agenda's stop() disconnects the channel and drops its subscribers,
  // so a channel shared by two Agenda instances would go deaf when either stops.
  const notificationChannel: NotificationChannel | undefined = options.notifyInProcess === false ? undefined : new InMemoryNotificationChannel();
  return {
    name: 'SQL',
    repository,
    notificationChannel,
    ownsConnection: false,
    connect: async () => {},
    disconnect: async () => {},
  };
}
