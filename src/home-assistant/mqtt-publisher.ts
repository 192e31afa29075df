import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fitJsonCost } from '../feeds/home-assistant-summary.ts';
import { homeAssistantSummary } from '../limits.ts';
import type { Logger } from '../log.ts';
import type { MqttConnection } from '../mqtt/mqtt-connection.ts';
import type { MqttSettings } from '../mqtt/mqtt-settings.ts';
import { projectRoot } from '../paths.ts';
import { commandActions, createMqttCommands } from './mqtt-commands.ts';
import type { JobQueue } from '../jobs/job-definition.ts';
import {
  accountsWithNewReleases,
  catalogVersion,
  claimEvents,
  claimPublish,
  claimRemoval,
  claimState,
  createMissingDevices,
  forgetDevice,
  readDevices,
  releaseClaim,
  releasesAfter,
  sensorInput,
  stateKeyOf,
  watchCursor,
  watchesAfter,
  type DeviceView,
} from './mqtt-devices.ts';
import {
  buttonTopicFilter,
  discoveryConfigs,
  eventMessage,
  eventTypes,
  homeAssistantStatusTopic,
  removalMessages,
  sensorStates,
  type MqttMessage,
  type MqttTopics,
} from './mqtt-entities.ts';

/**
 * Publishes the opted-in accounts' libraries to the MQTT broker for Home Assistant. Every process
 * with AIRDATE_MQTT_URL set runs it; what each change publishes is claimed in the database first
 * (mqtt-devices.ts), so processes sharing PostgreSQL publish each change once.
 *
 * Every `pollMs` while connected, one round: devices created for newly opted-in accounts; for each
 * device, its configs and states published when it was not (opted in), its states when the
 * account's feed or catalog version or local date moved (any write, in any process, bumps the
 * version in its own transaction), the watches and releases since the last round as events, and
 * empty retained configs when the account opted out or was removed. On each (re)connect and each
 * `online` on `<discovery prefix>/status` (Home Assistant restarted) every config and state is
 * published again.
 */
export interface HomeAssistantMqtt {
  /** Runs one round now (tests and the bench use it to skip the wait); resolves when done. */
  round(): Promise<void>;
  /** Stops the rounds and waits for the one under way. */
  close(): Promise<void>;
}

export interface HomeAssistantMqttOptions {
  settings: MqttSettings;
  connection: MqttConnection;
  logger: Logger;
  /** What the sync button queues its job on. */
  jobs: JobQueue;
  /** Time between rounds (a change reaches the broker within about this long plus a round). */
  pollMs: number;
}

/** Time between rounds: a change reaches the broker within this plus a round (well within 2 s). */
export const publishPollMs = 500;

const version = (() => {
  try {
    return (JSON.parse(readFileSync(path.join(projectRoot, 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
})();

export function createHomeAssistantMqtt(options: HomeAssistantMqttOptions): HomeAssistantMqtt {
  const { connection, logger } = options;
  const topics: MqttTopics = { discoveryPrefix: options.settings.discoveryPrefix, topicPrefix: options.settings.topicPrefix };
  let closed = false;
  let current: Promise<void> | undefined;
  let again = false;
  let lastFailure: string | undefined;
  const commands = createMqttCommands({ topics, logger, actions: commandActions(options.jobs) });

  const publishAll = (messages: MqttMessage[]) => Promise.all(messages.map((message) => connection.publish(message.topic, message.payload, { retain: message.retain })));

  async function publishStates(device: DeviceView, catalog: number): Promise<void> {
    const input = await sensorInput(device.accountId, device.account!, catalog);
    await publishAll(sensorStates(topics, device.deviceId, input));
  }

  async function publishDevice(device: DeviceView, catalog: number): Promise<void> {
    await publishAll(discoveryConfigs(topics, device.deviceId, version));
    await publishStates(device, catalog);
  }

  /**
   * The watches after the device's cursor as events, claimed by moving the cursor. Read from the
   * row now, not the round's view: another process may have moved it meanwhile (telling the watches
   * up to there), and a claim that loses to it tries again from where it is.
   */
  async function tellWatches(device: DeviceView): Promise<void> {
    for (let attempt = 0; attempt < 5; attempt += 1) {
      const from = await watchCursor(device.accountId);
      if (from === undefined) return;
      const { lastId, watches } = await watchesAfter(device.accountId, from);
      if (lastId === from) return;
      if (!(await claimEvents(device.accountId, 'lastWatchEventId', from, lastId))) continue;
      await publishAll(
        watches.map((watch) =>
          eventMessage(topics, device.deviceId, 'watch', {
            event_type: watch.kind,
            id: watch.id,
            title: fitJsonCost(watch.title, homeAssistantSummary.textCost),
            episode: watch.episode,
            episode_title: watch.episodeTitle === null ? null : fitJsonCost(watch.episodeTitle, homeAssistantSummary.textCost),
            watched_at: watch.at.toISOString(),
          }),
        ),
      );
      return;
    }
  }

  /** One device's round. */
  async function step(device: DeviceView, catalog: number, newReleases: Set<number>): Promise<void> {
    const { account, accountId } = device;
    if (!account?.optedIn) {
      if (device.published && (await claimRemoval(accountId))) {
        try {
          await publishAll(removalMessages(topics, device.deviceId));
        } catch (error) {
          await releaseClaim(accountId, { published: true, stateKey: device.stateKey }, { published: false, stateKey: '' });
          throw error;
        }
      }
      if (!account) await forgetDevice(accountId);
      return;
    }
    const key = stateKeyOf(account, catalog);
    if (!device.published) {
      if (!(await claimPublish(accountId, key))) return;
      try {
        await publishDevice(device, catalog);
      } catch (error) {
        await releaseClaim(accountId, { published: false, stateKey: '' }, { published: true, stateKey: key });
        throw error;
      }
      return;
    }
    if (device.stateKey !== key && (await claimState(accountId, device.stateKey, key))) {
      try {
        await publishStates(device, catalog);
      } catch (error) {
        await releaseClaim(accountId, { published: true, stateKey: device.stateKey }, { published: true, stateKey: key });
        throw error;
      }
      // A watch bumps the feed version in its transaction: the watches are looked for with the states.
      await tellWatches(device);
    }
    // Releases are recorded by the release check (notifications/), which bumps no version.
    if (!newReleases.has(accountId)) return;
    const { lastId, releases } = await releasesAfter(accountId, device.lastNotificationId);
    if (lastId !== device.lastNotificationId && (await claimEvents(accountId, 'lastNotificationId', device.lastNotificationId, lastId))) {
      await publishAll(
        releases
          .filter((release) => (eventTypes as readonly unknown[]).includes(release.type))
          .map((release) => {
            const { type, ...rest } = release;
            return eventMessage(topics, device.deviceId, 'release', { event_type: type as (typeof eventTypes)[number], ...rest });
          }),
      );
    }
  }

  async function roundOnce(): Promise<void> {
    if (closed || !connection.connected()) return;
    try {
      await createMissingDevices();
      const [devices, catalog, newReleases] = await Promise.all([readDevices(), catalogVersion(), accountsWithNewReleases()]);
      for (const device of devices) {
        if (closed || !connection.connected()) return;
        await step(device, catalog, newReleases);
      }
      commands.remember(devices);
      if (lastFailure !== undefined) logger.info('MQTT: publishing works again');
      lastFailure = undefined;
    } catch (error) {
      const text = error instanceof Error ? error.message : String(error);
      // One line per kind of failure, not one a round.
      if (text !== lastFailure) logger.warn({ err: error }, `MQTT: publishing the Home Assistant entities failed (${text}); trying again`);
      lastFailure = text;
    }
  }

  /** A round now, or right after the one under way. */
  function round(): Promise<void> {
    if (current) {
      again = true;
      return current;
    }
    current = roundOnce().finally(() => {
      current = undefined;
      if (again && !closed) {
        again = false;
        void round();
      }
    });
    return current;
  }

  /** Every config and state of the published devices again, claiming nothing: nothing changed. */
  async function republish(why: string): Promise<void> {
    try {
      const [devices, catalog] = await Promise.all([readDevices(), catalogVersion()]);
      const shown = devices.filter((device) => device.published && device.account?.optedIn);
      for (const device of shown) await publishDevice(device, catalog);
      logger.debug(`MQTT: published ${shown.length} device(s) again (${why})`);
    } catch (error) {
      logger.warn({ err: error }, `MQTT: publishing every device again (${why}) failed`);
    }
  }

  connection.onConnect(() => {
    void (async () => {
      // Shared subscriptions: with several processes, each command and each Home Assistant birth
      // message reaches one of them, not every one.
      try {
        await connection.subscribe([`$share/airdate/${homeAssistantStatusTopic(topics)}`, `$share/airdate/${buttonTopicFilter(topics)}`]);
      } catch (error) {
        logger.warn({ err: error }, 'MQTT: subscribing to Home Assistant’s status and the buttons failed');
      }
      await republish('connected');
      void round();
    })();
  });
  connection.onMessage((topic, payload) => {
    if (topic === homeAssistantStatusTopic(topics)) {
      if (payload.toString() === 'online') void republish('Home Assistant came online');
      return;
    }
    commands.handle(topic, payload);
  });

  const timer = setInterval(() => void round(), options.pollMs);
  timer.unref();

  return {
    round,
    async close() {
      closed = true;
      clearInterval(timer);
      await current;
    },
  };
}
