import path from 'node:path';
import type { DestinationStream } from 'pino';
import { createOidcRoutes } from './accounts/single-sign-on/oidc-routes.ts';
import { initSessions } from './accounts/sessions.ts';
import { createSignInLimiter } from './accounts/sign-in-limit.ts';
import { createCatalogService } from './catalog/catalog-service.ts';
import { createCatalogProviders } from './catalog/providers.ts';
import type { Config } from './config.ts';
import { closeDatabase, db, openDatabase, postgresCountersPool } from './db/client.ts';
import { snapshotGauges } from './feeds/snapshot-cache.ts';
import { createGraphiQL } from './graphql/graphiql.ts';
import { createGraphQLEndpoint } from './graphql/graphql-endpoint.ts';
import { createCompression } from './http/compression.ts';
import { createEdge, type RequestContext } from './http/edge.ts';
import { createRateLimiter } from './http/rate-limit.ts';
import { json } from './http/responses.ts';
import { createWebApp } from './http/web-app.ts';
import { initSecretKey } from './keys/secret-key.ts';
import { liveUpdates, rateLimitWindowSeconds } from './limits.ts';
import { createLogger, type Logger } from './log.ts';
import { createAppMetrics } from './metrics/metrics-endpoint.ts';
import { createLiveUpdates } from './library/live-updates.ts';
import { createHomeAssistantMqtt, publishPollMs, type HomeAssistantMqtt } from './home-assistant/mqtt-publisher.ts';
import { createMqttConnection, mqttConnectedGauge, type MqttConnection } from './mqtt/mqtt-connection.ts';
import { createLazyScheduler } from './jobs/lazy-scheduler.ts';
import type { Scheduler } from './jobs/scheduler.ts';
import { jobDefinitions } from './jobs.ts';
import { sealMovedWebhookUrls } from './accounts/webhook-setting.ts';
import type { ChannelServices } from './notifications/channel-services.ts';
import { createApiDescription } from './openapi/api-description.ts';
import { projectRoot } from './paths.ts';
import { bindRoutes, createRouter } from './router.ts';
import { createEarlyAnswers, type AnswerEarly } from './early-answers.ts';
import { restRoutes } from './routes.ts';
import { schema } from './schema.ts';

export type { RequestContext } from './http/edge.ts';

/** The whole server, built without listening: tests call `fetch` in-process. */
export interface App {
  /**
   * Answers one request; never throws. `clientAddress`: the peer's address as the socket saw it
   * (src/http/node-server.ts), for the sign-in rate limit and the session list.
   */
  fetch(request: Request, context?: RequestContext): Promise<Response>;
  /**
   * The start-up work that need not delay listening, begun by createApp: the offline catalog
   * read, checked and stored, the job store connected. Resolves once
   * done (`/readyz` answers 503 until then); rejects when it fails (an invalid catalog file), and
   * the server then stops.
   */
  started: Promise<void>;
  /** Waits for the start-up work to settle, stops the job system (draining running jobs), then closes the database. */
  close(): Promise<void>;
  logger: Logger;
  /** `GET /metrics` on the metrics port (AIRDATE_METRICS_PORT; `fetch` answers the main port's, which needs AIRDATE_METRICS_TOKEN). */
  serveMetrics(request: Request): Promise<Response>;
  /** The job system: every role queues jobs; `main.ts` starts running them in worker roles. */
  jobs: Scheduler;
  /** Ends the open live update streams (a stopping server: they would hold its connections open). */
  closeStreams(): void;
  /** The feeds' and the calendar's conditional GETs and 401s, answered on Node's request before `fetch` (src/early-answers.ts; node-server.ts calls it). */
  answerEarly: AnswerEarly;
}

/** What createApp takes besides the config (tests point these at folders of their own). */
export interface AppOptions {
  /** The built web app; dist/web of the project by default (scripts/build-web.mjs). */
  webAppDir?: string;
  /** Where log lines go instead of stderr (tests read them). */
  logDestination?: DestinationStream;
  /** Tests only: the hosted notification services at local receivers, their self-signed certificates, a resolver. */
  channelPeers?: Pick<ChannelServices, 'serviceUrls' | 'trustedCertificates' | 'lookup'>;
}

/** The notification channels' settings: the outbound policy and timeout, the mail server, the origin links are built on. */
function createChannelServices(config: Config, peers: AppOptions['channelPeers']): ChannelServices {
  return {
    policy: config.webhooks.policy,
    timeoutMs: config.webhooks.timeoutMs,
    smtpDefault: config.smtp,
    publicOrigin: config.web.publicUrl ?? `http://localhost:${config.http.port}`,
    ...peers,
  };
}

/**
 * Builds the server for `config`: opens (and migrates) the database, loads the secret key, and
 * wires GraphQL, the REST facade and the web app onto one schema. What can follow (the offline
 * catalog, the job store) runs from here on, while the server listens: `started`.
 */
export async function createApp(config: Config, options: AppOptions = {}): Promise<App> {
  const logger = createLogger({ level: config.logLevel, format: config.logFormat, destination: options.logDestination });
  let mqtt: MqttConnection | undefined;
  const gauges = config.mqtt ? [...snapshotGauges, mqttConnectedGauge(() => mqtt)] : snapshotGauges;
  const { metrics, mainPort, ownPort } = createAppMetrics(config, logger, gauges);
  await openDatabase(config, { migrate: true });
  initSecretKey(config);
  // Webhook URLs the channels migration moved in the clear (SQL cannot encrypt) are sealed now.
  await sealMovedWebhookUrls();
  initSessions(config.web);
  const catalogs = createCatalogProviders(config, logger, metrics);
  const catalog = createCatalogService(catalogs.providers, logger, { requestsPerHour: config.limits.catalogRequestsPerHour });
  const webhooks = { policy: config.webhooks.policy, timeoutMs: config.webhooks.timeoutMs };
  // Pulls of a media server's history connect under the webhooks' policy and deadline, never to Airdate itself.
  const mediaServerPulls = { policy: config.webhooks.policy, timeoutMs: config.webhooks.timeoutMs, ownOrigins: config.web.publicUrl ? [new URL(config.web.publicUrl).origin] : [], ownPort: config.http.port };
  const channels = createChannelServices(config, options.channelPeers);
  const jobs = createLazyScheduler(config, { definitions: jobDefinitions, services: { catalog, webhooks, channels, logger, metrics, mediaServerPulls } });
  const live = createLiveUpdates({
    logger,
    pollMs: liveUpdates.pollMs,
    maxStreamsPerCredential: config.limits.liveStreamsPerCredential,
    maxStreamsPerAccount: config.limits.liveStreamsPerAccount,
  });
  const services = { catalog, jobs, metrics, live, webhooks, mediaServerPulls, channels };
  // Off unless AIRDATE_MQTT_URL is set; a broker that is down or refuses us never stops the server.
  let homeAssistant: HomeAssistantMqtt | undefined;
  if (config.mqtt) {
    mqtt = createMqttConnection(config.mqtt, logger);
    homeAssistant = createHomeAssistantMqtt({ settings: config.mqtt, connection: mqtt, logger, jobs, pollMs: publishPollMs });
  }
  // Counted in the database, shared by every process, on PostgreSQL; per process on SQLite.
  const counters = { pool: postgresCountersPool(), logger, metrics };
  const signInLimiter = createSignInLimiter(counters);
  const oidc = createOidcRoutes({ web: config.web, logger });
  oidc.warmUp();

  // From the next turn of the event loop: the server (main.ts) listens in this one.
  const startUp = new Promise((resolve) => setImmediate(resolve)).then(() => Promise.all([catalogs.storeOffline(), jobs.ready()])).then(() => undefined);
  /** What /readyz says while the start is not complete (undefined once it is). */
  let notReady: string | undefined = 'starting';
  // Whoever waits for it sees a failure (main.ts stops the server); nobody waiting is no crash.
  startUp.then(
    () => void (notReady = undefined),
    () => void (notReady = 'the start failed'),
  );

  const routes = bindRoutes(restRoutes, { schema, logger, limits: config.limits, counters });
  const accountRate = createRateLimiter({ name: 'requests', points: config.limits.requestsPerMinute, windowSeconds: rateLimitWindowSeconds.requests }, counters);
  const route = createRouter({
    web: config.web,
    services,
    routes,
    graphqlEndpoint: createGraphQLEndpoint({ config, logger, schema, services, webServices: { signInLimiter } }),
    graphiql: createGraphiQL({ title: 'Airdate GraphQL', endpoint: '/graphql', headers: JSON.stringify({ Authorization: 'Bearer <your API token>' }, null, 2) }),
    oidc,
    apiDescription: createApiDescription(restRoutes),
    webApp: createWebApp(options.webAppDir ?? path.join(projectRoot, 'dist/web'), { imageOrigins: () => catalog.imageOrigins() }),
    metrics: mainPort,
    accountRate,
    readiness: async () => (notReady === undefined ? readiness(logger, jobs) : json(503, { error: notReady })),
  });

  return {
    logger,
    serveMetrics: ownPort,
    jobs,
    started: startUp,
    fetch: createEdge({ logger, metrics, web: config.web, compress: createCompression(), route }),
    closeStreams: () => live.close(),
    answerEarly: createEarlyAnswers({ web: config.web, logger, metrics, routes, accountRate }),
    async close() {
      live.close();
      await homeAssistant?.close();
      await mqtt?.close();
      await startUp.catch(() => undefined);
      await catalog.close();
      await jobs.stop();
      await closeDatabase();
    },
  };
}

async function readiness(logger: Logger, jobs: Scheduler): Promise<Response> {
  try {
    await db().$queryRaw`SELECT 1`;
  } catch (error) {
    logger.warn({ err: error }, 'readiness check failed: database');
    return json(503, { error: 'database unreachable' });
  }
  try {
    await jobs.ping();
  } catch (error) {
    logger.warn({ err: error }, 'readiness check failed: job store');
    return json(503, { error: 'job store unreachable' });
  }
  return json(200, { ok: true, database: 'ok', scheduler: 'ok' });
}
