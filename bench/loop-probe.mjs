import { writeFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';

/**
 * Loaded into a benchmark's `serve` process (NODE_OPTIONS=--import), so the server's own event
 * loop and CPU are measured from inside, as bench/abuse.ts does in-process, without a hook in the
 * server's code. The first SIGUSR2 starts a measurement; the next one writes the event-loop delay
 * percentiles and the process's CPU time since the start to BENCH_PROBE_FILE as JSON.
 */
const file = process.env.BENCH_PROBE_FILE;
const delay = monitorEventLoopDelay({ resolution: 1 });
let since;

process.on('SIGUSR2', () => {
  if (since === undefined) {
    delay.reset();
    delay.enable();
    since = process.cpuUsage();
    return;
  }
  delay.disable();
  const cpu = process.cpuUsage(since);
  since = undefined;
  const ms = (nanoseconds) => nanoseconds / 1e6;
  writeFileSync(file, JSON.stringify({ cpuMs: (cpu.user + cpu.system) / 1000, loopP50: ms(delay.percentile(50)), loopP99: ms(delay.percentile(99)), loopMax: ms(delay.max) }));
});
