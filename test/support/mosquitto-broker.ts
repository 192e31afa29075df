import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import { connect, type MqttClient } from 'mqtt';

/** A free TCP port on 127.0.0.1 (asked of the system, then released). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export interface Broker {
  /** Stops the broker and removes its folder (useMosquitto does it after the file's tests). */
  close(): Promise<void>;
  port: number;
  /** `mqtt://user:password@127.0.0.1:port` with the broker's one user. */
  url: string;
  user: string;
  password: string;
  /** Stops the broker (SIGTERM) and resolves when it has exited. */
  stop(): Promise<void>;
  /** Starts it again on the same port (no persistence: retained messages are gone). */
  start(): Promise<void>;
}

/**
 * A real Mosquitto 2 broker: its own free port on 127.0.0.1, anonymous clients refused, one user in
 * a password file (mosquitto_passwd). Without vitest, so that bench/mqtt.ts can start one too;
 * tests call useMosquitto (mosquitto.ts), which stops it after the file's tests.
 */
/** Debian puts the broker in /usr/sbin, which a user's PATH may lack. */
const sbin = (name: string) => (existsSync(`/usr/sbin/${name}`) ? `/usr/sbin/${name}` : existsSync(`/usr/bin/${name}`) ? `/usr/bin/${name}` : name);

export async function startMosquitto(): Promise<Broker> {
  const dir = mkdtempSync(path.join(tmpdir(), 'airdate-mosquitto-'));
  const user = 'airdate';
  const password = 'broker-secret-1';
  const passwords = path.join(dir, 'passwords');
  const made = spawnSync(sbin('mosquitto_passwd'), ['-b', '-c', passwords, user, password]);
  if (made.status !== 0) throw new Error(`mosquitto_passwd failed: ${made.stderr?.toString()}`);
  const port = await freePort();
  const configFile = path.join(dir, 'mosquitto.conf');
  writeFileSync(configFile, [`listener ${port} 127.0.0.1`, 'allow_anonymous false', `password_file ${passwords}`, 'persistence false',
    // Run as root (CI's container), Mosquitto would switch to its own user, who cannot read this folder.
    `user ${userInfo().username}`, ''].join('\n'));
  let child: ChildProcess | undefined;
  let output = '';

  const start = async () => {
    child = spawn(sbin('mosquitto'), ['-c', configFile], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    // Ready once a client gets in.
    const deadline = Date.now() + 10_000;
    for (;;) {
      try {
        const client = await connectClient(`mqtt://127.0.0.1:${port}`, { username: user, password, reconnectPeriod: 0 });
        await client.endAsync();
        return;
      } catch (error) {
        if (Date.now() > deadline || child.exitCode !== null) throw new Error(`mosquitto did not start: ${String(error)}\n${output}`);
        await new Promise((done) => setTimeout(done, 100));
      }
    }
  };
  const stop = async () => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null) return;
    const exited = new Promise<void>((done) => running.once('exit', () => done()));
    running.kill('SIGTERM');
    await exited;
  };
  await start();
  const close = async () => {
    await stop();
    rmSync(dir, { recursive: true, force: true });
  };
  return { port, url: `mqtt://${user}:${password}@127.0.0.1:${port}`, user, password, stop, start, close };
}

function connectClient(url: string, options: { username: string; password: string; reconnectPeriod?: number }): Promise<MqttClient> {
  return new Promise((resolve, reject) => {
    // MQTT 5, for retain-as-published: a watcher sees whether each message was sent retained.
    const client = connect(url, { ...options, protocolVersion: 5, connectTimeout: 3_000 });
    client.once('connect', () => resolve(client));
    client.once('error', (error) => {
      client.end(true);
      reject(error);
    });
  });
}

/** One message as a watching client received it. */
export interface Received {
  topic: string;
  payload: string;
  retain: boolean;
  at: number;
}

/**
 * Home Assistant's side, as far as a test needs it: a client subscribed to everything that keeps
 * each message, and what the broker retains per topic (the latest retained payload; empty: none).
 */
export async function watchBroker(broker: Broker, filters: string[] = ['#']) {
  const client = await connectClient(`mqtt://127.0.0.1:${broker.port}`, { username: broker.user, password: broker.password });
  const messages: Received[] = [];
  client.on('message', (topic, payload, packet) => void messages.push({ topic, payload: payload.toString(), retain: packet.retain, at: Date.now() }));
  await client.subscribeAsync(filters, { qos: 1, rap: true });
  const watcher = {
    client,
    messages,
    /** The last payload each topic got (retained or not), from the messages since `since`. */
    latest(since = 0): Map<string, string> {
      const map = new Map<string, string>();
      for (const message of messages) if (message.at >= since) map.set(message.topic, message.payload);
      return map;
    },
    /** Waits until `check` returns something other than undefined/false, polling; throws with the messages after `timeoutMs`. */
    async until<T>(check: () => T | undefined | false, timeoutMs = 10_000, what = 'a message'): Promise<T> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const value = check();
        if (value !== undefined && value !== false) return value;
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; got:\n${messages.slice(-40).map((m) => `${m.topic} ${m.payload.slice(0, 120)}`).join('\n')}`);
        await new Promise((done) => setTimeout(done, 25));
      }
    },
    publish: (topic: string, payload: string, retain = false) => client.publishAsync(topic, payload, { qos: 1, retain }),
    close: () => client.endAsync(true),
  };
  return watcher;
}
