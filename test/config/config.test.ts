import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { parseTargetPolicy } from '../../src/webhooks/target-policy.ts';

const problemsOf = (env: Record<string, string>): string[] => {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
};

describe('release engine settings', () => {
  it('defaults: role all, jobs on the application database, external,private webhook targets, 15 s timeout, no network catalogs', () => {
    const config = loadConfig({});
    expect(config.jobs).toEqual({ role: 'all', mongodbUrl: undefined, pollMs: 2000, lockMs: 30_000, crashAt: undefined });
    expect(config.webhooks).toEqual({ policy: parseTargetPolicy('external,private'), timeoutMs: 15_000 });
    expect(config.catalogs).toEqual({ tmdb: undefined, tvdb: undefined, igdb: undefined });
    // The documented defaults (decisions.md, README): 256 KB of JSON, 50 MB uploads, 600 requests a minute.
    expect(config.limits).toEqual({
      maxJsonBytes: 256 * 1024,
      maxUploadBytes: 50 * 1024 * 1024,
      requestsPerMinute: 600,
      liveStreamsPerCredential: 10,
      liveStreamsPerAccount: 30,
      mediaServerPerMinute: 1_200,
      catalogRequestsPerHour: 1_000,
      graphql: { maxDepth: 10, maxCost: 20_000, maxAliases: 15, maxDirectives: 20, maxTokens: 2_000 },
    });
  });

  it('turns a catalog on only when all its keys are set, with base URLs trimmed of trailing slashes', () => {
    const config = loadConfig({
      TMDB_API_KEY: 'tmdb-key',
      AIRDATE_TMDB_URL: 'http://127.0.0.1:9000/3/',
      TVDB_API_KEY: 'tvdb-key',
      IGDB_CLIENT_ID: 'only-the-id',
    });
    expect(config.catalogs.tmdb).toEqual({ apiKey: 'tmdb-key', baseUrl: 'http://127.0.0.1:9000/3', imageBaseUrl: 'https://image.tmdb.org/t/p/w500' });
    expect(config.catalogs.tvdb).toMatchObject({ apiKey: 'tvdb-key', pin: undefined, baseUrl: 'https://api4.thetvdb.com/v4' });
    expect(config.catalogs.igdb).toBeUndefined();
  });

  it('refuses a bad role, MongoDB URL, base URL, timeout, stream bound and allow-list, naming each', () => {
    expect(problemsOf({ AIRDATE_ROLE: 'cron' }).join()).toMatch(/AIRDATE_ROLE/);
    expect(problemsOf({ AIRDATE_MONGODB_URL: 'http://mongo' }).join()).toMatch(/AIRDATE_MONGODB_URL/);
    expect(problemsOf({ AIRDATE_TMDB_URL: 'ftp://x' }).join()).toMatch(/AIRDATE_TMDB_URL/);
    expect(problemsOf({ AIRDATE_WEBHOOK_TIMEOUT_MS: '5' }).join()).toMatch(/AIRDATE_WEBHOOK_TIMEOUT_MS/);
    expect(problemsOf({ AIRDATE_LIVE_STREAMS_PER_ACCOUNT: '-1' }).join()).toMatch(/AIRDATE_LIVE_STREAMS_PER_ACCOUNT/);
    expect(problemsOf({ AIRDATE_LIVE_STREAMS_PER_ACCOUNT: '1001' }).join()).toMatch(/AIRDATE_LIVE_STREAMS_PER_ACCOUNT/);
    expect(loadConfig({ AIRDATE_LIVE_STREAMS_PER_ACCOUNT: '0' }).limits.liveStreamsPerAccount).toBe(0);
    expect(problemsOf({ AIRDATE_LIVE_STREAMS_PER_CREDENTIAL: '0' }).join()).toMatch(/AIRDATE_LIVE_STREAMS_PER_CREDENTIAL/);
    expect(problemsOf({ AIRDATE_WEBHOOK_ALLOWED_HOSTS: 'external,,loopback' }).join()).toMatch(/AIRDATE_WEBHOOK_ALLOWED_HOSTS/);
    expect(problemsOf({ AIRDATE_WEBHOOK_ALLOWED_HOSTS: '10.0.0.0/33' }).join()).toMatch(/AIRDATE_WEBHOOK_ALLOWED_HOSTS/);
    expect(loadConfig({ AIRDATE_WEBHOOK_ALLOWED_HOSTS: 'loopback, 192.168.1.0/24, ha.lan', AIRDATE_ROLE: 'worker' }).jobs.role).toBe('worker');
  });

  it('reads AIRDATE_CATALOG_REQUESTS_PER_HOUR (1 000 by default, 0 turns the budgets off) and refuses a bad one', () => {
    expect(loadConfig({ AIRDATE_CATALOG_REQUESTS_PER_HOUR: '250' }).limits.catalogRequestsPerHour).toBe(250);
    expect(loadConfig({ AIRDATE_CATALOG_REQUESTS_PER_HOUR: '0' }).limits.catalogRequestsPerHour).toBe(0);
    for (const bad of ['-1', '1.5', 'many', '1000001']) expect(problemsOf({ AIRDATE_CATALOG_REQUESTS_PER_HOUR: bad }).join()).toMatch(/^AIRDATE_CATALOG_REQUESTS_PER_HOUR: /);
  });

  it('reads the live update bounds, and refuses an account bound one credential could fill', () => {
    expect(loadConfig({ AIRDATE_LIVE_STREAMS_PER_CREDENTIAL: '3', AIRDATE_LIVE_STREAMS_PER_ACCOUNT: '6' }).limits).toMatchObject({ liveStreamsPerCredential: 3, liveStreamsPerAccount: 6 });
    // Live updates off needs no credential bound to agree with it.
    expect(loadConfig({ AIRDATE_LIVE_STREAMS_PER_CREDENTIAL: '50', AIRDATE_LIVE_STREAMS_PER_ACCOUNT: '0' }).limits.liveStreamsPerAccount).toBe(0);
    // Under twice the credential's bound, one leaked token's streams could leave the owner's browsers nothing.
    expect(problemsOf({ AIRDATE_LIVE_STREAMS_PER_ACCOUNT: '19' })).toEqual([
      'AIRDATE_LIVE_STREAMS_PER_ACCOUNT: must be 0 (live updates off) or at least twice AIRDATE_LIVE_STREAMS_PER_CREDENTIAL (10), so that one session\'s or token\'s streams never fill the account\'s',
    ]);
    expect(problemsOf({ AIRDATE_LIVE_STREAMS_PER_CREDENTIAL: '4', AIRDATE_LIVE_STREAMS_PER_ACCOUNT: '7' }).join()).toMatch(/twice AIRDATE_LIVE_STREAMS_PER_CREDENTIAL \(4\)/);
  });

  it('reads AIRDATE_ALLOWED_HOSTS (none by default) and refuses an entry that is no host, naming it', () => {
    expect(loadConfig({}).web.allowedHosts).toEqual([]);
    expect(loadConfig({ AIRDATE_ALLOWED_HOSTS: 'Airdate.Example.com, .home.example' }).web.allowedHosts).toEqual(['airdate.example.com', '.home.example']);
    expect(problemsOf({ AIRDATE_ALLOWED_HOSTS: 'airdate.example.com, https://airdate.example.com' })).toEqual([
      'AIRDATE_ALLOWED_HOSTS: "https://airdate.example.com" is not a host name, a .suffix, an IP address or *',
    ]);
  });

  it('reads the job lock lifetime and the crash step of the crash tests, refusing bad ones', () => {
    expect(loadConfig({ AIRDATE_JOB_LOCK_MS: '1500', AIRDATE_TEST_CRASH_AT: 'delivery-after-send' }).jobs).toMatchObject({ lockMs: 1500, crashAt: 'delivery-after-send' });
    expect(problemsOf({ AIRDATE_JOB_LOCK_MS: '100', AIRDATE_TEST_CRASH_AT: 'somewhere' }).map((problem) => problem.split(':')[0])).toEqual(['AIRDATE_JOB_LOCK_MS', 'AIRDATE_TEST_CRASH_AT']);
  });
});

describe('log and metrics settings', () => {
  it('defaults: info, a format chosen by the terminal, metrics on, without a token or a port of their own', () => {
    const config = loadConfig({});
    expect([config.logLevel, config.logFormat]).toEqual(['info', 'auto']);
    expect(config.metrics).toEqual({ enabled: true, port: undefined, token: undefined });
    expect(loadConfig({ AIRDATE_METRICS: '', AIRDATE_METRICS_PORT: ' ', AIRDATE_METRICS_TOKEN: '' }).metrics).toEqual({ enabled: true, port: undefined, token: undefined });
  });

  it('reads each setting', () => {
    const config = loadConfig({ AIRDATE_LOG_FORMAT: 'pretty', AIRDATE_METRICS: 'off', AIRDATE_METRICS_PORT: '9464', AIRDATE_METRICS_TOKEN: 'a-long-enough-token' });
    expect(config.logFormat).toBe('pretty');
    expect(config.metrics).toEqual({ enabled: false, port: 9464, token: 'a-long-enough-token' });
    expect(loadConfig({ AIRDATE_METRICS: 'true' }).metrics.enabled).toBe(true);
  });

  it('names every bad one at once', () => {
    const problems = problemsOf({ AIRDATE_LOG_FORMAT: 'xml', AIRDATE_METRICS: 'maybe', AIRDATE_METRICS_PORT: '70000', AIRDATE_METRICS_TOKEN: 'short' });
    expect(problems.map((problem) => problem.split(':')[0])).toEqual(['AIRDATE_LOG_FORMAT', 'AIRDATE_METRICS', 'AIRDATE_METRICS_PORT', 'AIRDATE_METRICS_TOKEN']);
    expect(problemsOf({ AIRDATE_METRICS_PORT: 'nine' })).toEqual([expect.stringMatching(/^AIRDATE_METRICS_PORT: /)]);
    expect(problemsOf({ AIRDATE_METRICS_TOKEN: 'has a space in it, quite long' })).toEqual([expect.stringMatching(/^AIRDATE_METRICS_TOKEN: /)]);
  });
});

describe('AIRDATE_SMTP_URL (the server-wide mail server of notification channels)', () => {
  it('is unset by default, and parsed into the mail server when set', () => {
    expect(loadConfig({}).smtp).toBeUndefined();
    expect(loadConfig({ AIRDATE_SMTP_URL: '  ' }).smtp).toBeUndefined();
    expect(loadConfig({ AIRDATE_SMTP_URL: 'smtps://airdate:p%40ss@mail.example.com?from=airdate@example.com&name=Airdate' }).smtp).toEqual({
      host: 'mail.example.com',
      port: 465,
      security: 'ssl',
      user: 'airdate',
      password: 'p@ss',
      from: { address: 'airdate@example.com', name: 'Airdate' },
    });
  });

  it('stops the start on a bad one, naming the variable and the part, never the password', () => {
    const problems = problemsOf({ AIRDATE_SMTP_URL: 'smtp://u:hunter2@mail.example.com' });
    expect(problems).toEqual([expect.stringMatching(/^AIRDATE_SMTP_URL: from= is missing/)]);
    expect(problems.join()).not.toContain('hunter2');
    expect(problemsOf({ AIRDATE_SMTP_URL: 'mailto://mail.example.com' })).toEqual([expect.stringMatching(/^AIRDATE_SMTP_URL: must start with smtp:\/\/ or smtps:\/\//)]);
  });
});

describe('AIRDATE_MQTT_URL and its prefixes (Home Assistant over MQTT)', () => {
  it('is off unless set; parses credentials, TLS and the default ports; the prefixes default to homeassistant and airdate', () => {
    expect(loadConfig({}).mqtt).toBeUndefined();
    expect(loadConfig({ AIRDATE_MQTT_URL: ' ' }).mqtt).toBeUndefined();
    expect(loadConfig({ AIRDATE_MQTT_URL: 'mqtt://ha:p%40ss%3Aword@broker.lan' }).mqtt).toEqual({
      url: 'mqtt://broker.lan:1883',
      username: 'ha',
      password: 'p@ss:word',
      discoveryPrefix: 'homeassistant',
      topicPrefix: 'airdate',
    });
    expect(loadConfig({ AIRDATE_MQTT_URL: 'mqtts://broker.example.com', AIRDATE_MQTT_DISCOVERY_PREFIX: 'ha', AIRDATE_MQTT_TOPIC_PREFIX: 'home/airdate' }).mqtt).toEqual({
      url: 'mqtts://broker.example.com:8883',
      username: null,
      password: null,
      discoveryPrefix: 'ha',
      topicPrefix: 'home/airdate',
    });
  });

  it('refuses other schemes, paths, wildcards and empty levels, naming every problem and never the password', () => {
    expect(problemsOf({ AIRDATE_MQTT_URL: 'http://u:hunter2@broker.lan' })).toEqual(['AIRDATE_MQTT_URL: must start with mqtt:// or mqtts://, not http://']);
    expect(problemsOf({ AIRDATE_MQTT_URL: 'mqtt://u:hunter2@broker.lan/topic' })[0]).toMatch(/^AIRDATE_MQTT_URL: must be only/);
    expect(problemsOf({ AIRDATE_MQTT_URL: 'mqtt://:hunter2@broker.lan' })[0]).toMatch(/needs a user name/);
    const problems = problemsOf({ AIRDATE_MQTT_URL: 'mqtt://broker.lan', AIRDATE_MQTT_DISCOVERY_PREFIX: 'home/#', AIRDATE_MQTT_TOPIC_PREFIX: 'airdate//x' });
    expect(problems).toEqual([expect.stringMatching(/^AIRDATE_MQTT_DISCOVERY_PREFIX: must not hold the wildcards/), expect.stringMatching(/^AIRDATE_MQTT_TOPIC_PREFIX: must not start or end with \//)]);
    expect(problemsOf({ AIRDATE_MQTT_URL: 'mqtt://broker.lan', AIRDATE_MQTT_TOPIC_PREFIX: '$SYS' })[0]).toMatch(/must not start with \$/);
    expect(problemsOf({ AIRDATE_MQTT_URL: 'mqtt://broker.lan', AIRDATE_MQTT_TOPIC_PREFIX: 'homeassistant' })).toEqual(['AIRDATE_MQTT_TOPIC_PREFIX: must differ from AIRDATE_MQTT_DISCOVERY_PREFIX']);
    for (const url of ['http://u:hunter2@broker.lan', 'mqtt://u:hunter2@broker.lan/topic']) expect(problemsOf({ AIRDATE_MQTT_URL: url }).join(' ')).not.toContain('hunter2');
  });
});
