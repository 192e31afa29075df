import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { Response } from '@whatwg-node/fetch';
import { createServerAdapter } from '@whatwg-node/server';
import type { Config } from '../config.ts';
import { checkHost } from '../http/public-origin.ts';
import { errorStatus } from '../http/error-status.ts';
import { errorResponse } from '../http/responses.ts';
import type { Logger } from '../log.ts';
import { createMetrics, noMetrics, type GaugeSource, type Metrics } from './metrics.ts';

/** The path metrics are served at, on the main port or on their own (AIRDATE_METRICS_PORT). */
export const metricsPath = '/metrics';

const metricsNeedToken =
  'metrics are served on the main port only with a token: set AIRDATE_METRICS_TOKEN (a scrape then sends Authorization: Bearer <token>), or AIRDATE_METRICS_PORT for a port of their own';

/** An app's metrics and the ways they are read. */
export interface AppMetrics {
  metrics: Metrics;
  /** `GET /metrics` on the main port, or undefined when metrics have a port of their own or are off. */
  mainPort: ((request: Request) => Promise<Response>) | undefined;
  /** `GET /metrics` on the metrics port (AIRDATE_METRICS_PORT). */
  ownPort(request: Request): Promise<Response>;
}

/**
 * The metrics of an app by its settings. /metrics is answered on the main port unless metrics are
 * off or have a port of their own, and there only with AIRDATE_METRICS_TOKEN: any page of the same
 * site could read them otherwise. Without a token nor a port nobody can read them, so none are
 * collected. The metrics port checks the Host as the main port does: a DNS-rebinding page must
 * not read it either.
 */
export function createAppMetrics(config: Pick<Config, 'metrics' | 'web'>, logger: Logger, gauges: readonly GaugeSource[]): AppMetrics {
  const onMainPort = config.metrics.enabled && config.metrics.port === undefined;
  const served = config.metrics.enabled && (config.metrics.port !== undefined || config.metrics.token !== undefined);
  const metrics = served ? createMetrics(gauges) : noMetrics;
  if (onMainPort && !served) logger.info(`metrics are not collected: ${metricsNeedToken}`);
  const handler = createMetricsHandler({ metrics, token: config.metrics.token });
  return {
    metrics,
    mainPort: !onMainPort ? undefined : served ? handler : async () => errorResponse(404, metricsNeedToken),
    async ownPort(request) {
      try {
        checkHost(request, config.web);
      } catch (error) {
        const answer = errorStatus(error);
        if (answer.kind !== 'expected') throw error;
        return errorResponse(answer.status, answer.message, answer.headers);
      }
      return handler(request);
    },
  };
}

/**
 * `GET /metrics`: the registry in Prometheus's text format (`text/plain; version=0.0.4`). With a
 * token (AIRDATE_METRICS_TOKEN) a scrape must send `Authorization: Bearer <token>`, compared in
 * constant time (both sides hashed first, so their lengths tell nothing either); 401 otherwise.
 */
export function createMetricsHandler(props: { metrics: Metrics; token: string | undefined }): (request: Request) => Promise<Response> {
  const { registry } = props.metrics;
  const expected = props.token === undefined ? undefined : digest(props.token);
  return async (request) => {
    if (registry === undefined) return errorResponse(404, `no such endpoint: ${request.method} ${metricsPath}`);
    if (request.method !== 'GET' && request.method !== 'HEAD') return errorResponse(405, `method ${request.method} is not allowed here; use GET, HEAD`, { allow: 'GET, HEAD' });
    if (expected !== undefined) {
      const given = /^Bearer (\S+)$/i.exec(request.headers.get('authorization') ?? '')?.[1];
      if (given === undefined || !timingSafeEqual(digest(given), expected)) {
        return errorResponse(401, 'metrics need the token in AIRDATE_METRICS_TOKEN: send Authorization: Bearer <token>', { 'www-authenticate': 'Bearer realm="metrics"' });
      }
    }
    const body = await registry.metrics();
    return new Response(request.method === 'HEAD' ? null : body, { status: 200, headers: { 'content-type': registry.contentType, 'cache-control': 'no-store' } });
  };
}

const digest = (text: string): Buffer => createHash('sha256').update(text).digest();

/**
 * A listener of its own for metrics (AIRDATE_METRICS_PORT), not yet listening: `/metrics` and
 * nothing else, so the port can be opened to a Prometheus server without opening the app.
 */
export function createMetricsServer(handler: (request: Request) => Promise<Response>): Server {
  return createServer(
    createServerAdapter(async (request: Request) => {
      if (new URL(request.url).pathname !== metricsPath) return errorResponse(404, 'this port serves /metrics only');
      return handler(request);
    }),
  );
}
