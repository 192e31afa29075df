import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig } from '../src/config.ts';
import { closeDatabase, db, openDatabase } from '../src/db/client.ts';
import { createAccount } from '../src/accounts/accounts.ts';
import { markItems, markLimits, undoMarks, type MarkDate } from '../src/library/marks.ts';

/**
 * `npm run bench:marks`: the web app's bulk marks at their bound, in process (src/library/marks.ts,
 * issue 31): markWatched of BENCH_ITEMS (5 000) episodes with their air dates, unmarked, marked
 * again, then undoMarks of that last mark's entries. For each: the time of its one transaction
 * (the longest another person's write waits for it on SQLite), the statements it sent and the
 * statement types that took longest by the driver's own times (Prisma's query events). What is
 * left of the time is Prisma's own work and the event loop's turns between statements.
 *
 * SQLite in a fresh data folder, or PostgreSQL with BENCH_DATABASE_URL (an empty database; filled,
 * not cleaned). BENCH_ROUNDS (3) rounds, each on a new account; the table gives each step's median.
 */
const items = Number(process.env.BENCH_ITEMS ?? markLimits.items);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const dataDir = mkdtempSync(path.join(tmpdir(), 'airdate-bench-marks-'));
const databaseUrl = process.env.BENCH_DATABASE_URL;
const config = loadConfig({ AIRDATE_DATA_DIR: dataDir, AIRDATE_LOG_LEVEL: 'silent', ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}) });
await openDatabase(config, { migrate: true });
const load = () => loadavg().map((value) => value.toFixed(2)).join(' ');
console.log(`bench:marks: ${items} items, ${rounds} rounds, ${config.database.kind}; load average ${load()}`);

/** Statements sent and the driver's time per statement type (its first words), while counting. */
let statements = 0;
const byType = new Map<string, number>();
db().$on('query' as never, (event: { query: string; duration: number }) => {
  statements += 1;
  const type = event.query.replace(/`main`\.|"public"\./g, '').replace(/[`"]/g, '').split(/\s+/).slice(0, 3).join(' ');
  byType.set(type, (byType.get(type) ?? 0) + Number(event.duration));
});

/** A show of `items` episodes, each aired on a day of its own. */
async function seed(round: number): Promise<{ accountId: number; ids: number[] }> {
  const account = await createAccount({ name: `bench-marks-${Date.now()}-${round}`, timezone: 'UTC' });
  const show = await db().show.create({ data: { title: `bench-marks ${account.id}` } });
  for (let start = 0; start < items; start += 500) {
    const count = Math.min(500, items - start);
    await db().episode.createMany({
      data: Array.from({ length: count }, (_, offset) => {
        const index = start + offset;
        return { showId: show.id, season: 1 + Math.floor(index / 100), number: 1 + (index % 100), title: `E${index}`, airDate: new Date(Date.UTC(2000, 0, 1 + index)).toISOString().slice(0, 10) };
      }),
    });
  }
  const ids = (await db().episode.findMany({ where: { showId: show.id }, select: { id: true }, orderBy: { id: 'asc' } })).map((episode) => episode.id);
  return { accountId: account.id, ids };
}

interface Step {
  ms: number;
  statements: number;
  top: string;
}
const steps = new Map<string, Step[]>();

async function measure(name: string, work: () => Promise<{ changed: number }>): Promise<void> {
  statements = 0;
  byType.clear();
  const started = performance.now();
  const { changed } = await work();
  const ms = performance.now() - started;
  if (changed !== items) throw new Error(`${name} changed ${changed} items, not ${items}`);
  const top = [...byType].sort((a, b) => b[1] - a[1]).slice(0, 3).map(([type, total]) => `${type} ${total.toFixed(0)} ms`).join(', ');
  steps.set(name, [...(steps.get(name) ?? []), { ms, statements, top }]);
}

for (let round = 0; round < rounds; round += 1) {
  const { accountId, ids } = await seed(round);
  const mark = (watched: boolean, date: MarkDate) => markItems({ accountId, kind: 'episode', ids, watched, date });
  await measure('markWatched, air dates', () => mark(true, 'airDate'));
  await measure('markWatched(false)', () => mark(false, 'now'));
  let last = { historyIds: [] as number[] };
  await measure('markWatched, now', async () => (last = await mark(true, 'now')));
  await measure('undoMarks', () => undoMarks({ accountId, historyIds: last.historyIds }));
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
console.log(`\n| ${items} items (${config.database.kind}) | transaction, median of ${rounds} | statements | longest statement types (driver time, last round) |\n|---|---|---|---|`);
for (const [name, measured] of steps) console.log(`| ${name} | ${median(measured.map((step) => step.ms)).toFixed(0)} ms | ${measured.at(-1)!.statements} | ${measured.at(-1)!.top} |`);
console.log(`\nload average ${load()}`);
await closeDatabase();
rmSync(dataDir, { recursive: true, force: true });
