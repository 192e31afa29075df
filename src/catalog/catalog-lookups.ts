import { db } from '../db/client.ts';
import type { Warner } from '../log.ts';
import { CatalogBudgetSpent, type CatalogBudget } from './catalog-budget.ts';
import { runInBackground } from './catalog-caller.ts';
import { storeCatalogRecords, storeShowEpisodes, type ShowEpisodes } from './catalog-store.ts';
import type { LookupCache } from './lookup-cache.ts';
import {
  hasMatchableId,
  idColumn,
  idSourcesByKind,
  type CatalogEpisode,
  type CatalogProvider,
  type CatalogRecord,
  type CatalogShow,
  type ExternalIds,
  type IdQuery,
} from './provider.ts';

/**
 * CatalogService.resolveIds: ids the files of an import or a media server's delivery name things
 * by, asked of the catalogs that can resolve ids, each answer stored. What it costs the catalog
 * keys every account shares is bounded three ways:
 * - what a network catalog answered is kept a while (lookup-cache.ts), misses too, so the same
 *   id asked again costs nothing; identical lookups under way at once share one request;
 * - an episode is first located (CatalogProvider.locateEpisode: one request), and its show is
 *   fetched (a request per season on TMDB) only when the store lacks it: a stored show only gains
 *   the located episode;
 * - every request is charged to the caller's budget (catalog-budget.ts), and sent after every
 *   person's search waiting for the same catalog (catalog-caller.ts): a lookup the budget has no
 *   room for is not sent, and counted `unasked`, never as unknown.
 */

/** What resolveIds did: ids asked about, answered by a catalog, and providers' failures. */
export interface ResolveIdsSummary {
  asked: number;
  found: number;
  /** Rows created or updated by storing the answers. */
  changes: number;
  failures: number;
  /** Ids a network catalog that could answer was not asked about: the caller's budget was spent. */
  unasked: number;
}

export interface ResolveIdsOptions {
  /** Charged for each request sent (catalog-budget.ts); none: unbounded (the jobs' own lookups). */
  budget?: CatalogBudget;
}

/** The cache key saying that the stored show `showId` was fetched whole from a network catalog lately. */
export const wholeShowKey = (showId: number) => `show:${showId}`;

type Answer =
  | { outcome: 'found'; records: CatalogRecord[]; episodes: ShowEpisodes[] }
  | { outcome: 'missing' }
  | { outcome: 'failed' }
  | { outcome: 'spent' };

const missing: Answer = { outcome: 'missing' };
const foundStored: Answer = { outcome: 'found', records: [], episodes: [] };

/** The stored show having any of `ids`, by the catalog's match rule's ids (tmdb, tvdb, imdb). */
async function storedShowId(ids: ExternalIds): Promise<number | undefined> {
  const conditions = idSourcesByKind.show.flatMap((source) => (ids[source] === undefined ? [] : [{ [idColumn[source]]: ids[source] }]));
  if (conditions.length === 0) return undefined;
  const row = await db().show.findFirst({ where: { OR: conditions }, select: { id: true } });
  return row?.id;
}

/** `record` with `episode` among its episodes (its ids added to the same season and number), or with it alone. */
function withEpisode(record: CatalogShow, episode: CatalogEpisode, allEpisodes: boolean): CatalogShow {
  const same = record.episodes.find((candidate) => candidate.season === episode.season && candidate.number === episode.number);
  const merged: CatalogEpisode = same ? { ...same, ids: { ...same.ids, ...episode.ids } } : episode;
  const others = allEpisodes ? record.episodes.filter((candidate) => candidate !== same) : [];
  return { ...record, ids: { ...record.ids }, episodes: [...others, merged] };
}

export async function resolveIdQueries(
  deps: { providers: CatalogProvider[]; logger: Warner; cache: LookupCache },
  queries: IdQuery[],
  concurrency: number,
  options: ResolveIdsOptions = {},
): Promise<ResolveIdsSummary> {
  const { logger, cache } = deps;
  const budget = options.budget;
  const answering = deps.providers.filter((provider) => provider.resolveId || provider.locateEpisode);
  const records: CatalogRecord[] = [];
  /** Shows a network catalog answered whole (with every season): remembered by their rows once stored. */
  const wholeShows = new Set<CatalogRecord>();
  const episodes: ShowEpisodes[] = [];
  /** Cache keys answered `found`, remembered once their answers are stored. */
  const foundKeys: string[] = [];
  // Every id an answer carried: a show answered for one episode reference usually answers the
  // show's other references too (the offline file and TheTVDB give every episode's id).
  const covered = new Set<string>();
  const cover = (record: CatalogRecord) => {
    for (const [source, id] of Object.entries(record.ids)) covered.add(`${record.kind}:${source}:${id}`);
    if (record.kind !== 'show') return;
    for (const episode of record.episodes) for (const [source, id] of Object.entries(episode.ids ?? {})) covered.add(`episode:${source}:${id}`);
  };
  /** Shows fetched for located episodes in this call: the first reference stores the show whole, the others their episode. */
  const showsHere = new Map<string, Promise<CatalogShow | null>>();

  /** Fetches the show a located episode belongs to (shared with a concurrent identical fetch). */
  async function showOf(provider: CatalogProvider, ids: ExternalIds): Promise<{ record: CatalogShow | null; first: boolean }> {
    const source = (['tmdb', 'tvdb'] as const).find((candidate) => ids[candidate] !== undefined);
    if (source === undefined) return { record: null, first: false };
    const key = `${provider.name}:show:${source}:${ids[source]}`;
    let fetch = showsHere.get(key);
    const first = fetch === undefined;
    if (!fetch) {
      const lookup = async () => {
        const record = await provider.lookup('show', source, ids[source]!);
        return record?.kind === 'show' ? record : null;
      };
      fetch = cache
        .shared(key, () => lookup().then((record) => ({ record }), (error: unknown) => ({ error })))
        .then(({ value, shared }) => {
          if (!('error' in value)) return value.record;
          // Another caller's fetch that its budget stopped: this caller fetches with its own.
          if (shared && value.error instanceof CatalogBudgetSpent) return lookup();
          throw value.error;
        });
      showsHere.set(key, fetch);
    }
    return { record: await fetch, first };
  }

  /** One provider's answer to one query, asked now. */
  async function ask(provider: CatalogProvider, query: IdQuery): Promise<Answer> {
    try {
      if (query.kind === 'episode' && provider.locateEpisode) {
        const location = await provider.locateEpisode(query);
        if (!location) return missing;
        const stored = await storedShowId(location.show);
        if (stored !== undefined) return { outcome: 'found', records: [], episodes: [{ showId: stored, episodes: [location.episode] }] };
        const { record, first } = await showOf(provider, location.show);
        return record && hasMatchableId(record) ? { outcome: 'found', records: [withEpisode(record, location.episode, first)], episodes: [] } : missing;
      }
      const record = provider.resolveId ? await provider.resolveId(query) : null;
      return record ? { outcome: 'found', records: [record], episodes: [] } : missing;
    } catch (error) {
      if (error instanceof CatalogBudgetSpent) return { outcome: 'spent' };
      logger.warn(`catalog provider ${provider.name}: resolve ${query.kind} ${query.source} ${query.id} failed: ${(error as Error).message}`);
      return { outcome: 'failed' };
    }
  }

  /** One provider's answer: from the cache for a network catalog, else asked (within the budget). */
  async function answerOf(provider: CatalogProvider, query: IdQuery): Promise<Answer> {
    if (provider.local) return ask(provider, query);
    const key = `${provider.name}:${query.kind}:${query.source}:${query.id}`;
    const known = cache.get(key);
    if (known === 'found') return foundStored;
    if (known !== undefined) return missing;
    if (budget && !budget.hasRoom()) return { outcome: 'spent' };
    let { value, shared } = await cache.shared(key, () => ask(provider, query));
    // Another caller's lookup that failed or hit that caller's budget is no answer for this one.
    if (shared && (value.outcome === 'spent' || value.outcome === 'failed')) value = await ask(provider, query);
    if (value.outcome === 'missing') cache.remember(key, 'missing');
    if (value.outcome === 'found') foundKeys.push(key);
    return value;
  }

  let [found, failures, unasked, next] = [0, 0, 0, 0];
  const worker = async () => {
    while (next < queries.length) {
      const query = queries[next++]!;
      if (covered.has(`${query.kind}:${query.source}:${query.id}`)) {
        found += 1;
        continue;
      }
      let spent = false;
      for (const provider of answering) {
        const answer = await answerOf(provider, query);
        if (answer.outcome === 'failed') failures += 1;
        if (answer.outcome === 'spent') spent = true;
        if (answer.outcome !== 'found') continue;
        for (const record of answer.records) records.push(record);
        if (!provider.local) for (const record of answer.records) if (record.kind === 'show') wholeShows.add(record);
        for (const episode of answer.episodes) episodes.push(episode);
        answer.records.forEach(cover);
        found += 1;
        spent = false;
        break;
      }
      if (spent) unasked += 1;
    }
  };
  if (answering.length > 0) await runInBackground(budget, queries.length, concurrency, worker);
  let changes = 0;
  try {
    const kept = byPriority([records]);
    const stored = await storeCatalogRecords(kept);
    changes = stored.changes + (await storeShowEpisodes(episodes));
    for (const key of foundKeys) cache.remember(key, 'found');
    // A show fetched whole has no season to ask for again (season-fetches.ts) while this is remembered.
    for (const [position, record] of kept.entries()) if (wholeShows.has(record)) cache.remember(wholeShowKey(stored.items[position]!.databaseId), 'found');
  } catch (error) {
    logger.warn(`catalog: storing ${records.length + episodes.length} resolved record(s) failed: ${(error as Error).message}`);
  }
  return { asked: queries.length, found, changes, failures, unasked };
}

/**
 * Joins the providers' answers, earlier providers first. A record sharing an id with an earlier
 * provider's record is dropped: storing both would flip the stored fields between the two on
 * every refresh. Records without a usable id are dropped too (a provider bug must not block the
 * rest of the refresh).
 */
export function byPriority(answers: CatalogRecord[][]): CatalogRecord[] {
  const kept: CatalogRecord[] = [];
  const claimed = new Set<string>();
  answers.forEach((records) => {
    const claimedHere: string[] = [];
    for (const record of records) {
      if (!hasMatchableId(record)) continue;
      const keys = idSourcesByKind[record.kind].flatMap((source) => {
        const id = record.ids[source];
        return id === undefined ? [] : [`${record.kind}:${source}:${id}`];
      });
      if (keys.some((key) => claimed.has(key))) continue;
      kept.push(record);
      for (const key of keys) claimedHere.push(key);
    }
    // Within one provider every record counts (it may list an item twice; the store merges them).
    for (const key of claimedHere) claimed.add(key);
  });
  return kept;
}
