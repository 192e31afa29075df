import { randomBytes } from 'node:crypto';
import { connect, type IClientOptions, type MqttClient } from 'mqtt';
import type { Logger } from '../log.ts';
import type { GaugeSource } from '../metrics/metrics.ts';
import type { MqttSettings } from './mqtt-settings.ts';

/**
 * The server's one connection to the MQTT broker (AIRDATE_MQTT_URL), through the `mqtt` client.
 *
 * - Availability: `<topic prefix>/status` is `online` (retained) while connected; the broker
 *   publishes the last will, `offline` (retained), when the connection drops without a goodbye
 *   (a killed process), and a stopping server says `offline` itself. When several processes share
 *   the broker, one that sees `offline` while it is itself connected says `online` again: the topic
 *   is offline only when no process is.
 * - A broker that is down, goes away or refuses the credentials never stops the server: the client
 *   tries again with back-off (1 s, doubling to 60 s), one log line says what is wrong (again only
 *   when the problem changes), one says when it is connected; `connected()` and the
 *   `airdate_mqtt_connected` gauge tell the state. /readyz does not look at it.
 * - Every (re)connect calls the `onConnect` handlers, which subscribe and publish the current state
 *   again: a restarted broker without persistence has lost the retained messages.
 */
export interface MqttConnection {
  /** Publishes at QoS 1; resolves once the broker has it, rejects when not connected (nothing is queued). */
  publish(topic: string, payload: string, options: { retain: boolean }): Promise<void>;
  /** Subscribes (QoS 1); call from an `onConnect` handler, so that a reconnect subscribes again. */
  subscribe(topics: string[]): Promise<void>;
  /** Runs `handler` on each (re)connect, after `online` is published. */
  onConnect(handler: () => void): void;
  /** Runs `handler` for each message received. */
  onMessage(handler: (topic: string, payload: Buffer) => void): void;
  connected(): boolean;
  /** The availability topic. */
  readonly availabilityTopic: string;
  /** Says `offline` (when connected) and closes; no reconnect after. */
  close(): Promise<void>;
}

const backOff = { firstMs: 1_000, maxMs: 60_000 } as const;

/** How long a stopping server waits for the broker to take its `offline`. */
const closeWaitMs = 2_000;

/** A gauge of the connection, for the metrics: 1 connected, 0 not (or MQTT off: no connection). */
export function mqttConnectedGauge(connection: () => MqttConnection | undefined): GaugeSource {
  return { name: 'airdate_mqtt_connected', help: 'Whether the server is connected to the MQTT broker (AIRDATE_MQTT_URL): 1 yes, 0 no.', read: () => (connection()?.connected() ? 1 : 0) };
}

/** Words for what went wrong, for the one log line (never the password). */
function describe(error: Error & { code?: string | number }): string {
  const code = error.code;
  if (code === 4 || code === 134) return 'the broker refused the user name or password';
  if (code === 5 || code === 135) return 'the broker refused the connection: not authorized (check the user name and password)';
  if (code === 'ECONNREFUSED') return 'the broker refused the connection (is it running, on this port?)';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'the broker’s host name does not resolve';
  return error.message;
}

export function createMqttConnection(settings: MqttSettings, logger: Logger, options: { keepaliveSeconds?: number } = {}): MqttConnection {
  const availabilityTopic = `${settings.topicPrefix}/status`;
  const connectHandlers: (() => void)[] = [];
  const messageHandlers: ((topic: string, payload: Buffer) => void)[] = [];
  let lastProblem: string | undefined;
  let wasConnected = false;
  let closing = false;
  const clientOptions: IClientOptions = {
    // One per process: processes sharing the broker must not take each other's sessions.
    clientId: `airdate-${randomBytes(6).toString('hex')}`,
    username: settings.username ?? undefined,
    password: settings.password ?? undefined,
    clean: true,
    keepalive: options.keepaliveSeconds ?? 30,
    connectTimeout: 10_000,
    reconnectPeriod: backOff.firstMs,
    // Credentials refused now may be fixed at the broker later: keep trying, with back-off.
    reconnectOnConnackError: true,
    resubscribe: false,
    will: { topic: availabilityTopic, payload: Buffer.from('offline'), qos: 1, retain: true },
  };
  const client: MqttClient = connect(settings.url, clientOptions);

  const problem = (text: string) => {
    if (closing || text === lastProblem) return;
    lastProblem = text;
    logger.warn(`MQTT: cannot use the broker at ${settings.url}: ${text}; the server keeps serving and tries again with back-off (up to ${backOff.maxMs / 1000} s apart)`);
  };
  client.on('error', (error) => problem(describe(error)));
  client.on('reconnect', () => {
    // The next attempt, if this one fails, waits twice as long.
    client.options.reconnectPeriod = Math.min(backOff.maxMs, (client.options.reconnectPeriod ?? backOff.firstMs) * 2);
  });
  client.on('close', () => {
    if (wasConnected && !closing) problem('the connection to the broker was lost');
    wasConnected = false;
  });
  client.on('connect', () => {
    client.options.reconnectPeriod = backOff.firstMs;
    wasConnected = true;
    lastProblem = undefined;
    logger.info(`MQTT: connected to the broker at ${settings.url}`);
    void (async () => {
      try {
        await client.publishAsync(availabilityTopic, 'online', { qos: 1, retain: true });
        // Another process's last will says `offline` while this one is up: say `online` again.
        await client.subscribeAsync(availabilityTopic, { qos: 1 });
      } catch (error) {
        logger.debug({ err: error }, 'MQTT: publishing availability failed');
      }
      for (const handler of connectHandlers) handler();
    })();
  });
  client.on('message', (topic, payload) => {
    if (topic === availabilityTopic) {
      if (payload.toString() === 'offline' && client.connected && !closing) void client.publishAsync(availabilityTopic, 'online', { qos: 1, retain: true }).catch(() => undefined);
      return;
    }
    for (const handler of messageHandlers) handler(topic, payload);
  });

  return {
    availabilityTopic,
    async publish(topic, payload, { retain }) {
      if (!client.connected) throw new Error('not connected to the MQTT broker');
      await client.publishAsync(topic, payload, { qos: 1, retain });
    },
    async subscribe(topics) {
      if (topics.length === 0) return;
      await client.subscribeAsync(topics, { qos: 1 });
    },
    onConnect: (handler) => void connectHandlers.push(handler),
    onMessage: (handler) => void messageHandlers.push(handler),
    connected: () => client.connected,
    async close() {
      closing = true;
      if (client.connected) {
        // Bounded: a broker that went away as the server stops never acknowledges, and the stop must go on.
        const goodbye = (async () => {
          await client.unsubscribeAsync(availabilityTopic);
          await client.publishAsync(availabilityTopic, 'offline', { qos: 1, retain: true });
        })().catch(() => undefined);
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([goodbye, new Promise((done) => (timer = setTimeout(done, closeWaitMs)))]);
        clearTimeout(timer);
      }
      await client.endAsync(true).catch(() => undefined);
    },
  };
}
