import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from './app.ts';
import { runCommand } from './cli/run-command.ts';
import { ConfigError, loadConfig, type Config } from './config.ts';
import { idleCompactionMs, startIdleCompaction, tuneHeap } from './heap-tuning.ts';
import { createHttpServer } from './http/node-server.ts';
import { createMetricsServer, metricsPath } from './metrics/metrics-endpoint.ts';
import { setupLinkForServer } from './accounts/setup-links.ts';

/**
 * The one entry point: `serve` (what `npm start` runs) listens; every other command is run by
 * the command line module. Configuration is parsed here, once.
 */
async function main(argv: string[]): Promise<number> {
  tuneHeap();
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    for (const problem of error.problems) process.stderr.write(`airdate: configuration: ${problem}\n`);
    return 2;
  }
  const [command = 'serve'] = argv;
  if (command === 'serve' && argv.length <= 1) return serve(config);
  return runCommand(argv, {
    stdout: (line) => process.stdout.write(`${line}\n`),
    stderr: (line) => process.stderr.write(`${line}\n`),
    config,
  });
}

async function serve(config: Config): Promise<number> {
  let app;
  try {
    app = await createApp(config);
  } catch (error) {
    process.stderr.write(`airdate: cannot start: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
  const { role } = config.jobs;
  // Metrics on a port of their own (AIRDATE_METRICS_PORT): a Prometheus server may reach it
  // without reaching the app; a worker's only listener.
  const metricsServer = config.metrics.enabled && config.metrics.port !== undefined ? createMetricsServer(app.serveMetrics) : undefined;
  if (metricsServer) await listen(metricsServer, config.metrics.port!, config.http.host);
  const metricsAt = metricsServer ? `; metrics at http://localhost:${(metricsServer.address() as AddressInfo).port}${metricsPath}` : '';
  // Requests are served from here on: what createApp began meanwhile (the offline catalog, the job
  // store) need not come first; /readyz answers 503 until it is done.
  const server = role === 'worker' ? undefined : createHttpServer(app);
  if (server) await listen(server, config.http.port, config.http.host);
  // The heap compacted after a quiet spell (the start-up's included): an idle server gives back its young generation.
  const compaction = startIdleCompaction({
    onCompacted: ({ ms, rssBefore, rssAfter }) =>
      app.logger.info(`compacted the heap after ${idleCompactionMs / 1000} s without requests in ${ms.toFixed(0)} ms: ${megabytes(rssBefore)} → ${megabytes(rssAfter)} MB resident`),
  });
  server?.on('request', () => compaction?.active());
  let stopping = false;
  const stopped = new Promise<number>((resolve) => {
    // Graceful: stop accepting requests and let those in progress finish (an import may take a
    // while; bounded), let running jobs finish (app.close drains them), then close the database.
    const stop = () => {
      stopping = true;
      // Open live update streams would hold their connections until the bound below.
      app.closeStreams();
      compaction?.stop();
      metricsServer?.close();
      const requestsDone = new Promise<void>((done) => (server ? server.close(() => done()) : done()));
      server?.closeIdleConnections();
      const bound = setTimeout(() => server?.closeAllConnections(), shutdownRequestsMs);
      void Promise.all([requestsDone, app.jobs.stop()])
        .then(() => clearTimeout(bound))
        .then(() => app.close())
        .then(() => resolve(0));
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  try {
    await app.started;
  } catch (error) {
    process.stderr.write(`airdate: cannot start: ${error instanceof Error ? error.message : String(error)}\n`);
    server?.closeAllConnections();
    server?.close();
    metricsServer?.close();
    await app.close().catch(() => undefined);
    return 1;
  }
  if (role !== 'web' && !stopping) await app.jobs.start();
  if (stopping) return stopped;
  if (!server) {
    process.stdout.write(`Airdate worker running jobs (AIRDATE_ROLE=worker: no HTTP listener)${metricsAt}\n`);
    return stopped;
  }
  const { port } = server.address() as AddressInfo;
  const origin = config.web.publicUrl ?? `http://localhost:${port}`;
  // First run: the only way to the first (administrator) account is this one-time link. Printed
  // with the listening line, whatever the log level: the person starting the server needs it.
  // The line comes once the start is complete (the catalog checked, the jobs running).
  const firstRun = await setupLinkForServer({ origin, inviteOtherwise: false });
  process.stdout.write(
    `Airdate listening on http://localhost:${port} (the web app at ${origin}/, GraphiQL at /graphql)` +
      (role === 'web' ? ' (AIRDATE_ROLE=web: jobs run in worker processes)' : '') +
      `${metricsAt}\n` +
      (firstRun ? `No account yet: open ${firstRun.url} within an hour to create the administrator\n` : ''),
  );
  return stopped;
}

const megabytes = (bytes: number) => (bytes / 1024 / 1024).toFixed(0);

/** Starts `server` listening; rejects when it cannot (the port is taken, say). */
function listen(server: Server, port: number, host: string | undefined): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
}

/** How long a stopping server waits for requests in progress before cutting their connections. */
const shutdownRequestsMs = 25_000;

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`airdate: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
