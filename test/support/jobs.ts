import { db } from '../../src/db/client.ts';

/** Job rows named `name` queued for one account, read straight from the SQL job store's table. */
export async function jobRowsFor(name: string, accountId: number) {
  const rows = await db().agendaJob.findMany({ where: { name } });
  return rows.filter((row) => (JSON.parse(row.attrs) as { data?: { accountId?: number } }).data?.accountId === accountId);
}
