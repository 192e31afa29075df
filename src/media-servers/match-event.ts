import type { CatalogBudget } from '../catalog/catalog-budget.ts';
import type { CatalogService } from '../catalog/catalog-service.ts';
import type { IdQuery } from '../catalog/provider.ts';
import { episodesVisibleTo, visibleTo } from '../db/catalog-visibility.ts';
import { db } from '../db/client.ts';
import type { MediaEvent, MediaIds } from './sources/media-event.ts';

/**
 * Which of our episodes, movies or games a media server's event is about, in this order (the
 * first that finds anything decides):
 * 1. episodes: the show's ids (TheTVDB, TMDB, IMDb) with season and episode number;
 * 2. the item's own ids through the stored catalog (an episode's own TheTVDB, TMDB and IMDb ids
 *    are kept on every episode row the offline file or a catalog stored: unique, so indexed);
 * 3. when a catalog is at hand, the catalogs' lookup of those ids (the offline file by every id it
 *    holds, TMDB's /find, TheTVDB's episode lookup): their answer is stored, then 1 and 2 again.
 *    A show the store holds is never fetched again: its show ids are not looked up, an episode of
 *    it located by its own id is added to it, and a season (or episode) it lacks is asked for
 *    alone, in the background (CatalogService.requestSeason), the delivery kept for its retry.
 *    Lookups are charged to the connection's budget (`budget`); past it the delivery is unmatched
 *    for now, and says so;
 * 4. episodes: the show's title with season and number, only when exactly one show the account
 *    follows has that title (case-folded); films: the title (and year, when sent) of exactly one
 *    film the account follows.
 * A multi-episode file (episode to episodeEnd) matches every episode of the range that exists.
 * Nothing is ever created from a delivery: no show, film or episode is invented.
 */

export interface MatchedItem {
  kind: 'episode' | 'movie' | 'game';
  /** Database id of the episode, movie or game. */
  id: number;
  /** The show's title for an episode, else the item's. */
  title: string;
  season?: number;
  episode?: number;
}

/** Which rule matched (said in the delivery log). */
export type MatchRule = 'show ids' | 'item ids' | 'catalog lookup' | 'title';

export type MatchResult = { items: MatchedItem[]; rule: MatchRule } | { items: []; reason: string };

export interface MatchProps {
  accountId: number;
  /** Asked (step 3) when given. */
  catalog?: CatalogService;
  /** The connection's budget of catalog requests (CatalogService.budget); none: unbounded. */
  budget?: CatalogBudget;
}

/** Why a catalog could not be asked now (said after the unmatched reason), or undefined. */
type Later = string | undefined;

const hasAny = (ids: MediaIds | undefined): ids is MediaIds => ids !== undefined && Object.keys(ids).length > 0;

export async function matchEvent(event: MediaEvent, props: MatchProps): Promise<MatchResult> {
  if (event.kind === 'episode') return matchEpisodes(event, props);
  if (event.kind === 'movie' || event.kind === 'game') return matchTitle(event, event.kind, props);
  return { items: [], reason: 'not an episode, film or game' };
}

/** The episode numbers a file holds: episode, or episode through episodeEnd (at most 50). */
function numbers(event: MediaEvent): number[] | undefined {
  if (event.episode === undefined) return undefined;
  const end = Math.min(event.episodeEnd ?? event.episode, event.episode + 49);
  return Array.from({ length: end - event.episode + 1 }, (_, index) => event.episode! + index);
}

async function matchEpisodes(event: MediaEvent, props: MatchProps): Promise<MatchResult> {
  const found = await storedEpisodes(event, props.accountId);
  if ('items' in found) return found;
  let later: Later;
  if (props.catalog) {
    const queries: IdQuery[] = [];
    const own = episodeQuery(event.ids);
    if (own) queries.push(own);
    const show = event.show?.ids;
    // A stored show's ids are not looked up: that would fetch the whole show again, a request per season.
    if (found.storedShow === undefined && hasAny(show) && event.season !== undefined && event.episode !== undefined) {
      const source = (['tvdb', 'tmdb', 'imdb'] as const).find((candidate) => show[candidate] !== undefined)!;
      queries.push({ kind: 'show', source, id: show[source]! });
    }
    if (queries.length > 0) {
      const answer = await props.catalog.resolveIds(queries, 2, { budget: props.budget });
      if (answer.found > 0) {
        const again = await storedEpisodes(event, props.accountId);
        if ('items' in again) return { items: again.items, rule: 'catalog lookup' };
      }
      if (answer.unasked > 0) later = spentBudget(props.catalog);
    }
    if (found.storedShow !== undefined && event.season !== undefined && later === undefined) {
      const asked = await props.catalog.requestSeason({ showId: found.storedShow.id, season: event.season, budget: props.budget });
      if (asked === 'stored') {
        const again = await storedEpisodes(event, props.accountId);
        if ('items' in again) return { items: again.items, rule: 'catalog lookup' };
      }
      if (asked === 'queued') later = `season ${event.season} of "${found.storedShow.title}" is not stored yet: the catalog is asked for it in the background, and the delivery is kept and retried on the next sync or catalog refresh`;
      if (asked === 'asked lately') later = `the catalog was asked lately for season ${event.season} of "${found.storedShow.title}" and has no such episode yet; the delivery is kept and retried on the next sync or catalog refresh`;
      if (asked === 'spent') later = spentBudget(props.catalog);
    }
  }
  const byTitle = await episodesByFollowedTitle(event, props.accountId);
  if (byTitle) return byTitle;
  return { items: [], reason: unmatchedEpisodeReason(event) + (later === undefined ? '' : `; unmatched for now: ${later}`) };
}

/** What a delivery whose lookup the connection's budget stopped is told. */
const spentBudget = (catalog: CatalogService) =>
  `this connection's catalog requests (${catalog.requestsPerHour} an hour, shared by its deliveries) are spent, so the catalog was not asked; the delivery is kept and retried on the next sync or catalog refresh`;

function unmatchedEpisodeReason(event: MediaEvent): string {
  const seen: string[] = [];
  if (hasAny(event.show?.ids)) seen.push(`show ids ${idText(event.show.ids)}`);
  if (hasAny(event.ids)) seen.push(`episode ids ${idText(event.ids)}`);
  if (event.show?.title) seen.push(`title "${event.show.title}"`);
  const code = event.season !== undefined && event.episode !== undefined ? ` S${event.season}E${event.episode}` : ' (no season and episode number)';
  if (seen.length === 0) return `no ids and no show title${code}: nothing to match by`;
  return `no stored episode matches ${seen.join(', ')}${code}${event.show?.title ? ', and no single followed show has that title' : ''}`;
}

const idText = (ids: MediaIds): string =>
  Object.entries(ids)
    .map(([source, id]) => `${source}:${id}`)
    .join(' ');

function episodeQuery(ids: MediaIds): IdQuery | undefined {
  const source = (['tvdb', 'tmdb', 'imdb'] as const).find((candidate) => ids[candidate] !== undefined);
  return source ? { kind: 'episode', source, id: ids[source]! } : undefined;
}

/**
 * Steps 1 and 2 against stored rows: the matched episodes, or the stored show the show ids name
 * when it lacks them (step 3 then asks for its season, never for the whole show).
 */
async function storedEpisodes(event: MediaEvent, accountId: number): Promise<{ items: MatchedItem[]; rule: MatchRule } | { storedShow?: { id: number; title: string } }> {
  const wanted = numbers(event);
  const showIds = event.show?.ids;
  let storedShow: { id: number; title: string } | undefined;
  if (hasAny(showIds) && event.season !== undefined && wanted) {
    const show = await db().show.findFirst({ where: { AND: [{ OR: idConditions(showIds) }, visibleTo(accountId)] }, select: { id: true, title: true } });
    if (show) {
      const items = await episodesOf(show.id, event.season, wanted);
      if (items.length > 0) return { items, rule: 'show ids' };
      storedShow = show;
    }
  }
  const own = idConditions(event.ids);
  if (own.length > 0) {
    // Each id in matching order: TheTVDB's, then TMDB's, then IMDb's (a server's wrong id of one
    // catalog must not hide the right one of another: the first that finds a row decides).
    for (const condition of own) {
      const episode = await db().episode.findFirst({ where: { ...condition, ...episodesVisibleTo(accountId) }, select: { id: true, showId: true, season: true, number: true } });
      if (!episode) continue;
      const count = wanted ? wanted.length : 1;
      const range = Array.from({ length: count }, (_, index) => episode.number + index);
      const items = await episodesOf(episode.showId, episode.season, range);
      return { items, rule: 'item ids' };
    }
  }
  return { storedShow };
}

function idConditions(ids: MediaIds): { tvdbId?: number; tmdbId?: number; imdbId?: string }[] {
  return [
    ...(ids.tvdb !== undefined ? [{ tvdbId: ids.tvdb }] : []),
    ...(ids.tmdb !== undefined ? [{ tmdbId: ids.tmdb }] : []),
    ...(ids.imdb !== undefined ? [{ imdbId: ids.imdb }] : []),
  ];
}

async function episodesOf(showId: number, season: number, wanted: number[]): Promise<MatchedItem[]> {
  const rows = await db().episode.findMany({
    where: { showId, season, number: { in: wanted } },
    select: { id: true, season: true, number: true, show: { select: { title: true } } },
    orderBy: { number: 'asc' },
  });
  return rows.map((row) => ({ kind: 'episode' as const, id: row.id, title: row.show.title, season: row.season, episode: row.number }));
}

/** Case-folded, spaces collapsed: the only leniency a title gets. */
const fold = (title: string) => title.trim().replace(/\s+/g, ' ').toLocaleLowerCase();

async function episodesByFollowedTitle(event: MediaEvent, accountId: number): Promise<{ items: MatchedItem[]; rule: MatchRule } | undefined> {
  const title = event.show?.title;
  const wanted = numbers(event);
  if (!title || event.season === undefined || !wanted) return undefined;
  const followed = await db().libraryItem.findMany({ where: { accountId, kind: 'show', followed: true }, select: { show: { select: { id: true, title: true } } } });
  const same = followed.flatMap((row) => (row.show && fold(row.show.title) === fold(title) ? [row.show.id] : []));
  if (same.length !== 1) return undefined;
  const items = await episodesOf(same[0]!, event.season, wanted);
  return items.length > 0 ? { items, rule: 'title' } : undefined;
}

async function storedTitle(kind: 'movie' | 'game', ids: MediaIds, accountId: number): Promise<MatchedItem | undefined> {
  if (kind === 'game') {
    if (ids.igdb === undefined) return undefined;
    const game = await db().game.findFirst({ where: { igdbId: ids.igdb, ...visibleTo(accountId) }, select: { id: true, title: true } });
    return game ? { kind, id: game.id, title: game.title } : undefined;
  }
  for (const condition of idConditions(ids)) {
    const movie = await db().movie.findFirst({ where: { ...condition, ...visibleTo(accountId) }, select: { id: true, title: true } });
    if (movie) return { kind, id: movie.id, title: movie.title };
  }
  return undefined;
}

async function matchTitle(event: MediaEvent, kind: 'movie' | 'game', props: MatchProps): Promise<MatchResult> {
  const stored = await storedTitle(kind, event.ids, props.accountId);
  if (stored) return { items: [stored], rule: 'item ids' };
  let later: Later;
  if (props.catalog && hasAny(event.ids)) {
    const sources = kind === 'game' ? (['igdb'] as const) : (['tmdb', 'tvdb', 'imdb'] as const);
    const queries = sources.flatMap((source): IdQuery[] => (event.ids[source] !== undefined ? [{ kind, source, id: event.ids[source]! }] : []));
    const answer = queries.length > 0 ? await props.catalog.resolveIds(queries, 2, { budget: props.budget }) : undefined;
    if (answer && answer.found > 0) {
      const found = await storedTitle(kind, event.ids, props.accountId);
      if (found) return { items: [found], rule: 'catalog lookup' };
    }
    if (answer && answer.unasked > 0) later = spentBudget(props.catalog);
  }
  if (kind === 'movie' && event.title) {
    const followed = await db().libraryItem.findMany({ where: { accountId: props.accountId, kind: 'movie', followed: true }, select: { movie: { select: { id: true, title: true, releaseDate: true } } } });
    const same = followed.flatMap((row) =>
      row.movie && fold(row.movie.title) === fold(event.title!) && (event.year === undefined || row.movie.releaseDate?.startsWith(String(event.year))) ? [row.movie] : [],
    );
    if (same.length === 1) return { items: [{ kind, id: same[0]!.id, title: same[0]!.title }], rule: 'title' };
  }
  const seen = hasAny(event.ids) ? `ids ${idText(event.ids)}` : 'no ids';
  const reason = `no stored ${kind === 'movie' ? 'film' : 'game'} matches ${seen}${event.title ? ` or the title "${event.title}" among followed ones` : ''}`;
  return { items: [], reason: reason + (later === undefined ? '' : `; unmatched for now: ${later}`) };
}
