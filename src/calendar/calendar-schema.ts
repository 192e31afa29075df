import { calendarDefaults, calendarMaxDays, loadCalendar, type AccountCalendar, type CalendarEvent } from './calendar-service.ts';
import { fieldCosts, listLimits } from '../limits.ts';
import { builder } from '../graphql/builder.ts';
import { FeedItemKind } from '../feeds/feeds-schema.ts';
import { listPage, pageDescriptions, pagedComplexity, pageOf } from '../graphql/pages.ts';

const eventPage = pageDescriptions(listLimits.calendarEvents, 'events');

const CalendarEventRef = builder.objectRef<CalendarEvent>('CalendarEvent').implement({
  description: 'An all-day calendar event: an episode airing, a movie or a game releasing.',
  // Exposed under their own names, so the compiled REST operation reads the properties directly.
  fields: (t) => ({
    uid: t.exposeString('uid', { description: 'Stable and opaque: the same item keeps it forever.' }),
    kind: t.expose('kind', { type: FeedItemKind }),
    id: t.exposeInt('id', { description: 'Database id, the one the write endpoints take.' }),
    title: t.exposeString('title', { description: "The show's title for an episode, else the item's." }),
    summary: t.exposeString('summary', { description: '`Show S01E02 · Episode title` for an episode, else the title.' }),
    description: t.exposeString('description'),
    date: t.expose('date', { type: 'LocalDate' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime', description: "The item's last change (an episode's or its show's)." }),
    poster: t.exposeString('poster', { nullable: true }),
    show: t.exposeString('show', { nullable: true }),
    showId: t.exposeInt('showId', { nullable: true }),
    episode: t.exposeString('episode', { nullable: true, description: 'S01E02; two digits at least.' }),
    season: t.exposeInt('season', { nullable: true }),
    number: t.exposeInt('number', { nullable: true }),
    episodeTitle: t.exposeString('episodeTitle', { nullable: true }),
  }),
});

const CalendarRef = builder.objectRef<AccountCalendar>('Calendar').implement({
  description: "The viewer's calendar feed: the same data as GET /api/calendar.ics.",
  fields: (t) => ({
    name: t.exposeString('name', { description: 'Airdate — <account name>.' }),
    from: t.expose('from', { type: 'LocalDate', description: 'First date covered.' }),
    to: t.expose('to', { type: 'LocalDate', description: 'Last date covered.' }),
    events: t.field({
      type: [CalendarEventRef],
      description: 'By date, title, season, number, kind and id, a page at a time (eventCount tells how many there are).',
      args: { first: t.arg.int({ required: false, description: eventPage.first }), offset: t.arg.int({ required: false, description: eventPage.offset }) },
      complexity: pagedComplexity(listLimits.calendarEvents),
      resolve: (calendar, args) => pageOf(calendar.events, listPage(args, listLimits.calendarEvents)),
    }),
    eventCount: t.int({ description: 'How many events the calendar holds.', resolve: (calendar) => calendar.events.length }),
  }),
});

builder.queryField('calendar', (t) =>
  t.field({
    type: CalendarRef,
    description:
      "The viewer's followed, non-archived episodes, movies and games with a known date, from " +
      '`past` days before to `future` days after the local today, in the viewer\'s time zone.',
    args: {
      past: t.arg.int({ required: false, description: `Days back, 0 to ${calendarMaxDays}; default ${calendarDefaults.past}.` }),
      future: t.arg.int({ required: false, description: `Days ahead, 0 to ${calendarMaxDays}; default ${calendarDefaults.future}.` }),
      kinds: t.arg({ type: [FeedItemKind], required: false, description: 'Kinds to include; all when omitted.' }),
    },
    // Loading costs a unit a day of the window (a default calendar 396): events are read for the
    // whole window before a page of them is taken.
    // (Out-of-range days are the resolver's to refuse, with its own message; here they only count.)
    complexity: (args) => {
      const days = (value: number | null | undefined, fallback: number) => Math.min(Math.max(value ?? fallback, 0), calendarMaxDays);
      return { field: fieldCosts.calendarPerDay * (1 + days(args.past, calendarDefaults.past) + days(args.future, calendarDefaults.future)), multiplier: 1 };
    },
    resolve: (_root, args, context) => loadCalendar({ account: context.account, past: args.past, future: args.future, kinds: args.kinds }),
  }),
);
