import { builder } from '../graphql/builder.ts';
import { fieldCosts, listLimits } from '../limits.ts';
import { listPage, pageDescriptions, pagedComplexity, pageOf } from '../graphql/pages.ts';
import { loadStatistics, statisticsYears, type AccountStatistics, type StatisticsCounts, type StatisticsPeriod, type StatisticsShow } from './statistics-service.ts';

const descriptions = {
  episodes: 'Episodes watched.',
  movies: 'Movies watched.',
  games: 'Games played.',
  minutes: 'Minutes of the episodes and movies watched whose runtime the catalog knows.',
  withoutRuntime: 'Episodes and movies watched whose runtime the catalog does not know (not in minutes).',
};

const StatisticsCountsRef = builder.objectRef<StatisticsCounts>('StatisticsCounts').implement({
  description: 'What was watched and played in a span of time.',
  fields: (t) => ({
    episodes: t.exposeInt('episodes', { description: descriptions.episodes }),
    movies: t.exposeInt('movies', { description: descriptions.movies }),
    games: t.exposeInt('games', { description: descriptions.games }),
    minutes: t.exposeInt('minutes', { description: descriptions.minutes }),
    withoutRuntime: t.exposeInt('withoutRuntime', { description: descriptions.withoutRuntime }),
  }),
});

const StatisticsPeriodRef = builder.objectRef<StatisticsPeriod>('StatisticsPeriod').implement({
  description: 'What was watched and played in one year, month or weekday.',
  fields: (t) => ({
    key: t.exposeInt('key', { description: 'The year; the month, 1 (January) to 12; or the ISO weekday, 1 (Monday) to 7 (Sunday).' }),
    episodes: t.exposeInt('episodes', { description: descriptions.episodes }),
    movies: t.exposeInt('movies', { description: descriptions.movies }),
    games: t.exposeInt('games', { description: descriptions.games }),
    minutes: t.exposeInt('minutes', { description: descriptions.minutes }),
    withoutRuntime: t.exposeInt('withoutRuntime', { description: descriptions.withoutRuntime }),
  }),
});

const StatisticsShowRef = builder.objectRef<StatisticsShow>('StatisticsShow').implement({
  description: 'A show and how much of it was watched in the year.',
  fields: (t) => ({
    showId: t.exposeInt('showId', { description: 'Database id.' }),
    title: t.exposeString('title'),
    poster: t.exposeString('poster', { nullable: true }),
    episodes: t.exposeInt('episodes', { description: 'Episodes watched in the year.' }),
    minutes: t.exposeInt('minutes', { description: 'Their minutes, where the catalog knows the runtime.' }),
    withoutRuntime: t.exposeInt('withoutRuntime', { description: 'Episodes of them without a known runtime.' }),
  }),
});

const showPage = pageDescriptions(listLimits.statisticsShows, 'shows');

const StatisticsRef = builder.objectRef<AccountStatistics>('Statistics').implement({
  description:
    "The viewer's statistics, in the viewer's time zone: what is marked watched now, at the time it was marked (an item once, however " +
    'often it was marked; an unmarked one not at all).',
  fields: (t) => ({
    timeZone: t.exposeString('timeZone', { description: 'The time zone the months, weekdays and years are in.' }),
    // Lists bounded by the calendar, counted at their largest: a year for each year a watch time can
    // fall in (historyTimeRange, from 1900), twelve months, seven weekdays.
    years: t.field({
      type: [StatisticsPeriodRef],
      description: 'Every year with something watched, newest first.',
      complexity: () => ({ field: 1, multiplier: new Date().getUTCFullYear() - 1900 + 2 }),
      resolve: (stats) => stats.years,
    }),
    total: t.field({ type: StatisticsCountsRef, description: 'All years.', resolve: (stats) => stats.total }),
    year: t.exposeInt('year', { description: 'The year reviewed by review, months, weekdays and shows.' }),
    review: t.field({ type: StatisticsCountsRef, description: 'The year reviewed.', resolve: (stats) => stats.review }),
    months: t.field({ type: [StatisticsPeriodRef], description: "The year's twelve months, January first.", complexity: () => ({ field: 1, multiplier: 12 }), resolve: (stats) => stats.months }),
    weekdays: t.field({ type: [StatisticsPeriodRef], description: "The year's seven weekdays, Monday first.", complexity: () => ({ field: 1, multiplier: 7 }), resolve: (stats) => stats.weekdays }),
    showCount: t.int({ description: 'How many shows had an episode watched in the year.', resolve: (stats) => stats.shows.length }),
    shows: t.field({
      type: [StatisticsShowRef],
      description: 'The most-watched shows of the year: most episodes first, then most minutes, then title, a page at a time.',
      args: { first: t.arg.int({ required: false, description: showPage.first }), offset: t.arg.int({ required: false, description: showPage.offset }) },
      complexity: pagedComplexity(listLimits.statisticsShows),
      resolve: (stats, args) => pageOf(stats.shows, listPage(args, listLimits.statisticsShows)),
    }),
  }),
});

builder.queryField('statistics', (t) =>
  t.field({
    type: StatisticsRef,
    description: "The viewer's statistics: totals by year, and a review of one year by month, weekday and show.",
    args: { year: t.arg.int({ required: false, description: `The year to review, ${statisticsYears.min} to ${statisticsYears.max}; default the latest year with history, else this year.` }) },
    complexity: fieldCosts.statistics,
    resolve: (_root, args, context) => loadStatistics({ account: context.account, year: args.year }),
  }),
);
