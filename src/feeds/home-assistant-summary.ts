import type { z } from 'zod';
import type { homeAssistantSummarySchema, leanEpisodeSchema, leanReleaseSchema } from './feeds-rest-schemas.ts';
import { homeAssistantSummary } from '../limits.ts';
import { ellipsis } from '../value-bounds.ts';
import type { GraphQLFeedItem, GraphQLSummary } from './present-feeds.ts';

/**
 * The summary under the `home-assistant` profile. The integration polls the bare summary and puts
 * each list whole into a sensor's attributes (`up_next`, `today`, `week`, `releasing`) and
 * `next.show` into the up-next sensor's state; Home Assistant's recorder drops attributes over
 * 16 384 bytes of JSON and a state over 255 characters makes the sensor `unknown`. So:
 *
 * - `upNext`, `today` and `week` hold at most homeAssistantSummary.listItems items (`counts` keep
 *   the whole totals: they are the states of the counting sensors);
 * - their items keep what the integration and dashboards read: `id` (what mark-watched takes),
 *   `show_id` (what follow/archive takes), `show`, `episode`, `episode_title`, `air_date`. Dropped:
 *   `kind` (always `episode` in these lists), `title` (the show's title again), `season` and
 *   `number` (spelled in `episode`) and `poster` (a URL of up to 1 024 characters);
 * - `releasing` is never cut (its length is the releasing sensor's state), so its items are
 *   leaner still: `kind` (ids are per kind), `id`, `title` (an episode's: show and code,
 *   `Show S01E02`) and `air_date` (today or tomorrow);
 * - every text is shortened to its JSON cost (jsonTextCost), ending in "…".
 */
export function presentHomeAssistantSummary(summary: GraphQLSummary): z.input<typeof homeAssistantSummarySchema> {
  const cap = (items: GraphQLFeedItem[]) => items.slice(0, homeAssistantSummary.listItems).map(leanEpisode);
  return {
    generatedAt: summary.generatedAt,
    counts: summary.counts as z.input<typeof homeAssistantSummarySchema>['counts'],
    next: summary.next === null ? null : leanEpisode(summary.next),
    upNext: cap(summary.upNext),
    today: cap(summary.today),
    week: cap(summary.week),
    releasing: summary.releasing.map(leanRelease),
  };
}

function leanEpisode(item: GraphQLFeedItem): z.input<typeof leanEpisodeSchema> {
  const { textCost } = homeAssistantSummary;
  return {
    id: item.id,
    show_id: item.showId!,
    show: fitJsonCost(item.show ?? item.title, textCost),
    episode: item.episode!,
    episode_title: item.episodeTitle == null ? null : fitJsonCost(item.episodeTitle, textCost),
    air_date: item.airDate,
  };
}

function leanRelease(item: GraphQLFeedItem): z.input<typeof leanReleaseSchema> {
  const kind = item.kind.toLowerCase();
  const budget = homeAssistantSummary.releasingTitleCost;
  let title: string;
  if (kind === 'episode' && item.episode !== undefined) {
    const code = ` ${item.episode}`;
    title = fitJsonCost(item.title, Math.max(0, budget - jsonTextCost(code))) + code;
  } else {
    title = fitJsonCost(item.title, budget);
  }
  return { kind: kind as z.input<typeof leanReleaseSchema>['kind'], id: item.id, title, air_date: item.airDate };
}

/**
 * The most bytes one code point takes inside a JSON string, written either way Home Assistant's
 * side may write it: UTF-8 (orjson, which the recorder uses; 1–4 bytes) or Python's json.dumps
 * default (ASCII only: `\"` and `\\` take 2, anything outside space…`~` a 6-byte `\uXXXX`, a
 * character beyond U+FFFF two of them).
 */
function codePointCost(point: number): number {
  if (point === 0x22 || point === 0x5c) return 2;
  if (point >= 0x20 && point <= 0x7e) return 1;
  return point > 0xffff ? 12 : 6;
}

const ellipsisCost = codePointCost(ellipsis.codePointAt(0)!);

/** The JSON cost of `text`: its bytes inside a JSON string at the most (codePointCost). */
export function jsonTextCost(text: string): number {
  let cost = 0;
  for (const character of text) cost += codePointCost(character.codePointAt(0)!);
  return cost;
}

/**
 * `text` when its JSON cost is at most `budget`, else its longest start whose cost with "…" is
 * within it (trailing spaces dropped), and "…". Every code point costs at least 1, so the result
 * also has at most `budget` characters: with the 255 budget it is a valid Home Assistant state.
 * Walks no further than the budget into a long text.
 */
export function fitJsonCost(text: string, budget: number): string {
  let cost = 0;
  let offset = 0;
  let cutAt = -1;
  for (const character of text) {
    const next = cost + codePointCost(character.codePointAt(0)!);
    if (cutAt < 0 && next > budget - ellipsisCost) cutAt = offset;
    if (next > budget) return `${text.slice(0, cutAt).trimEnd()}${ellipsis}`;
    cost = next;
    offset += character.length;
  }
  return text;
}
