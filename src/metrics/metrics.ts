import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { knownOperationNames } from './operation-names.ts';
import { registeredCaches } from './cache-sizes.ts';

/** How a GraphQL operation ended: `ok` (no errors), `error` (a client's mistake or an expected failure), `fault` (an unexpected error). */
export type GraphQLOutcome = 'ok' | 'error' | 'fault';
/** How a job run ended: `retry` is a webhook delivery that asked to be tried again later. */
export type JobOutcome = 'success' | 'failure' | 'retry';
/** How an import request ended. */
export type ImportOutcome = 'imported' | 'dry_run' | 'refused' | 'failed';
/** What one HTTP request to a catalog got. */
export type CatalogOutcome = 'ok' | 'client_error' | 'server_error' | 'rate_limited' | 'timeout' | 'network_error';

/**
 * What the server counts (docs/operations.md "Metrics"; docs/grafana-dashboard.json is built on these names).
 * Every label value is bounded: route templates, job names, sources, outcomes — never a URL, an
 * account or a name a client made up without a cap.
 */
export interface Metrics {
  /** The registry `/metrics` shows (undefined when metrics are off). */
  readonly registry: Registry | undefined;
  httpRequest(props: { method: string; route: string; status: number; seconds: number }): void;
  /**
   * An operation Yoga ran for a /graphql request (the REST facade's own operations are counted as
   * HTTP requests), under its name when it is one the server knows (operation-names.ts).
   */
  graphqlOperation(props: { operationName: string | null | undefined; outcome: GraphQLOutcome }): void;
  /** A take refused by a rate limit (src/http/rate-limit.ts), by the limit's name. */
  rateLimitRefused(limit: string): void;
  /** A job run: its end, how long it ran, and how long after its due time it started (undefined when unknown). */
  jobRun(props: { job: string; outcome: JobOutcome; seconds: number; lagSeconds: number | undefined }): void;
  /** One webhook delivery attempt (or a delivery that found nothing to send: cancelled, skipped). */
  webhookDelivery(props: { outcome: string; attempt: number | undefined }): void;
  /** One import request (REST or GraphQL) with the items it imported. */
  importRun(props: { source: string; outcome: ImportOutcome; items: number; seconds: number }): void;
  /** One HTTP request to an external catalog (each retry is a request). */
  catalogRequest(props: { catalog: string; outcome: CatalogOutcome; seconds: number }): void;
}

/** Methods counted by name; anything else is `other` (a client may send any token as a method). */
const knownMethods = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
const operationNamePattern = /^[_A-Za-z][_0-9A-Za-z]{0,99}$/;
/** Attempts counted one by one; the webhook schedule has 8. */
const maxAttemptLabel = 10;

const secondsBuckets = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const longBuckets = [0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300, 900];

/** Records nothing: the server with AIRDATE_METRICS=off, and code built without an app (tests, commands). */
export const noMetrics: Metrics = {
  registry: undefined,
  httpRequest: () => undefined,
  graphqlOperation: () => undefined,
  rateLimitRefused: () => undefined,
  jobRun: () => undefined,
  webhookDelivery: () => undefined,
  importRun: () => undefined,
  catalogRequest: () => undefined,
};

/** A gauge read when /metrics is scraped: what a feature keeps (its caches' sizes), given by the app. */
export interface GaugeSource {
  name: string;
  help: string;
  read(): number;
}

/**
 * The metrics of one app, on a registry of its own (several apps in one process, as in tests,
 * each count their own), with Node's default process metrics and the features' `gauges`.
 */
export function createMetrics(gauges: readonly GaugeSource[] = []): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const registers = [registry];

  const httpRequests = new Counter({ name: 'airdate_http_requests_total', help: 'HTTP requests answered, by method, route template and status.', labelNames: ['method', 'route', 'status'], registers });
  const httpDuration = new Histogram({ name: 'airdate_http_request_duration_seconds', help: 'Time to answer an HTTP request (until the response starts), by method, route template and status.', labelNames: ['method', 'route', 'status'], buckets: secondsBuckets, registers });
  const graphqlOperations = new Counter({ name: 'airdate_graphql_operations_total', help: 'GraphQL operations of /graphql requests, by operation name and outcome (ok, error, fault).', labelNames: ['operation', 'outcome'], registers });
  const rateLimitRefusals = new Counter({ name: 'airdate_rate_limit_refusals_total', help: 'Requests refused by a rate limit, by limit.', labelNames: ['limit'], registers });
  const jobRuns = new Counter({ name: 'airdate_job_runs_total', help: 'Job runs, by job name and outcome (success, failure, retry).', labelNames: ['job_name', 'outcome'], registers });
  const jobDuration = new Histogram({ name: 'airdate_job_duration_seconds', help: 'How long a job run took, by job name.', labelNames: ['job_name'], buckets: longBuckets, registers });
  const jobLag = new Histogram({ name: 'airdate_job_queue_lag_seconds', help: 'Time between a job run\'s due time and its start, by job name.', labelNames: ['job_name'], buckets: longBuckets, registers });
  const webhookDeliveries = new Counter({ name: 'airdate_webhook_deliveries_total', help: 'Webhook delivery attempts, by outcome and attempt number.', labelNames: ['outcome', 'attempt'], registers });
  const imports = new Counter({ name: 'airdate_imports_total', help: 'Import requests, by source and outcome.', labelNames: ['source', 'outcome'], registers });
  const importItems = new Counter({ name: 'airdate_import_items_total', help: 'Items (shows, episodes, movies, games, history entries) written by imports, by source.', labelNames: ['source'], registers });
  const importDuration = new Histogram({ name: 'airdate_import_duration_seconds', help: 'How long an import request took, by source.', labelNames: ['source'], buckets: longBuckets, registers });
  const catalogRequests = new Counter({ name: 'airdate_catalog_requests_total', help: 'HTTP requests to external catalogs, by catalog and outcome.', labelNames: ['catalog', 'outcome'], registers });
  const catalogDuration = new Histogram({ name: 'airdate_catalog_request_duration_seconds', help: 'How long an HTTP request to an external catalog took, by catalog.', labelNames: ['catalog'], buckets: secondsBuckets, registers });

  // Read at each scrape: every bounded cache's size and bound (metrics/cache-sizes.ts).
  new Gauge({
    name: 'airdate_cache_size',
    help: 'What each in-memory cache holds now, by cache and unit (entries or bytes); docs/operations.md "Caches".',
    labelNames: ['cache', 'unit'],
    registers,
    collect() {
      for (const [name, cache] of registeredCaches()) this.set({ cache: name, unit: cache.unit }, cache.size());
    },
  });
  new Gauge({
    name: 'airdate_cache_max',
    help: 'The most each in-memory cache may hold, by cache and unit (entries or bytes).',
    labelNames: ['cache', 'unit'],
    registers,
    collect() {
      for (const [name, cache] of registeredCaches()) this.set({ cache: name, unit: cache.unit }, cache.max);
    },
  });
  // Read at each scrape: the library snapshots this process keeps between writes (src/feeds/snapshot-cache.ts).
  for (const gauge of gauges) new Gauge({ name: gauge.name, help: gauge.help, registers, collect() { this.set(gauge.read()); } });

  /** The label of a client's operation name: its own when the server knows it (operation-names.ts). */
  const operationLabel = (name: string | null | undefined): string => {
    if (name === null || name === undefined || name === '') return '(anonymous)';
    if (knownOperationNames.has(name)) return name;
    return operationNamePattern.test(name) ? '(other)' : '(invalid)';
  };

  return {
    registry,
    httpRequest({ method, route, status, seconds }) {
      const labels = { method: knownMethods.has(method) ? method : 'other', route, status: String(status) };
      httpRequests.inc(labels);
      httpDuration.observe(labels, seconds);
    },
    graphqlOperation({ operationName, outcome }) {
      graphqlOperations.inc({ operation: operationLabel(operationName), outcome });
    },
    rateLimitRefused(limit) {
      rateLimitRefusals.inc({ limit });
    },
    jobRun({ job, outcome, seconds, lagSeconds }) {
      // `job_name`, not `job`: Prometheus gives every scraped series a `job` label of its own.
      jobRuns.inc({ job_name: job, outcome });
      jobDuration.observe({ job_name: job }, seconds);
      if (lagSeconds !== undefined) jobLag.observe({ job_name: job }, Math.max(0, lagSeconds));
    },
    webhookDelivery({ outcome, attempt }) {
      const label = attempt === undefined ? 'none' : attempt > maxAttemptLabel ? `${maxAttemptLabel}+` : String(attempt);
      webhookDeliveries.inc({ outcome, attempt: label });
    },
    importRun({ source, outcome, items, seconds }) {
      imports.inc({ source, outcome });
      if (items > 0) importItems.inc({ source }, items);
      importDuration.observe({ source }, seconds);
    },
    catalogRequest({ catalog, outcome, seconds }) {
      catalogRequests.inc({ catalog, outcome });
      catalogDuration.observe({ catalog }, seconds);
    },
  };
}
