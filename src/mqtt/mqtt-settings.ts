/**
 * The MQTT broker the server publishes to (AIRDATE_MQTT_URL, AIRDATE_MQTT_DISCOVERY_PREFIX,
 * AIRDATE_MQTT_TOPIC_PREFIX), parsed here so that config.ts reads them with this module's rules.
 */

export interface MqttSettings {
  /** `mqtt://host:port` or `mqtts://host:port`, without the credentials (what log lines name). */
  url: string;
  /** The user name and password, percent-decoded; null when the URL has none. */
  username: string | null;
  password: string | null;
  /** Home Assistant's discovery prefix (`homeassistant` unless Home Assistant was told otherwise). */
  discoveryPrefix: string;
  /** Where Airdate's own topics live: `<prefix>/status`, `<prefix>/<device id>/…`. */
  topicPrefix: string;
}

export const defaultMqttPorts = { mqtt: 1883, mqtts: 8883 } as const;

/**
 * Parses AIRDATE_MQTT_URL: `mqtt://[user:password@]host[:port]` or `mqtts://…` (TLS; port 8883
 * unless given). Throws an Error naming the part at fault, never quoting the password.
 */
export function parseMqttUrl(text: string): Pick<MqttSettings, 'url' | 'username' | 'password'> {
  if (!URL.canParse(text)) throw new Error('not a URL (mqtt://user:password@host:port, or mqtts://… for TLS)');
  const url = new URL(text);
  const scheme = url.protocol.slice(0, -1).toLowerCase();
  if (scheme !== 'mqtt' && scheme !== 'mqtts') throw new Error(`must start with mqtt:// or mqtts://, not ${scheme.slice(0, 20)}://`);
  if (url.hostname === '') throw new Error('the host is missing');
  if ((url.pathname !== '' && url.pathname !== '/') || url.search !== '' || url.hash !== '') throw new Error('must be only mqtt(s)://[user:password@]host[:port], without a path or query');
  const port = url.port === '' ? defaultMqttPorts[scheme] : Number(url.port);
  const decode = (part: string, what: string) => {
    try {
      return decodeURIComponent(part);
    } catch {
      throw new Error(`the ${what} is not validly percent-encoded`);
    }
  };
  const username = url.username === '' ? null : decode(url.username, 'user name');
  const password = url.password === '' ? null : decode(url.password, 'password');
  if (password !== null && username === null) throw new Error('a password needs a user name (mqtt://user:password@host)');
  return { url: `${scheme}://${url.hostname}:${port}`, username, password };
}

/**
 * A topic prefix (one or more levels): no wildcards (`+`, `#`), no empty level, no `$` start (the
 * broker's own topics), no NUL, at most 100 characters. Throws an Error saying which.
 */
export function parseTopicPrefix(text: string): string {
  if (text.length === 0 || text.length > 100) throw new Error('must be 1 to 100 characters');
  if (/[+#\u0000]/.test(text)) throw new Error('must not hold the wildcards + or # (or NUL)');
  if (text.startsWith('$')) throw new Error('must not start with $ (the broker’s own topics)');
  if (text.split('/').some((level) => level === '')) throw new Error('must not start or end with / or hold an empty level (//)');
  return text;
}
