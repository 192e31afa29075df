import { useEffect, useMemo, useState } from 'preact/hooks';
import { request } from '../client.ts';
import { errorText, PageTitle } from '../components.tsx';
import { graphql, type ResultOf } from '../graphql.ts';
import { onLibraryChanged } from '../library-events.ts';
import { navigate, useLocation } from '../router.ts';
import { addDays, dayNumber, isLocalDate, monthLabel, startOfWeek, todayIn, weekdayLabels } from '../dates.ts';

const CalendarZone = graphql(`
  query CalendarZone {
    viewer {
      timezone
    }
  }
`);

/**
 * The account's calendar for a window around its local today: the very query (and so the rules)
 * GET /api/calendar.ics answers from; the page only picks the days to show.
 */
const CalendarEvents = graphql(`
  query CalendarEvents($past: Int!, $future: Int!, $first: Int!, $offset: Int!) {
    calendar(past: $past, future: $future) {
      from
      to
      eventCount
      events(first: $first, offset: $offset) {
        uid
        kind
        date
        summary
        showId
      }
    }
  }
`);

type CalendarEvent = ResultOf<typeof CalendarEvents>['calendar']['events'][number];

/** The calendar query's largest window either way (calendarMaxDays on the server). */
const maxDays = 3650;
/** Events read a request: the query's cost stays far under the server's limit. */
const pageSize = 500;

type View = 'month' | 'week';

/** Reads `?view=` and `?date=` (any day of the month or week shown); today when absent or bad. */
function readState(search: URLSearchParams, today: string): { view: View; date: string } {
  const view = search.get('view') === 'week' ? 'week' : 'month';
  const date = search.get('date');
  return { view, date: date && isLocalDate(date) ? date : today };
}

/** The days a view shows: whole weeks, Monday first (ISO 8601). */
function visibleDays(view: View, date: string): string[] {
  if (view === 'week') {
    const start = startOfWeek(date);
    return Array.from({ length: 7 }, (_, index) => addDays(start, index));
  }
  const first = `${date.slice(0, 8)}01`;
  const start = startOfWeek(first);
  const nextMonth = addDays(first, 32).slice(0, 8) + '01';
  const days: string[] = [];
  for (let day = start; day < nextMonth || days.length % 7 !== 0; day = addDays(day, 1)) days.push(day);
  return days;
}

/** The same place one month or week before or after. */
function step(view: View, date: string, direction: -1 | 1): string {
  if (view === 'week') return addDays(date, 7 * direction);
  const [year, month] = [Number(date.slice(0, 4)), Number(date.slice(5, 7))];
  const index = year * 12 + (month - 1) + direction;
  return `${String(Math.floor(index / 12)).padStart(4, '0')}-${String((index % 12) + 1).padStart(2, '0')}-01`;
}

async function loadEvents(today: string, first: string, last: string): Promise<{ events: CalendarEvent[]; clipped: boolean }> {
  // One day more each way than the days shown: the server's today may be a day off the browser's
  // reading of the zone's clock around midnight. Events outside the days shown are left out below.
  const wantedPast = dayNumber(today) - dayNumber(first) + 1;
  const wantedFuture = dayNumber(last) - dayNumber(today) + 1;
  const past = Math.min(Math.max(wantedPast, 0), maxDays);
  const future = Math.min(Math.max(wantedFuture, 0), maxDays);
  const clipped = wantedPast > maxDays || wantedFuture > maxDays;
  const events: CalendarEvent[] = [];
  for (let offset = 0; ; offset += pageSize) {
    const { calendar } = await request(CalendarEvents, { past, future, first: pageSize, offset });
    events.push(...calendar.events);
    if (calendar.events.length < pageSize || events.length >= calendar.eventCount) break;
  }
  return { events: events.filter((event) => event.date >= first && event.date <= last), clipped };
}

/** Month and week views of the account's releases, in its time zone. */
export default function CalendarPage() {
  const location = useLocation();
  const [zone, setZone] = useState<string>();
  const [failure, setFailure] = useState<string>();
  const [loaded, setLoaded] = useState<{ key: string; events: CalendarEvent[]; clipped: boolean }>();
  const [changes, setChanges] = useState(0);

  useEffect(() => {
    request(CalendarZone).then(
      (result) => setZone(result.viewer.timezone),
      (error) => setFailure(errorText(error)),
    );
  }, []);
  useEffect(() => onLibraryChanged(() => setChanges((count) => count + 1)), []);

  const today = zone ? todayIn(zone) : undefined;
  const state = today ? readState(location.search, today) : undefined;
  const days = useMemo(() => (state ? visibleDays(state.view, state.date) : []), [state?.view, state?.date]);
  const key = days.length ? `${days[0]}/${days[days.length - 1]}` : '';

  useEffect(() => {
    if (!today || !key) return;
    let current = true;
    loadEvents(today, days[0]!, days[days.length - 1]!).then(
      (result) => current && (setLoaded({ key, ...result }), setFailure(undefined)),
      (error) => current && setFailure(errorText(error)),
    );
    return () => void (current = false);
  }, [key, today, changes]);

  const go = (view: View, date: string) => navigate(`/calendar?view=${view}&date=${date}`);

  // Keyboard: n / p for the next and previous month or week, t for today (not while typing).
  useEffect(() => {
    if (!state || !today) return;
    const onKey = (event: KeyboardEvent) => {
      if (event.ctrlKey || event.metaKey || event.altKey || (event.target as Element | null)?.closest?.('input, select, textarea, [contenteditable]')) return;
      if (event.key === 'n') go(state.view, step(state.view, state.date, 1));
      else if (event.key === 'p') go(state.view, step(state.view, state.date, -1));
      else if (event.key === 't') go(state.view, today);
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  });

  const byDay = useMemo(() => {
    const map = new Map<string, CalendarEvent[]>();
    for (const event of loaded?.events ?? []) map.set(event.date, [...(map.get(event.date) ?? []), event]);
    return map;
  }, [loaded]);

  if (!state || !today) {
    return (
      <section>
        <PageTitle>Calendar</PageTitle>
        {failure ? <p role="alert">{failure}</p> : <p class="loading">Loading…</p>}
      </section>
    );
  }
  const title = state.view === 'month' ? monthLabel(state.date) : `Week of ${longDate(days[0]!)}`;
  const unit = state.view === 'month' ? 'month' : 'week';
  const ready = loaded?.key === key;
  const shownEvents = ready ? loaded.events.length : 0;
  return (
    <section class="calendar">
      <PageTitle>Calendar</PageTitle>
      <p class="hint">
        Your followed shows' episodes, movies and games by release date, in your time zone ({zone}) — the same events as your calendar subscription. Keys: <kbd>p</kbd> previous,{' '}
        <kbd>n</kbd> next, <kbd>t</kbd> today.
      </p>
      <div class="calendar-bar">
        <div class="actions" role="group" aria-label="View">
          <button type="button" aria-pressed={state.view === 'month'} onClick={() => go('month', state.date)}>
            Month
          </button>
          <button type="button" aria-pressed={state.view === 'week'} onClick={() => go('week', state.date)}>
            Week
          </button>
        </div>
        <div class="actions" role="group" aria-label="Go to">
          <button type="button" onClick={() => go(state.view, step(state.view, state.date, -1))}>
            Previous {unit}
          </button>
          <button type="button" onClick={() => go(state.view, today)}>
            Today
          </button>
          <button type="button" onClick={() => go(state.view, step(state.view, state.date, 1))}>
            Next {unit}
          </button>
        </div>
      </div>
      <h2 aria-live="polite">{title}</h2>
      {failure && <p role="alert">{failure}</p>}
      {!ready && !failure && <p class="loading">Loading…</p>}
      {ready && loaded.clipped && <p class="warning">The calendar reaches ten years either side of today; later or earlier days show nothing.</p>}
      {ready && shownEvents === 0 && (
        <p>
          Nothing releases this {unit}. Follow shows, movies and games to see their dates here{state.view === 'month' ? '' : ', or look at the whole month'}.
        </p>
      )}
      {ready && (
        <>
          <table class="calendar-grid">
            <caption class="visually-hidden">{title}</caption>
            <thead>
              <tr>
                {weekdayLabels.map((label) => (
                  <th scope="col" key={label.short}>
                    <abbr title={label.long}>{label.short}</abbr>
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {Array.from({ length: days.length / 7 }, (_, week) => (
                <tr key={days[week * 7]}>
                  {days.slice(week * 7, week * 7 + 7).map((day) => (
                    <td key={day} data-day={day} class={[day === today ? 'today' : '', state.view === 'month' && day.slice(0, 7) !== state.date.slice(0, 7) ? 'outside' : ''].join(' ').trim() || undefined} aria-current={day === today ? 'date' : undefined}>
                      <span class="day-number">
                        <span class="visually-hidden">{longDate(day)}</span>
                        <span aria-hidden="true">{Number(day.slice(8))}</span>
                      </span>
                      <Events events={byDay.get(day)} />
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
          <ol class="agenda" aria-label={`${title}, day by day`}>
            {days
              // The month view's list keeps to the month (the grid's leading and trailing days are for the grid).
              .filter((day) => byDay.has(day) && (state.view === 'week' || day.slice(0, 7) === state.date.slice(0, 7)))
              .map((day) => (
                <li key={day} class={day === today ? 'today' : undefined}>
                  <h3>
                    {longDate(day)}
                    {day === today ? ' (today)' : ''}
                  </h3>
                  <Events events={byDay.get(day)} />
                </li>
              ))}
          </ol>
        </>
      )}
    </section>
  );
}

function Events({ events }: { events: CalendarEvent[] | undefined }) {
  if (!events?.length) return null;
  return (
    <ul class="events">
      {events.map((event) => (
        <li key={event.uid} class={`event event-${event.kind}`} data-date={event.date}>
          <span class="visually-hidden">{event.kind === 'EPISODE' ? 'Episode: ' : event.kind === 'MOVIE' ? 'Movie: ' : 'Game: '}</span>
          {event.summary}
        </li>
      ))}
    </ul>
  );
}

function longDate(day: string): string {
  return new Date(`${day}T00:00:00Z`).toLocaleDateString(undefined, { timeZone: 'UTC', weekday: 'long', day: 'numeric', month: 'long', year: 'numeric' });
}
