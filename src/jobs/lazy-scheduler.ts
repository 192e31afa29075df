import type { Config } from '../config.ts';
import type { Scheduler, SchedulerDeps } from './scheduler.ts';

/**
 * The job system, loaded (scheduler.ts, Agenda and its store) when it is first used: the server
 * makes it ready once it listens (src/app.ts), as loading Agenda costs a start ~0.1 s of CPU that
 * need not come before serving. The built server keeps it in a chunk of its own (scripts/build.mjs),
 * so that its packages are not loaded before. `agenda` is there once it is loaded (after `ready()`).
 */
export function createLazyScheduler(config: Config, deps: SchedulerDeps): Scheduler {
  let loading: Promise<Scheduler> | undefined;
  let loaded: Scheduler | undefined;
  const load = () => (loading ??= import('./scheduler.ts').then(({ createScheduler }) => (loaded = createScheduler(config, deps))));
  return {
    get agenda() {
      if (!loaded) throw new Error('the job system is not loaded yet (wait for ready())');
      return loaded.agenda;
    },
    ready: async () => (await load()).ready(),
    queue: async (definition, props, options) => (await load()).queue(definition, props, options),
    live: async (definition) => (await load()).live(definition),
    start: async () => (await load()).start(),
    async stop(drainMs) {
      // Never loaded: nothing runs, nothing to give back.
      if (loading) await (await loading).stop(drainMs);
    },
    ping: async () => (await load()).ping(),
  };
}
