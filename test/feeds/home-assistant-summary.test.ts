import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { homeAssistantSummary } from '../../src/limits.ts';
import { fitJsonCost, jsonTextCost, presentHomeAssistantSummary } from '../../src/feeds/home-assistant-summary.ts';
import type { GraphQLFeedItem, GraphQLSummary } from '../../src/feeds/present-feeds.ts';
import { attributeBytes, buildSensors, characters, maxAttributeBytes, maxStateCharacters, pythonJsonDumps, sensorProblems } from '../support/home-assistant.ts';

/** Texts that cost the most per character in one encoding or the other. */
const hostileTexts = {
  ascii: 'The Lantern Keepers',
  quotes: '"\\"\\"\\"\\"\\"\\"\\"\\"\\"',
  emoji: '🎬'.repeat(400),
  cjk: '進撃の巨人'.repeat(100),
  controls: '\u0001\u007f\n\t'.repeat(100),
  loneSurrogates: '\ud800x\udc00'.repeat(100),
  mixed: `${'Ödön '.repeat(60)}🎬"\\`,
};

const maxId = 2_147_483_647;
const longestCode = `S${maxId}E${maxId}`;

function episode(id: number, title: string, episodeTitle: string | null = title): GraphQLFeedItem {
  return {
    kind: 'EPISODE', id, title, show: title, showId: id, episode: longestCode, season: maxId, number: maxId,
    episodeTitle, airDate: '2026-11-23', poster: `https://images.example/${'p'.repeat(1000)}.jpg`,
  };
}

function summaryOf(items: GraphQLFeedItem[], releasing: GraphQLFeedItem[] = items): GraphQLSummary {
  return {
    generatedAt: '2026-11-23T08:00:00.000Z',
    counts: { upNext: items.length, airingToday: items.length, airingWeek: items.length, unwatchedEpisodes: 99_999 },
    next: items[0] ?? null, upNext: items, today: items, week: items, releasing,
  };
}

describe('fitJsonCost', () => {
  it('keeps a text within the budget and shortens a longer one to the budget, ending in …', () => {
    expect(fitJsonCost('Severance', 255)).toBe('Severance');
    expect(fitJsonCost('x'.repeat(255), 255)).toBe('x'.repeat(255));
    // The ellipsis costs 6 (Python writes \u2026): 249 characters and … are 255.
    expect(fitJsonCost('x'.repeat(256), 255)).toBe(`${'x'.repeat(249)}…`);
    // 12 each (two \uXXXX), so two and … (6) are 30 of 40; a third would make 42.
    expect(fitJsonCost('🎬'.repeat(30), 40)).toBe('🎬🎬…');
    // Trailing spaces before the cut go; a cut never splits a surrogate pair.
    expect(fitJsonCost(`${'ab '.repeat(20)}`, 20)).toBe('ab ab ab ab ab…');
    for (const [name, text] of Object.entries(hostileTexts)) {
      for (const budget of [17, 40, 255]) {
        const fitted = fitJsonCost(text, budget);
        expect(jsonTextCost(fitted), name).toBeLessThanOrEqual(budget);
        expect(Buffer.byteLength(pythonJsonDumps(fitted)) - 2, name).toBeLessThanOrEqual(budget);
        expect(Buffer.byteLength(JSON.stringify(fitted)) - 2, name).toBeLessThanOrEqual(budget);
        expect(characters(fitted), name).toBeLessThanOrEqual(budget);
        // A start of the text, cut between code points.
        const kept = fitted === text ? text : fitted.slice(0, -1);
        expect(text.startsWith(kept), name).toBe(true);
        expect(/[\ud800-\udbff]$/.test(kept) && /^[\udc00-\udfff]/.test(text.slice(kept.length)), name).toBe(false);
      }
    }
  });
});

describe('presentHomeAssistantSummary: the arithmetic holds for the largest items there can be', () => {
  it('upNext, today and week: 25 items of the worst texts fit 16 384 bytes; next.show fits 255 characters', () => {
    for (const [name, text] of Object.entries(hostileTexts)) {
      const items = Array.from({ length: 600 }, (_, index) => episode(maxId - index, text));
      const presented = presentHomeAssistantSummary(summaryOf(items, []));
      const sensors = buildSensors(JSON.parse(JSON.stringify(presented)));
      expect(sensorProblems(sensors), name).toEqual([]);
      expect((presented.upNext as unknown[]).length).toBe(homeAssistantSummary.listItems);
      expect(presented.counts).toEqual(summaryOf(items).counts);
    }
    // The bound is the arithmetic's, not luck: 25 items at their largest come within 1% of it (16 238 bytes).
    const worst = presentHomeAssistantSummary(summaryOf(Array.from({ length: 25 }, (_, index) => episode(maxId - index, 'x'.repeat(300))), []));
    expect(attributeBytes({ up_next: worst.upNext })).toBe(16_238);
  });

  it('keeps only the lean fields, in a fixed order', () => {
    const presented = presentHomeAssistantSummary(summaryOf([episode(7, 'Severance', null)], [
      episode(7, 'Severance'),
      { kind: 'MOVIE', id: 9, title: 'Northbound Static', airDate: '2026-11-24', poster: null },
    ]));
    expect(presented.next).toEqual({ id: 7, show_id: 7, show: 'Severance', episode: longestCode, episode_title: null, air_date: '2026-11-23' });
    expect(presented.releasing).toEqual([
      { kind: 'episode', id: 7, title: `Severance ${longestCode}`, air_date: '2026-11-23' },
      { kind: 'movie', id: 9, title: 'Northbound Static', air_date: '2026-11-24' },
    ]);
  });

  it(`releasing (never cut) fits whatever the titles up to 138 items, and 139 of the worst do not`, () => {
    for (const [name, text] of Object.entries(hostileTexts)) {
      const releasing = Array.from({ length: 138 }, (_, index) => episode(maxId - index, text));
      const presented = presentHomeAssistantSummary(summaryOf([], releasing));
      expect((presented.releasing as unknown[]).length).toBe(138);
      expect(attributeBytes({ releasing: presented.releasing }), name).toBeLessThanOrEqual(maxAttributeBytes);
    }
    // ASCII fills the title's 40 exactly (11 characters, …, the code): 139 × 118 − 2 + 17 bytes.
    const worst = Array.from({ length: 139 }, (_, index) => episode(maxId - index, 'x'.repeat(100)));
    expect(attributeBytes({ releasing: presentHomeAssistantSummary(summaryOf([], worst)).releasing })).toBeGreaterThan(maxAttributeBytes);
  });

  it('states stay short at any title length', () => {
    const presented = presentHomeAssistantSummary(summaryOf([episode(1, 'A'.repeat(500))]));
    const [upNext] = buildSensors(presented);
    expect(characters(upNext!.state)).toBeLessThanOrEqual(maxStateCharacters);
    expect(upNext!.state.endsWith('…')).toBe(true);
  });
});

const python = spawnSync('python3', ['--version']).status === 0;

describe('pythonJsonDumps', () => {
  it.skipIf(!python)('writes what Python 3 json.dumps writes', () => {
    const value = { up_next: [{ id: 1, show: Object.values(hostileTexts).join(''), episode_title: null, ok: true, n: -2.5 }], 'ké': [] };
    const result = spawnSync('python3', ['-c', 'import json,sys; sys.stdout.write(json.dumps(json.loads(sys.stdin.read())))'], {
      input: JSON.stringify(value),
      encoding: 'utf8',
    });
    expect(result.status).toBe(0);
    expect(pythonJsonDumps(value)).toBe(result.stdout);
  });
});
