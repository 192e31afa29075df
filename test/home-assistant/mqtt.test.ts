import { afterAll, describe, expect, it } from 'vitest';
import { db } from '../../src/db/client.ts';
import { removeAccount } from '../../src/accounts/account-admin.ts';
import { setFollow, setWatched } from '../../src/library/library.ts';
import { accountSyncJob } from '../../src/sync/sync-jobs.ts';
import { checkAccountReleases } from '../../src/notifications/release-jobs.ts';
import { findAccountsToCheck } from '../../src/notifications/releases.ts';
import { localDate } from '../../src/time/dates.ts';
import { useTestApp } from '../support/database.ts';
import { makeAccount, makeShow } from '../support/factories.ts';
import { call, graphql } from '../support/http.ts';
import { captureLog } from '../support/log-capture.ts';
import { watchBroker } from '../support/mosquitto-broker.ts';
import { useMosquitto } from '../support/mosquitto.ts';

// The server publishing to a real Mosquitto broker (its own, on a free port, with a password
// file), watched by a client that stands for Home Assistant.
const broker = await useMosquitto();
const log = captureLog();
const { app } = await useTestApp({ AIRDATE_MQTT_URL: broker.url, AIRDATE_METRICS_TOKEN: 'metrics-token-for-tests', AIRDATE_LOG_LEVEL: 'info' }, { logDestination: log.destination });
afterAll(() => app.close());

const settings = (token: string, on: boolean) => graphql(app, token, 'mutation($on: Boolean!) { updateSettings(input: { homeAssistantMqtt: $on }) { ... on MutationUpdateSettingsSuccess { data { homeAssistantMqtt } } } }', { on });

/** An opted-in account following a show with three aired episodes, and its device id once published. */
async function optedIn() {
  const account = await makeAccount();
  const show = await makeShow({ title: 'The Expanse', episodes: [1, 2, 3].map((number) => ({ number, airDate: `2024-01-0${number}` })) });
  await setFollow({ accountId: account.id, kind: 'show', id: show.id, followed: true });
  const answer = await settings(account.token, true);
  expect(answer.json.data.updateSettings.data.homeAssistantMqtt).toBe(true);
  const row = await waitForDevice(account.id);
  return { account, show, deviceId: row.deviceId };
}

async function waitForDevice(accountId: number) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const row = await db().mqttDevice.findUnique({ where: { accountId } });
    if (row?.published) return row;
    if (Date.now() > deadline) throw new Error('the device was not published');
    await new Promise((done) => setTimeout(done, 50));
  }
}

const state = (deviceId: string, sensor: string) => `airdate/${deviceId}/${sensor}/state`;
const configTopic = (component: string, deviceId: string, key: string) => `homeassistant/${component}/airdate_${deviceId}/${key}/config`;

describe('the library over MQTT for Home Assistant', () => {
  it('publishes discovery configs and states for an opted-in account, updates them after a REST and a web mark, and removes them when turned off', { timeout: 60_000 }, async () => {
    const watcher = await watchBroker(broker);
    const other = await makeAccount();
    const { account, show, deviceId } = await optedIn();
    const latest = () => watcher.latest();

    // Ten entities, each a retained config as Home Assistant's discovery documentation asks.
    const configs = await watcher.until(() => {
      const found = [...latest()].filter(([topic, payload]) => topic.includes(`/airdate_${deviceId}/`) && topic.endsWith('/config') && payload !== '');
      return found.length === 10 ? new Map(found) : undefined;
    }, 10_000, 'ten configs');
    const upNext = JSON.parse(configs.get(configTopic('sensor', deviceId, 'up_next'))!);
    expect(upNext).toMatchObject({
      unique_id: `airdate_${deviceId}_up_next`,
      default_entity_id: `sensor.airdate_${deviceId}_up_next`,
      state_topic: state(deviceId, 'up_next'),
      json_attributes_topic: `airdate/${deviceId}/up_next/attributes`,
      device: { identifiers: [`airdate_${deviceId}`], name: 'Airdate' },
      origin: { name: 'Airdate' },
      availability: [{ topic: 'airdate/status', payload_available: 'online', payload_not_available: 'offline' }],
    });
    expect(upNext).not.toHaveProperty('object_id');
    expect(JSON.parse(configs.get(configTopic('sensor', deviceId, 'next_release'))!)).toMatchObject({ device_class: 'timestamp' });
    expect(JSON.parse(configs.get(configTopic('event', deviceId, 'release'))!)).toMatchObject({ event_types: ['episode', 'movie', 'game'], state_topic: `airdate/${deviceId}/release/event` });
    expect(JSON.parse(configs.get(configTopic('button', deviceId, 'sync'))!)).toMatchObject({ command_topic: `airdate/${deviceId}/sync/press`, payload_press: 'PRESS' });
    // Retained, as a restarting Home Assistant needs them.
    expect(watcher.messages.filter((message) => message.topic.endsWith('/config')).every((message) => message.retain || message.payload === '')).toBe(true);
    expect(await watcher.until(() => latest().get('airdate/status'))).toBe('online');
    await watcher.until(() => latest().get(state(deviceId, 'unwatched_episodes')) === '3', 10_000, 'three unwatched');
    expect(latest().get(state(deviceId, 'up_next'))).toBe('1');
    expect(JSON.parse(latest().get(`airdate/${deviceId}/up_next/attributes`)!)).toMatchObject({ next: { show: 'The Expanse', episode: 'S01E01' } });

    // A mark through the REST API: the state on the broker (how soon: bench/mqtt.ts), and a watch event.
    const marked = await call(app, 'POST', '/api/machine/watched', { token: account.token, body: { kind: 'episode', id: show.episodes[0]!.id, watched: true } });
    expect(marked.status).toBe(200);
    await watcher.until(() => latest().get(state(deviceId, 'unwatched_episodes')) === '2', 15_000, 'two unwatched');
    const watch = await watcher.until(() => watcher.messages.find((message) => message.topic === `airdate/${deviceId}/watch/event`), 15_000, 'the watch event');
    expect(watch.retain).toBe(false);
    expect(JSON.parse(watch.payload)).toMatchObject({ event_type: 'episode', id: show.episodes[0]!.id, title: 'The Expanse', episode: 'S01E01' });
    expect(latest().get(state(deviceId, 'last_watched'))).toBe('The Expanse S01E01');

    // A mark from the web app (GraphQL).
    const web = await graphql(app, account.token, 'mutation($id: Int!) { setWatched(input: { kind: EPISODE, id: $id, watched: true }) { ... on MutationSetWatchedSuccess { data { changed } } } }', { id: show.episodes[1]!.id });
    expect(web.json.data.setWatched.data.changed).toBe(true);
    await watcher.until(() => latest().get(state(deviceId, 'unwatched_episodes')) === '1', 15_000, 'one unwatched');

    // Nothing of the account that did not opt in, nothing naming an account, no token.
    expect(await db().mqttDevice.findUnique({ where: { accountId: other.id } })).toBeNull();
    for (const message of watcher.messages) {
      expect(message.topic.startsWith('airdate/status') || message.topic.includes(deviceId), message.topic).toBe(true);
      for (const secret of [account.name, account.token, other.name, other.token]) expect(`${message.topic} ${message.payload}`).not.toContain(secret);
    }

    // Turned off: every config emptied (retained), so Home Assistant removes the entities.
    await settings(account.token, false);
    await watcher.until(() => [...latest()].filter(([topic, payload]) => topic.includes(`/airdate_${deviceId}/`) && topic.endsWith('/config') && payload === '').length === 10, 10_000, 'ten empty configs');
    // A client arriving now (Home Assistant starting) finds nothing of the device.
    const fresh = await watchBroker(broker);
    await new Promise((done) => setTimeout(done, 500));
    expect(fresh.messages.filter((message) => message.topic.includes(deviceId))).toEqual([]);
    await Promise.all([watcher.close(), fresh.close()]);
  });

  it('buttons act on the account whose device they name, once per command; other payloads, unknown buttons and floods are ignored with a log line', { timeout: 60_000 }, async () => {
    const watcher = await watchBroker(broker);
    const first = await optedIn();
    const second = await optedIn();
    const press = (deviceId: string, button: string, payload = 'PRESS') => watcher.publish(`airdate/${deviceId}/${button}/press`, payload);
    const watchedOf = async (accountId: number) =>
      (await db().watchState.findMany({ where: { accountId, watched: true }, select: { episodeId: true }, orderBy: { episodeId: 'asc' } })).map((row) => row.episodeId);

    // "Mark the first up-next episode watched" marks the first account's S01E01, and only that.
    await press(first.deviceId, 'mark_up_next');
    await watcher.until(() => watcher.latest().get(state(first.deviceId, 'unwatched_episodes')) === '2', 15_000, 'the button’s mark on the broker');
    expect(await watchedOf(first.account.id)).toEqual([first.show.episodes[0]!.id]);
    expect(await watchedOf(second.account.id)).toEqual([]);
    const event = await watcher.until(() => watcher.messages.find((message) => message.topic === `airdate/${first.deviceId}/watch/event`));
    expect(JSON.parse(event.payload)).toMatchObject({ event_type: 'episode', episode: 'S01E01' });

    // "Sync now" queues the second account's sync (this in-process app runs no jobs: it stays queued).
    await press(second.deviceId, 'sync');
    const deadline = Date.now() + 5_000;
    let queued: { accountId: number }[] = [];
    while (Date.now() < deadline && !queued.some((job) => job.accountId === second.account.id)) {
      queued = await app.jobs.live(accountSyncJob);
      await new Promise((done) => setTimeout(done, 50));
    }
    expect(queued.map((job) => job.accountId)).toContain(second.account.id);
    expect(queued.map((job) => job.accountId)).not.toContain(first.account.id);

    // Another payload, an unknown button, a device nobody has: ignored, said in the log.
    const before = log.text().length;
    await press(first.deviceId, 'mark_up_next', 'press');
    await press(first.deviceId, 'explode');
    await press('0000000000000000', 'mark_up_next');
    await watcher.until(() => log.text().slice(before).includes('payload must be PRESS') && log.text().slice(before).includes('unknown button'), 15_000, 'the log lines');
    expect(await watchedOf(first.account.id)).toEqual([first.show.episodes[0]!.id]);

    // A flood: at most 10 commands a minute per account are acted on (3 were counted above), one line for the rest.
    for (let index = 0; index < 30; index += 1) await press(first.deviceId, 'mark_up_next', 'not-press');
    await watcher.until(() => log.text().slice(before).includes('button commands in 60 s'), 15_000, 'the flood’s line');
    // The last commands of the flood handled too (each is a line or nothing).
    await new Promise((done) => setTimeout(done, 1_000));
    const lines = log.text().slice(before).split('\n');
    expect(lines.filter((line) => line.includes('payload must be PRESS')).length).toBe(8);
    expect(lines.filter((line) => line.includes('button commands in 60 s')).length).toBe(1);
    // The second account's buttons still work: the limit is per account.
    await press(second.deviceId, 'mark_up_next');
    await watcher.until(() => watcher.latest().get(state(second.deviceId, 'unwatched_episodes')) === '2', 15_000, 'the second account’s mark');
    await watcher.close();
  });

  it('publishes every config and state again when Home Assistant comes online, and removes a removed account’s entities', { timeout: 60_000 }, async () => {
    const watcher = await watchBroker(broker);
    const { account, deviceId } = await optedIn();
    await watcher.until(() => watcher.latest().get(state(deviceId, 'unwatched_episodes')) === '3', 10_000, 'the states');
    const since = Date.now();
    await watcher.publish('homeassistant/status', 'online');
    await watcher.until(() => [...watcher.latest(since)].filter(([topic]) => topic.includes(`/airdate_${deviceId}/`) && topic.endsWith('/config')).length === 10, 15_000, 'the configs again');
    await watcher.until(() => watcher.latest(since).get(state(deviceId, 'unwatched_episodes')) === '3', 15_000, 'the states again');

    const admin = await makeAccount();
    await db().account.update({ where: { id: admin.id }, data: { role: 'admin' } });
    await removeAccount({ actorId: admin.id, id: account.id });
    await watcher.until(() => [...watcher.latest()].filter(([topic, payload]) => topic.includes(`/airdate_${deviceId}/`) && topic.endsWith('/config') && payload === '').length === 10, 10_000, 'ten empty configs');
    const deadline = Date.now() + 5_000;
    while (Date.now() < deadline && (await db().mqttDevice.findUnique({ where: { accountId: account.id } }))) await new Promise((done) => setTimeout(done, 50));
    expect(await db().mqttDevice.findUnique({ where: { accountId: account.id } })).toBeNull();
    await watcher.close();
  });

  it('reconnects after a broker restart and publishes everything again; the metric says whether it is connected', { timeout: 90_000 }, async () => {
    const { deviceId } = await optedIn();
    // On the broker before it stops (a publish cut short by the stop would be given back and done again anyway).
    const before = await watchBroker(broker);
    await before.until(() => before.latest().get(state(deviceId, 'unwatched_episodes')) === '3', 10_000, 'the states before the restart');
    await before.close();
    const connected = async () => {
      const text = (await call(app, 'GET', '/metrics', { token: 'metrics-token-for-tests' })).text;
      return /^airdate_mqtt_connected (\d)/m.exec(text)?.[1];
    };
    expect(await connected()).toBe('1');
    await broker.stop();
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline && (await connected()) !== '0') await new Promise((done) => setTimeout(done, 100));
    expect(await connected()).toBe('0');
    // The server keeps serving meanwhile.
    expect((await call(app, 'GET', '/readyz')).status).toBe(200);
    expect(log.text()).toContain('MQTT: cannot use the broker at mqtt://127.0.0.1:');
    expect(log.text()).not.toContain(broker.password);
    await broker.start();
    // The restarted broker kept nothing (no persistence): what a new client finds was published again.
    const watcher = await watchBroker(broker);
    await watcher.until(() => watcher.latest().get(state(deviceId, 'unwatched_episodes')) === '3', 30_000, 'the states after the restart');
    await watcher.until(() => watcher.latest().get('airdate/status') === 'online', 15_000, 'online');
    expect(await connected()).toBe('1');
    await watcher.close();
  });

  it('tells each release once as an event, the notification the webhook announces, also for an account without a webhook', { timeout: 60_000 }, async () => {
    const watcher = await watchBroker(broker);
    const account = await makeAccount();
    const show = await makeShow({ title: 'Andor', episodes: [{ number: 1, airDate: localDate('UTC', new Date()) }] });
    await setFollow({ accountId: account.id, kind: 'show', id: show.id, followed: true });
    await settings(account.token, true);
    const { deviceId } = await waitForDevice(account.id);
    // The 30-minute check finds the account although it has no webhook.
    expect(await findAccountsToCheck(new Date())).toContain(account.id);
    await checkAccountReleases({ accountId: account.id, jobs: app.jobs, reached: () => {}, publicOrigin: 'http://localhost' });
    const topic = `airdate/${deviceId}/release/event`;
    const event = await watcher.until(() => watcher.messages.find((message) => message.topic === topic), 15_000, 'the release event');
    const notification = await db().notification.findFirstOrThrow({ where: { accountId: account.id } });
    const { type, ...body } = JSON.parse(notification.payload);
    expect(event.retain).toBe(false);
    expect(JSON.parse(event.payload)).toEqual({ event_type: type, ...body });
    expect(JSON.parse(event.payload)).toMatchObject({ event_type: 'episode', title: 'Andor', item_key: `episode:${show.episodes[0]!.id}` });
    // Checked again (the next 30-minute run, a sync): nothing new, no second event.
    await checkAccountReleases({ accountId: account.id, jobs: app.jobs, reached: () => {}, publicOrigin: 'http://localhost' });
    await new Promise((done) => setTimeout(done, 1_500));
    expect(watcher.messages.filter((message) => message.topic === topic)).toHaveLength(1);
    await watcher.close();
  });

  it('tells watches from the API, the web app and media servers as events, not those of imports', { timeout: 60_000 }, async () => {
    const watcher = await watchBroker(broker);
    const { account, show, deviceId } = await optedIn();
    await watcher.until(() => watcher.latest().get(state(deviceId, 'unwatched_episodes')) === '3', 10_000, 'the states');
    const since = Date.now();
    await setWatched({ accountId: account.id, kind: 'episode', id: show.episodes[0]!.id, watched: true, source: 'import:trakt', at: new Date('2024-01-05T20:00:00Z') });
    await setWatched({ accountId: account.id, kind: 'episode', id: show.episodes[1]!.id, watched: true, source: 'media-server:jellyfin' });
    await watcher.until(() => watcher.latest(since).get(state(deviceId, 'unwatched_episodes')) === '1', 15_000, 'one unwatched');
    await new Promise((done) => setTimeout(done, 1_000));
    const events = watcher.messages.filter((message) => message.at >= since && message.topic === `airdate/${deviceId}/watch/event`);
    expect(events.map((message) => JSON.parse(message.payload).episode)).toEqual(['S01E02']);
    await watcher.close();
  });
});
