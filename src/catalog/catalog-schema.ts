import type { StoredCatalogItem } from './catalog-store.ts';
import { episodeCode } from '../time/dates.ts';
import { fieldCosts, listLimits } from '../limits.ts';
import { builder } from '../graphql/builder.ts';
import { listPage, pageDescriptions, pagedComplexity, pageOf } from '../graphql/pages.ts';

const episodePage = pageDescriptions(listLimits.episodes, 'episodes');
const searchPage = pageDescriptions(listLimits.search, 'results');

export const ShowRef = builder.prismaObject('Show', {
  description: 'A TV show from the catalog.',
  fields: (t) => ({
    databaseId: t.exposeInt('id', { description: 'The id the REST write endpoints take.' }),
    title: t.exposeString('title'),
    poster: t.exposeString('poster', { nullable: true }),
    overview: t.exposeString('overview', { nullable: true }),
    tmdbId: t.exposeInt('tmdbId', { nullable: true }),
    tvdbId: t.exposeInt('tvdbId', { nullable: true }),
    episodes: t.relation('episodes', {
      description: `Episodes by season and number, a page at a time (episodeCount tells how many there are).`,
      args: {
        season: t.arg.int({ required: false, description: 'Only this season (0: specials).' }),
        first: t.arg.int({ required: false, description: episodePage.first }),
        offset: t.arg.int({ required: false, description: episodePage.offset }),
      },
      complexity: pagedComplexity(listLimits.episodes, fieldCosts.episodeRow),
      query: (args) => {
        const page = listPage(args, listLimits.episodes);
        return {
          where: args.season == null ? {} : { season: args.season },
          orderBy: [{ season: 'asc' as const }, { number: 'asc' as const }],
          take: page.first,
          skip: page.offset,
        };
      },
    }),
    episodeCount: t.relationCount('episodes', { description: 'How many episodes the catalog holds for the show, specials included.' }),
  }),
});

builder.prismaObject('Episode', {
  fields: (t) => ({
    databaseId: t.exposeInt('id', { description: 'The id the REST watched endpoint takes.' }),
    season: t.exposeInt('season', { description: '0 for specials.' }),
    number: t.exposeInt('number'),
    code: t.string({ description: 'S01E02', resolve: (episode) => episodeCode(episode.season, episode.number) }),
    title: t.exposeString('title', { nullable: true }),
    airDate: t.expose('airDate', { type: 'LocalDate', nullable: true }),
    show: t.relation('show'),
  }),
});

export const MovieRef = builder.prismaObject('Movie', {
  fields: (t) => ({
    databaseId: t.exposeInt('id', { description: 'The id the REST write endpoints take.' }),
    title: t.exposeString('title'),
    poster: t.exposeString('poster', { nullable: true }),
    overview: t.exposeString('overview', { nullable: true }),
    releaseDate: t.expose('releaseDate', { type: 'LocalDate', nullable: true }),
    tmdbId: t.exposeInt('tmdbId', { nullable: true }),
  }),
});

export const GameRef = builder.prismaObject('Game', {
  fields: (t) => ({
    databaseId: t.exposeInt('id', { description: 'The id the REST write endpoints take.' }),
    title: t.exposeString('title'),
    poster: t.exposeString('poster', { nullable: true }),
    overview: t.exposeString('overview', { nullable: true }),
    releaseDate: t.expose('releaseDate', { type: 'LocalDate', nullable: true }),
    igdbId: t.exposeInt('igdbId', { nullable: true }),
  }),
});

/** Rows tagged with their kind by the catalog service, or plain rows from a relation. */
type CatalogItemShape = StoredCatalogItem | { tvdbId: number | null } | { igdbId: number | null } | { releaseDate: string | null };

export const CatalogItem = builder.unionType('CatalogItem', {
  description: 'A show, movie or game from the catalog.',
  types: [ShowRef, MovieRef, GameRef],
  resolveType: (item: CatalogItemShape) => {
    if ('kind' in item) return item.kind === 'show' ? ShowRef : item.kind === 'movie' ? MovieRef : GameRef;
    // A movie row has a tvdbId too: games are told by igdbId, movies by a release date, shows by neither.
    if ('igdbId' in item) return GameRef;
    return 'releaseDate' in item ? MovieRef : ShowRef;
  },
});

export const MediaKind = builder.enumType('MediaKind', {
  values: { SHOW: { value: 'show' }, MOVIE: { value: 'movie' }, GAME: { value: 'game' } } as const,
});

export const CatalogSource = builder.enumType('CatalogSource', {
  values: { TMDB: { value: 'tmdb' }, TVDB: { value: 'tvdb' }, IGDB: { value: 'igdb' } } as const,
});

builder.queryField('catalogLookup', (t) =>
  t.field({
    type: CatalogItem,
    nullable: true,
    description: 'Finds a catalog item by an external id, fetching and storing it when only a catalog knows it; null when none does.',
    args: {
      source: t.arg({ type: CatalogSource, required: true }),
      kind: t.arg({ type: MediaKind, required: true }),
      externalId: t.arg.int({ required: true }),
    },
    resolve: (_root, args, context) => context.services.catalog.lookup(args.kind, args.source, args.externalId, context.account.id),
  }),
);

builder.queryField('searchCatalog', (t) =>
  t.field({
    type: [CatalogItem],
    description: `Title search across the stored catalog and the configured catalogs, best first (at most ${listLimits.search.max}).`,
    args: {
      query: t.arg.string({ required: true }),
      kind: t.arg({ type: MediaKind, required: false }),
      first: t.arg.int({ required: false, description: searchPage.first }),
    },
    complexity: (args: { first?: number | null }) => ({ field: fieldCosts.search, multiplier: listPage(args, listLimits.search).first }),
    resolve: async (_root, args, context) => {
      const page = listPage(args, listLimits.search);
      return pageOf(await oneAtATime(context, () => context.services.catalog.search(args.query, context.account.id, args.kind ?? undefined)), page);
    },
  }),
);

/** The searches of each operation (its context), chained: the last one's settlement. */
const searchTurns = new WeakMap<object, Promise<unknown>>();

/**
 * Runs `work` once the operation's earlier searches are done. GraphQL resolves sibling fields at
 * once, so sixteen aliased searches asked the catalogs sixteen times at once and took every
 * PostgreSQL connection of the pool (three queries each), and other accounts' requests waited for
 * a connection; one after another, an operation holds one search's connections at a time.
 */
function oneAtATime<T>(context: object, work: () => Promise<T>): Promise<T> {
  const result = (searchTurns.get(context) ?? Promise.resolve()).then(work);
  searchTurns.set(context, result.catch(() => undefined));
  return result;
}
