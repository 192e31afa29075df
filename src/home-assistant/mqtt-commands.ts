import { getFeeds } from '../feeds/feeds-service.ts';
import type { JobQueue } from '../jobs/job-definition.ts';
import { setWatched } from '../library/library.ts';
import type { Logger } from '../log.ts';
import { accountSyncJob } from '../sync/sync-jobs.ts';
import { catalogVersion } from './mqtt-devices.ts';
import type { DeviceView } from './mqtt-devices.ts';
import { buttonKeys, pressPayload, type ButtonKey, type MqttTopics } from './mqtt-entities.ts';
import { db } from '../db/client.ts';

/**
 * The buttons' commands: `<topic prefix>/<device>/<button>/press` with the payload `PRESS`. The
 * device id in the topic picks the account (only a published device of an opted-in account is
 * known); nothing else in a command names an account, so a command acts on that account only.
 * Per account, at most `commandLimit.perWindow` commands are acted on in each window (per process;
 * with several processes the broker hands each command to one of them); the rest, unknown devices,
 * unknown buttons and other payloads are ignored, with a log line (one per window for a flood).
 */
export const commandLimit = { perWindow: 10, windowMs: 60_000 } as const;

export interface MqttCommands {
  /** The devices commands may name now (the round's view). */
  remember(devices: DeviceView[]): void;
  handle(topic: string, payload: Buffer): void;
}

/** What a button does. */
export interface CommandActions {
  /** Queues the account's sync (one per account at a time). */
  sync(accountId: number): Promise<void>;
  /** Marks the account's first up-next episode watched; what it marked, if anything. */
  markUpNext(accountId: number): Promise<string | undefined>;
}

/** The buttons' actions over the job queue and the library (source `home-assistant` in the history). */
export function commandActions(jobs: JobQueue): CommandActions {
  return {
    sync: (accountId) => jobs.queue(accountSyncJob, { accountId }),
    async markUpNext(accountId) {
      const account = await db().account.findUnique({ where: { id: accountId }, select: { timezone: true, feedVersion: true } });
      if (!account) return undefined;
      const feeds = await getFeeds({ id: accountId, timezone: account.timezone, feedVersion: account.feedVersion, catalogVersion: await catalogVersion() });
      const first = feeds.upNext[0];
      if (!first) return undefined;
      await setWatched({ accountId, kind: 'episode', id: first.id, watched: true, source: 'home-assistant' });
      return `${first.show} ${first.episode}`;
    },
  };
}

export function createMqttCommands(props: { topics: MqttTopics; logger: Logger; actions: CommandActions; now?: () => number }): MqttCommands {
  const { topics, logger, actions } = props;
  const now = props.now ?? Date.now;
  let devices = new Map<string, number>();
  /** Per account: the window's start and the commands counted in it. */
  const windows = new Map<number, { start: number; count: number; told: boolean }>();
  const prefix = `${topics.topicPrefix}/`;

  /** Whether the account may act now; counts the command. */
  function allowed(accountId: number): boolean {
    const at = now();
    let window = windows.get(accountId);
    if (!window || at - window.start >= commandLimit.windowMs) {
      window = { start: at, count: 0, told: false };
      windows.set(accountId, window);
    }
    window.count += 1;
    if (window.count <= commandLimit.perWindow) return true;
    if (!window.told) {
      window.told = true;
      logger.warn(`MQTT: more than ${commandLimit.perWindow} button commands in ${commandLimit.windowMs / 1000} s for account ${accountId}; ignoring the rest of this minute's`);
    }
    return false;
  }

  return {
    remember(list) {
      devices = new Map(list.filter((device) => device.published && device.account?.optedIn).map((device) => [device.deviceId, device.accountId]));
      // Windows long over are forgotten, so the map holds only accounts that sent commands lately.
      const at = now();
      for (const [accountId, window] of windows) if (at - window.start >= commandLimit.windowMs) windows.delete(accountId);
    },
    handle(topic, payload) {
      if (!topic.startsWith(prefix)) return;
      const [deviceId, button, press, ...rest] = topic.slice(prefix.length).split('/');
      if (press !== 'press' || rest.length > 0 || deviceId === undefined) return;
      void (async () => {
        // A device published in the round under way is not in the round's view yet: ask the database.
        const accountId = devices.get(deviceId) ?? (await publishedDevice(deviceId).catch(() => undefined));
        if (accountId === undefined) {
          logger.debug('MQTT: a command for an unknown device was ignored');
          return;
        }
        if (!allowed(accountId)) return;
        const text = payload.length <= 16 ? payload.toString() : '';
        if (!(buttonKeys as readonly string[]).includes(button!) || text !== pressPayload) {
          logger.warn(`MQTT: ignored a command for account ${accountId}: ${(buttonKeys as readonly string[]).includes(button!) ? `payload must be ${pressPayload}` : 'unknown button'}`);
          return;
        }
        await run(accountId, button as ButtonKey);
      })();
    },
  };

  /** The account of a published device of an opted-in account, by its device id. */
  async function publishedDevice(deviceId: string): Promise<number | undefined> {
    if (!/^[0-9a-f]{16}$/.test(deviceId)) return undefined;
    const device = await db().mqttDevice.findUnique({ where: { deviceId }, select: { accountId: true, published: true } });
    if (!device?.published) return undefined;
    const account = await db().account.findUnique({ where: { id: device.accountId }, select: { homeAssistantMqtt: true } });
    return account?.homeAssistantMqtt ? device.accountId : undefined;
  }

  async function run(accountId: number, button: ButtonKey): Promise<void> {
    try {
      if (button === 'sync') {
        await actions.sync(accountId);
        logger.info(`MQTT: sync queued for account ${accountId} (Home Assistant button)`);
      } else {
        const marked = await actions.markUpNext(accountId);
        logger.info(marked ? `MQTT: marked the first up-next episode watched for account ${accountId} (Home Assistant button)` : `MQTT: nothing up next to mark for account ${accountId}`);
      }
    } catch (error) {
      logger.warn({ err: error }, `MQTT: the ${button} button of account ${accountId} failed`);
    }
  }
}
