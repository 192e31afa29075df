import { describe, expect, it } from 'vitest';
import type { EpisodeFeedItem, Feeds } from '../../src/feeds/types.ts';
import { discoveryConfigs, removalMessages, sensorStates, zonedMidnight } from '../../src/home-assistant/mqtt-entities.ts';
import { maxAttributeBytes, maxStateCharacters, characters } from '../support/home-assistant.ts';

const topics = { discoveryPrefix: 'homeassistant', topicPrefix: 'airdate' };
const device = '0123456789abcdef';

/** The worst titles there are: 1 000 characters of what costs most in JSON (astral, quotes, backslashes). */
const worst = (index: number) => `${'𝕏"\\é'.repeat(250)} ${index}`;

function episode(index: number, airDate: string): EpisodeFeedItem {
  return { kind: 'episode', id: 2_000_000_000 + index, title: worst(index), airDate, poster: `https://img.example/${'p'.repeat(1000)}`, show: worst(index), showId: 2_000_000_000 + index, episode: 'S100E1000', season: 100, number: 1000, episodeTitle: worst(index) };
}

/** The feeds of 500 shows, every list full, every text at its worst. */
function bigFeeds(): Feeds {
  const shows = Array.from({ length: 500 }, (_, index) => episode(index, '2026-11-28'));
  return { counts: { upNext: 500, airingToday: 500, airingWeek: 500, unwatchedEpisodes: 25_000 }, next: shows[0]!, upNext: shows, today: shows, week: shows, releasing: shows };
}

describe('the MQTT entities (pure)', () => {
  it('keeps every state within 255 characters and every attributes document well under 16 KB at 500 shows with the worst titles', () => {
    const messages = sensorStates(topics, device, {
      feeds: bigFeeds(),
      date: '2026-11-28',
      timezone: 'Europe/Berlin',
      lastWatched: { kind: 'episode', id: 1, title: worst(0), episode: 'S01E01', episodeTitle: worst(1), at: new Date('2026-11-28T10:00:00Z') },
    });
    const states = messages.filter((message) => message.topic.endsWith('/state'));
    const attributes = messages.filter((message) => message.topic.endsWith('/attributes'));
    expect(states).toHaveLength(6);
    expect(attributes).toHaveLength(5);
    for (const message of states) expect(characters(message.payload), message.topic).toBeLessThanOrEqual(maxStateCharacters);
    // Measured as Home Assistant's recorder would write it: Python's json.dumps (ASCII) is the larger.
    const asciiJson = (payload: string) => JSON.stringify(JSON.parse(payload)).replace(/[\u007f-\uffff]/g, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`);
    for (const message of attributes) expect(Buffer.byteLength(asciiJson(message.payload)), message.topic).toBeLessThan(maxAttributeBytes / 2);
    expect(messages.every((message) => message.retain)).toBe(true);
    const byTopic = new Map(messages.map((message) => [message.topic, message.payload]));
    expect(byTopic.get(`airdate/${device}/next_release/state`)).toBe('2026-11-28T00:00:00+01:00');
    expect(byTopic.get(`airdate/${device}/up_next/state`)).toBe('500');
    expect(JSON.parse(byTopic.get(`airdate/${device}/up_next/attributes`)!).up_next).toHaveLength(10);
  });

  it('the start of a day in the account’s zone, across DST changes', () => {
    expect(zonedMidnight('2026-07-01', 'Europe/Berlin')).toBe('2026-07-01T00:00:00+02:00');
    expect(zonedMidnight('2026-03-29', 'Europe/Berlin')).toBe('2026-03-29T00:00:00+01:00');
    expect(zonedMidnight('2026-11-01', 'America/New_York')).toBe('2026-11-01T00:00:00-04:00');
    expect(zonedMidnight('2026-11-28', 'Asia/Kolkata')).toBe('2026-11-28T00:00:00+05:30');
    expect(zonedMidnight('2026-11-28', 'UTC')).toBe('2026-11-28T00:00:00+00:00');
  });

  it('discovery configs: one per entity, unique ids, no object_id; removal empties each of them', () => {
    const configs = discoveryConfigs(topics, device, '1.2.3');
    expect(configs).toHaveLength(10);
    const parsed = configs.map((message) => JSON.parse(message.payload));
    expect(new Set(parsed.map((config) => config.unique_id)).size).toBe(10);
    for (const config of parsed) {
      expect(config).not.toHaveProperty('object_id');
      expect(config.default_entity_id).toMatch(/^(sensor|event|button)\.airdate_0123456789abcdef_[a-z_]+$/);
    }
    const removal = removalMessages(topics, device);
    expect(configs.every((config) => removal.some((message) => message.topic === config.topic && message.payload === '' && message.retain))).toBe(true);
  });
});
