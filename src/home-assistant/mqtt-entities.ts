import { fitJsonCost, presentHomeAssistantSummary } from '../feeds/home-assistant-summary.ts';
import type { FeedItem, Feeds } from '../feeds/types.ts';
import { homeAssistantSummary } from '../limits.ts';

/**
 * What one account's Home Assistant device is made of over MQTT, as pure data: the discovery
 * configs (Home Assistant's MQTT discovery documentation is the contract: retained `config`
 * messages with `unique_id`, `device.identifiers`, `availability`, `origin` and `default_entity_id`)
 * and the state messages. Topics carry the device's opaque id, never the account's name.
 *
 *   <discovery>/<component>/airdate_<device>/<entity>/config   retained config (empty: removed)
 *   <topics>/status                                            online / offline (last will)
 *   <topics>/<device>/<sensor>/state, …/attributes              retained sensor states
 *   <topics>/<device>/<event>/event                            event entities, not retained
 *   <topics>/<device>/<button>/press                           buttons' commands (PRESS)
 */

export interface MqttTopics {
  discoveryPrefix: string;
  topicPrefix: string;
}

/** One message to publish. */
export interface MqttMessage {
  topic: string;
  payload: string;
  retain: boolean;
}

/** The sensors: their key (in topics, unique_id, entity id), name and how they look. */
export const sensorKeys = ['up_next', 'airing_today', 'airing_week', 'unwatched_episodes', 'next_release', 'last_watched'] as const;
export type SensorKey = (typeof sensorKeys)[number];

/** The event entities and the kinds of what they tell. */
export const eventKeys = ['release', 'watch'] as const;
export type EventKey = (typeof eventKeys)[number];
export const eventTypes = ['episode', 'movie', 'game'] as const;

/** The buttons; the only payload their command topics take. */
export const buttonKeys = ['sync', 'mark_up_next'] as const;
export type ButtonKey = (typeof buttonKeys)[number];
export const pressPayload = 'PRESS';

/** Items in a list attribute (`up_next`, `today`, `week`): at their largest 649 bytes each, so ≤ 6.5 KB, well under Home Assistant's 16 KB. */
export const attributeListItems = 10;

const sensorLooks: Record<SensorKey, Record<string, unknown>> = {
  up_next: { name: 'Up next', icon: 'mdi:playlist-play', unit_of_measurement: 'episodes', state_class: 'measurement' },
  airing_today: { name: 'Airing today', icon: 'mdi:calendar-today', unit_of_measurement: 'episodes', state_class: 'measurement' },
  airing_week: { name: 'Airing this week', icon: 'mdi:calendar-week', unit_of_measurement: 'episodes', state_class: 'measurement' },
  unwatched_episodes: { name: 'Unwatched episodes', icon: 'mdi:television-classic', unit_of_measurement: 'episodes', state_class: 'measurement' },
  next_release: { name: 'Next release', icon: 'mdi:calendar-star', device_class: 'timestamp' },
  last_watched: { name: 'Last watched', icon: 'mdi:history' },
};
const eventLooks: Record<EventKey, Record<string, unknown>> = {
  release: { name: 'Release', icon: 'mdi:new-box' },
  watch: { name: 'Watched', icon: 'mdi:eye-check' },
};
const buttonLooks: Record<ButtonKey, Record<string, unknown>> = {
  sync: { name: 'Sync now', icon: 'mdi:sync' },
  mark_up_next: { name: 'Mark the next up-next episode watched', icon: 'mdi:check' },
};

const deviceTopic = (topics: MqttTopics, deviceId: string) => `${topics.topicPrefix}/${deviceId}`;
export const sensorStateTopic = (topics: MqttTopics, deviceId: string, key: SensorKey) => `${deviceTopic(topics, deviceId)}/${key}/state`;
export const sensorAttributesTopic = (topics: MqttTopics, deviceId: string, key: SensorKey) => `${deviceTopic(topics, deviceId)}/${key}/attributes`;
export const eventTopic = (topics: MqttTopics, deviceId: string, key: EventKey) => `${deviceTopic(topics, deviceId)}/${key}/event`;
export const buttonTopic = (topics: MqttTopics, deviceId: string, key: ButtonKey) => `${deviceTopic(topics, deviceId)}/${key}/press`;
/** What the command subscription matches: every device's every button. */
export const buttonTopicFilter = (topics: MqttTopics) => `${topics.topicPrefix}/+/+/press`;
/** Home Assistant's birth and will messages. */
export const homeAssistantStatusTopic = (topics: MqttTopics) => `${topics.discoveryPrefix}/status`;

const configTopic = (topics: MqttTopics, component: string, deviceId: string, key: string) => `${topics.discoveryPrefix}/${component}/airdate_${deviceId}/${key}/config`;

/** Every config topic of a device, with its component: what turning it off empties. */
function entities(): { component: 'sensor' | 'event' | 'button'; key: string }[] {
  return [
    ...sensorKeys.map((key) => ({ component: 'sensor' as const, key })),
    ...eventKeys.map((key) => ({ component: 'event' as const, key })),
    ...buttonKeys.map((key) => ({ component: 'button' as const, key })),
  ];
}

/** The retained discovery configs of one device. `version`: the server's, for `origin` and `device`. */
export function discoveryConfigs(topics: MqttTopics, deviceId: string, version: string): MqttMessage[] {
  const common = {
    availability: [{ topic: `${topics.topicPrefix}/status`, payload_available: 'online', payload_not_available: 'offline' }],
    device: { identifiers: [`airdate_${deviceId}`], name: 'Airdate', manufacturer: 'Airdate', model: 'Media tracker', sw_version: version },
    origin: { name: 'Airdate', sw_version: version },
  };
  return entities().map(({ component, key }) => {
    const id = `airdate_${deviceId}_${key}`;
    const base = { ...common, unique_id: id, default_entity_id: `${component}.${id}` };
    let config: Record<string, unknown>;
    if (component === 'sensor') {
      const sensor = key as SensorKey;
      config = { ...base, ...sensorLooks[sensor], state_topic: sensorStateTopic(topics, deviceId, sensor) };
      if (hasAttributes(sensor)) config.json_attributes_topic = sensorAttributesTopic(topics, deviceId, sensor);
    } else if (component === 'event') {
      config = { ...base, ...eventLooks[key as EventKey], state_topic: eventTopic(topics, deviceId, key as EventKey), event_types: [...eventTypes] };
    } else {
      config = { ...base, ...buttonLooks[key as ButtonKey], command_topic: buttonTopic(topics, deviceId, key as ButtonKey), payload_press: pressPayload };
    }
    return { topic: configTopic(topics, component, deviceId, key), payload: JSON.stringify(config), retain: true };
  });
}

const hasAttributes = (key: SensorKey) => key !== 'unwatched_episodes';

/**
 * What removes a device from Home Assistant: an empty retained message on each config topic (and
 * on each retained state topic, so the broker keeps nothing of the account).
 */
export function removalMessages(topics: MqttTopics, deviceId: string): MqttMessage[] {
  const empty = (topic: string): MqttMessage => ({ topic, payload: '', retain: true });
  return [
    ...entities().map(({ component, key }) => empty(configTopic(topics, component, deviceId, key))),
    ...sensorKeys.map((key) => empty(sensorStateTopic(topics, deviceId, key))),
    ...sensorKeys.filter(hasAttributes).map((key) => empty(sensorAttributesTopic(topics, deviceId, key))),
  ];
}

/** The last item the account marked watched, as the last-watched sensor shows it. */
export interface LastWatched {
  kind: 'episode' | 'movie' | 'game';
  id: number;
  /** The show's, movie's or game's title. */
  title: string;
  /** `S01E02` for an episode. */
  episode: string | null;
  episodeTitle: string | null;
  at: Date;
}

/** The feeds the sensors show, with the account's local date and time zone. */
export interface SensorInput {
  feeds: Feeds;
  date: string;
  timezone: string;
  lastWatched: LastWatched | null;
}

/** Home Assistant's MQTT sensor reads this payload as "no value" (unknown). */
const noValue = 'None';
const { stateCharacters, textCost } = homeAssistantSummary;

/** Every sensor's state and attributes, retained. States are at most 255 characters; attributes bounded. */
export function sensorStates(topics: MqttTopics, deviceId: string, input: SensorInput): MqttMessage[] {
  const { feeds } = input;
  const lean = presentHomeAssistantSummary({ ...feeds, generatedAt: '', counts: { ...feeds.counts } });
  const { counts } = feeds;
  const release = nextRelease(feeds, input.date);
  const last = input.lastWatched;
  const values: Record<SensorKey, { state: string; attributes?: Record<string, unknown> }> = {
    up_next: { state: String(counts.upNext), attributes: { next: lean.next, up_next: lean.upNext.slice(0, attributeListItems) } },
    airing_today: { state: String(counts.airingToday), attributes: { today: lean.today.slice(0, attributeListItems) } },
    airing_week: { state: String(counts.airingWeek), attributes: { week: lean.week.slice(0, attributeListItems) } },
    unwatched_episodes: { state: String(counts.unwatchedEpisodes) },
    next_release: release
      ? { state: zonedMidnight(release.airDate, input.timezone), attributes: releaseAttributes(release) }
      : { state: noValue, attributes: {} },
    last_watched: last
      ? {
          state: fitJsonCost(last.episode ? `${last.title} ${last.episode}` : last.title, stateCharacters),
          attributes: {
            kind: last.kind,
            id: last.id,
            title: fitJsonCost(last.title, textCost),
            episode: last.episode,
            episode_title: last.episodeTitle === null ? null : fitJsonCost(last.episodeTitle, textCost),
            watched_at: last.at.toISOString(),
          },
        }
      : { state: noValue, attributes: {} },
  };
  return sensorKeys.flatMap((key) => {
    const { state, attributes } = values[key];
    const messages: MqttMessage[] = [{ topic: sensorStateTopic(topics, deviceId, key), payload: state, retain: true }];
    if (hasAttributes(key)) messages.push({ topic: sensorAttributesTopic(topics, deviceId, key), payload: JSON.stringify(attributes ?? {}), retain: true });
    return messages;
  });
}

/** The earliest item releasing from today on: today's and tomorrow's releases, then the week's episodes. */
function nextRelease(feeds: Feeds, today: string): FeedItem | undefined {
  const candidates = [...feeds.releasing, ...feeds.week].filter((item) => item.airDate >= today);
  candidates.sort((a, b) => (a.airDate < b.airDate ? -1 : a.airDate > b.airDate ? 1 : 0));
  return candidates[0];
}

function releaseAttributes(item: FeedItem): Record<string, unknown> {
  const attributes: Record<string, unknown> = { kind: item.kind, id: item.id, title: fitJsonCost(item.title, textCost), air_date: item.airDate };
  if (item.kind === 'episode') Object.assign(attributes, { show: fitJsonCost(item.show, textCost), show_id: item.showId, episode: item.episode, episode_title: item.episodeTitle === null ? null : fitJsonCost(item.episodeTitle, textCost) });
  return attributes;
}

/** One event, as Home Assistant's MQTT event entity takes it: `event_type` and attributes beside it. */
export function eventMessage(topics: MqttTopics, deviceId: string, key: EventKey, event: { event_type: (typeof eventTypes)[number] } & Record<string, unknown>): MqttMessage {
  return { topic: eventTopic(topics, deviceId, key), payload: JSON.stringify(event), retain: false };
}

/** The start of `date` in `timeZone`, as ISO 8601 with the zone's offset then (`2026-11-28T00:00:00+01:00`). */
export function zonedMidnight(date: string, timeZone: string): string {
  // The offset at UTC midnight of the day, then once more at the instant it gives (a DST change near midnight).
  const utc = Date.parse(`${date}T00:00:00Z`);
  let offset = offsetMinutes(timeZone, new Date(utc));
  offset = offsetMinutes(timeZone, new Date(utc - offset * 60_000));
  const sign = offset < 0 ? '-' : '+';
  const magnitude = Math.abs(offset);
  const hours = String(Math.floor(magnitude / 60)).padStart(2, '0');
  const minutes = String(magnitude % 60).padStart(2, '0');
  return `${date}T00:00:00${sign}${hours}:${minutes}`;
}

/** The zone's offset from UTC at `instant`, in minutes (east positive). */
function offsetMinutes(timeZone: string, instant: Date): number {
  const name = new Intl.DateTimeFormat('en-US', { timeZone, timeZoneName: 'longOffset' }).formatToParts(instant).find((part) => part.type === 'timeZoneName')?.value ?? 'GMT';
  const match = /GMT([+-])(\d{2}):?(\d{2})?/.exec(name);
  if (!match) return 0;
  const minutes = Number(match[2]) * 60 + Number(match[3] ?? 0);
  return match[1] === '-' ? -minutes : minutes;
}
