import { describe, expect, it } from 'vitest';
import { db } from '../../src/db/client.ts';
import { initSecretKey } from '../../src/keys/secret-key.ts';
import { setFollow } from '../../src/library/library.ts';
import { useTestDatabase } from '../support/database.ts';
import { makeAccount, makeShow } from '../support/factories.ts';
import { freePort, watchBroker } from '../support/mosquitto-broker.ts';
import { useMosquitto } from '../support/mosquitto.ts';
import { serverProcesses } from '../support/server-processes.ts';

// Real `serve` processes publishing to a real Mosquitto broker: the last will when one is killed,
// a broker that refuses the credentials, and two processes on one database publishing each change
// once (the PostgreSQL run is the one that matters: several processes behind a load balancer).
const config = await useTestDatabase();
initSecretKey(config);
const broker = await useMosquitto();
const serve = serverProcesses(config, { AIRDATE_MQTT_URL: broker.url });

async function optedInAccount(episodes: number) {
  const account = await makeAccount();
  const show = await makeShow({ title: 'Severance', episodes: Array.from({ length: episodes }, (_, index) => ({ number: index + 1, airDate: '2024-02-01' })) });
  await setFollow({ accountId: account.id, kind: 'show', id: show.id, followed: true });
  await db().account.update({ where: { id: account.id }, data: { homeAssistantMqtt: true } });
  return { account, show };
}

async function deviceOf(accountId: number): Promise<string> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const row = await db().mqttDevice.findUnique({ where: { accountId } });
    if (row?.published) return row.deviceId;
    if (Date.now() > deadline) throw new Error('the device was not published');
    await new Promise((done) => setTimeout(done, 50));
  }
}

describe('MQTT with real server processes', () => {
  it('a killed server shows offline through its last will; a broker refusing the credentials, or absent at start, leaves the server serving, with one log line', { timeout: 180_000 }, async () => {
    const watcher = await watchBroker(broker, ['airdate/status']);
    const server = await serve();
    await watcher.until(() => watcher.latest().get('airdate/status') === 'online', 15_000, 'online');
    const since = Date.now();
    server.child.kill('SIGKILL');
    await watcher.until(() => watcher.latest(since).get('airdate/status') === 'offline', 15_000, 'the last will');
    // Retained: Home Assistant starting now sees the entities unavailable too.
    const late = await watchBroker(broker, ['airdate/status']);
    expect(await late.until(() => late.latest().get('airdate/status'))).toBe('offline');

    // Refused credentials, and a broker that is not there at start (nothing listens on the port).
    const [refused, absent] = await Promise.all([
      serve({ AIRDATE_MQTT_URL: broker.url.replace(broker.password, 'wrong-password') }),
      serve({ AIRDATE_MQTT_URL: `mqtt://airdate:secret@127.0.0.1:${await freePort()}` }),
    ]);
    for (const server of [refused, absent]) expect((await fetch(`${server.baseUrl}/readyz`)).status).toBe(200);
    // Three attempts or so (1 s, 2 s apart): still one line each.
    await new Promise((done) => setTimeout(done, 3_500));
    const linesOf = (server: typeof refused) => server.output().split('\n').filter((line) => line.includes('MQTT'));
    for (const server of [refused, absent]) expect((await fetch(`${server.baseUrl}/readyz`)).status).toBe(200);
    expect(linesOf(refused)).toHaveLength(1);
    expect(linesOf(refused)[0]).toContain('the broker refused the connection: not authorized');
    expect(refused.output()).not.toContain('wrong-password');
    expect(linesOf(absent)).toHaveLength(1);
    expect(linesOf(absent)[0]).toContain('the broker refused the connection (is it running, on this port?)');
    expect(absent.output()).not.toContain('secret');
    expect(late.latest().get('airdate/status')).toBe('offline');
    await Promise.all([watcher.close(), late.close()]);
  });

  it('two processes on one database publish each change once, and the status stays online while one of them is up', { timeout: 180_000 }, async () => {
    const marks = 6;
    const { account, show } = await optedInAccount(marks);
    const [first, second] = await Promise.all([serve(), serve()]);
    const deviceId = await deviceOf(account.id);
    const watcher = await watchBroker(broker);
    const stateTopic = `airdate/${deviceId}/unwatched_episodes/state`;
    await watcher.until(() => watcher.latest().get(stateTopic) === String(marks), 15_000, 'the first state');
    // Both have connected and published everything once (each connect does): changes from here on.
    await new Promise((done) => setTimeout(done, 1_500));
    const since = Date.now();
    for (let index = 0; index < marks; index += 1) {
      const through = index % 2 === 0 ? first : second;
      const answer = await fetch(`${through.baseUrl}/api/machine/watched`, {
        method: 'POST',
        headers: { authorization: `Bearer ${account.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ kind: 'episode', id: show.episodes[index]!.id, watched: true }),
      });
      expect(answer.status).toBe(200);
      // One change at a time, each on the broker before the next (how soon: bench/mqtt.ts).
      const left = String(marks - index - 1);
      await watcher.until(() => watcher.latest(since).get(stateTopic) === left, 15_000, `${left} unwatched`);
    }
    await new Promise((done) => setTimeout(done, 1_500));
    const states = watcher.messages.filter((message) => message.at >= since && message.topic === stateTopic).map((message) => message.payload);
    expect(states).toEqual(['5', '4', '3', '2', '1', '0']);
    const watches = watcher.messages.filter((message) => message.at >= since && message.topic === `airdate/${deviceId}/watch/event`);
    expect(watches.map((message) => JSON.parse(message.payload).episode)).toEqual(['S01E01', 'S01E02', 'S01E03', 'S01E04', 'S01E05', 'S01E06']);

    // One process killed: its last will says offline, the other says online again.
    const killedAt = Date.now();
    first.child.kill('SIGKILL');
    await watcher.until(() => watcher.messages.some((message) => message.at >= killedAt && message.topic === 'airdate/status' && message.payload === 'offline'), 15_000, 'the will');
    await watcher.until(() => watcher.latest(killedAt).get('airdate/status') === 'online', 15_000, 'online again');
    await watcher.close();
  });
});
