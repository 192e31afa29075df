import { getIntrospectionQuery } from 'graphql';
import type { PrismaClient } from '../src/generated/prisma/client.ts';
import { fieldCosts, listLimits } from '../src/limits.ts';

/** One request the abuse benchmark sends, and the status the limits give it. */
export interface WorstRequest {
  label: string;
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
  expectStatus: number;
  /** Run before each timed send when measured alone (e.g. a write that makes the next answer cold). */
  before?: (client: PrismaClient, accountId: number) => Promise<void>;
}

const aliases = (count: number, field: (index: number) => string) => Array.from({ length: count }, (_, index) => `a${index}: ${field(index)}`).join(' ');

/** A write that makes every cached feed and calendar of the account stale. */
const bumpFeeds = async (client: PrismaClient, accountId: number) => {
  await client.account.update({ where: { id: accountId }, data: { feedVersion: { increment: 1 } } });
};

/** The largest page of `limit` whose selection of `perItem` fields fits `budget`. */
const pageFor = (budget: number, perItem: number, limit: { max: number }) => Math.max(1, Math.min(limit.max, Math.floor(budget / perItem)));

/**
 * The most expensive requests the limits (`maxCost`, `maxAliases`) allow, each built to cost just
 * under `maxCost` in the field on which a cost unit is dearest (status 200), and the shapes they
 * refuse (status 400), for the account whose token is `token`.
 */
export function worstAllowedRequests(token: string, limits: { maxCost: number; maxAliases: number }): WorstRequest[] {
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const graphql = (label: string, query: string, expectStatus = 200): WorstRequest => ({
    label,
    method: 'POST',
    path: '/graphql',
    headers,
    body: JSON.stringify({ query }),
    expectStatus,
  });
  const rest = (label: string, requestPath: string, before?: WorstRequest['before']): WorstRequest => ({
    label,
    method: 'GET',
    path: requestPath,
    headers: { authorization: `Bearer ${token}` },
    expectStatus: 200,
    before,
  });
  const budget = limits.maxCost - 50;
  // As many searches as the aliases allow (one unaliased and maxAliases aliased), each
  // searchCatalog(first: 20) { ... on Show { title episodes(first: e) { 4 fields } } }:
  // search + 20 × (2 + (4 + episodeRow) × e), an episode costing its row besides its fields
  const episodeCost = 4 + fieldCosts.episodeRow;
  const searches = Math.min(limits.maxAliases + 1, Math.floor(budget / (fieldCosts.search + 20 * (2 + episodeCost))));
  const searchEpisodes = pageFor((budget / searches - fieldCosts.search) / 20 - 2, episodeCost, listLimits.episodes);
  // library(first: 100) { edges { node { item { ... on Show { episodes(first: e) { 4 } } } } } }: 100 × (4 + (4 + episodeRow) × e)
  const libraryEpisodes = pageFor(budget / 100 - 4, episodeCost, listLimits.episodes);
  // summary { four lists(first: n) { 11 fields } }: 4 × 11n
  const feedItems = pageFor(budget / 4, 12, listLimits.feedItems);
  const feedFields = 'kind id title airDate poster ... on EpisodeFeedItem { show showId episode season number episodeTitle }';
  // calendar(past: 3650, future: 3650) { events(first: n) { 16 fields } }: a unit a day + 1 + 16n
  const windowDays = 3650 + 3650 + 1;
  const events = pageFor(budget - windowDays * fieldCosts.calendarPerDay - 1, 16, listLimits.calendarEvents);
  // export { shows(first: 20) { title episodes(first: e) { season number watched history(first: 5) { at watched } } } }: 20 × (1 + 1 + e × (3 + 1 + 5 × 2))
  const exportEpisodes = pageFor(budget / 20 - 2, 14, listLimits.exportEpisodes);
  return [
    graphql(
      `GraphQL: ${searches} × searchCatalog(20) × episodes(${searchEpisodes})`,
      `{ ${aliases(searches - 1, (index) => `searchCatalog(query: "Bench Show ${index}", first: 20) { ... on Show { title episodes(first: ${searchEpisodes}) { databaseId code airDate title } } }`)} searchCatalog(query: "Show", first: 20) { ... on Show { title episodes(first: ${searchEpisodes}) { databaseId code airDate title } } } }`,
    ),
    graphql(
      `GraphQL: library(100) × episodes(${libraryEpisodes})`,
      `{ library(first: 100) { edges { node { item { ... on Show { episodes(first: ${libraryEpisodes}) { databaseId code airDate title } } } } } } }`,
    ),
    graphql(
      `GraphQL: summary, four lists of ${feedItems}`,
      `{ summary { upNext(first: ${feedItems}) { ${feedFields} } today(first: ${feedItems}) { ${feedFields} } week(first: ${feedItems}) { ${feedFields} } releasing(first: ${feedItems}) { ${feedFields} } } }`,
    ),
    graphql(
      `GraphQL: calendar, 20 years, ${events} events`,
      `{ calendar(past: 3650, future: 3650) { events(first: ${events}) { uid kind id title summary description date updatedAt poster show showId episode season number episodeTitle } } }`,
    ),
    graphql(
      `GraphQL: export, 20 shows × ${exportEpisodes} episodes`,
      `{ export { shows(first: 20) { title episodes(first: ${exportEpisodes}) { season number watched history(first: 5) { at watched } } } } }`,
    ),
    graphql('GraphQL: introspection (GraphiQL)', getIntrospectionQuery({ descriptions: true, specifiedByUrl: true, directiveIsRepeatable: true, schemaDescription: true, inputValueDeprecation: true })),
    rest('REST: summary right after a change', '/api/machine/summary', bumpFeeds),
    rest('REST: calendar.ics right after a change', '/api/calendar.ics', bumpFeeds),
    graphql('refused: episodes → show nested 7 deep', `{ searchCatalog(query: "e") { ... on Show { ${'episodes { show { '.repeat(7)}title${' } }'.repeat(7)} } } }`, 400),
    graphql('refused: 1 000 aliases of searchCatalog', `{ ${aliases(1_000, () => 'searchCatalog(query: "e") { __typename }')} }`, 400),
  ];
}
