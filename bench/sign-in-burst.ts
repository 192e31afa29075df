import { rmSync } from 'node:fs';
import { createAccount } from '../src/accounts/accounts.ts';
import { startBenchApp } from './bench-app.ts';

/**
 * `npm run bench:sign-in`: how long a person's sign-in takes while others send a burst of wrong
 * ones (issue 21: the person's waited 10–52 s behind 24 guesses). In-process, SQLite or
 * BENCH_DATABASE_URL. Each round, `BENCH_ADDRESSES` addresses (default 4) send `BENCH_BURST`
 * wrong sign-ins each (default 24, unknown names: only the hashing is at stake) all at once; once
 * they are sent, the person signs in from an address of their own. Prints, per round, the
 * person's time, and the burst's answers by status with the time of the slowest refusal; and the
 * person's time with nothing else running, for comparison.
 */
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const burstPerAddress = Number(process.env.BENCH_BURST ?? 24);
const addresses = Number(process.env.BENCH_ADDRESSES ?? 4);
const { app, dataDir } = await startBenchApp('airdate-bench-sign-in-');
const password = 'the person password';
await createAccount({ name: 'person', password });

const signIn = async (name: string, guess: string, address: string) => {
  const started = performance.now();
  const response = await app.fetch(
    new Request('http://bench.local/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: 'http://bench.local' },
      body: JSON.stringify({ query: 'mutation($n: String!, $p: String!) { signIn(name: $n, password: $p) { name } }', variables: { n: name, p: guess } }),
    }),
    { clientAddress: address },
  );
  await response.text();
  return { status: response.status, ms: performance.now() - started };
};

const alone: number[] = [];
for (let sample = 0; sample < 3; sample++) alone.push((await signIn('person', password, '192.0.2.1')).ms);
console.log(`person alone: ${alone.map((ms) => ms.toFixed(0)).join(', ')} ms`);

for (let round = 0; round < rounds; round++) {
  // Fresh addresses each round, so the address limit (50 failures per 15 minutes) is not what answers.
  const burst = Array.from({ length: addresses * burstPerAddress }, (_, index) =>
    signIn(`nobody-${round}-${index}`, 'a wrong guess', `203.0.113.${round * addresses + (index % addresses) + 1}`),
  );
  await new Promise((resolve) => setImmediate(resolve));
  const person = await signIn('person', password, `192.0.2.${round + 2}`);
  const answers = await Promise.all(burst);
  const byStatus = new Map<number, number[]>();
  for (const answer of answers) byStatus.set(answer.status, [...(byStatus.get(answer.status) ?? []), answer.ms]);
  const summary = [...byStatus].map(([status, times]) => `${times.length} × ${status} (slowest ${Math.max(...times).toFixed(0)} ms)`).join(', ');
  console.log(`round ${round + 1}: person ${person.status} in ${person.ms.toFixed(0)} ms; burst of ${answers.length}: ${summary}`);
}
await app.close();
rmSync(dataDir, { recursive: true, force: true });
