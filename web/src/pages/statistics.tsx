import { useEffect, useState } from 'preact/hooks';
import { request } from '../client.ts';
import { errorText, PageTitle } from '../components.tsx';
import { graphql, readFragment, type ResultOf } from '../graphql.ts';
import { onLibraryChanged } from '../library-events.ts';
import { navigate, useLocation } from '../router.ts';

const CountsFields = graphql(`
  fragment StatisticsCountsFields on StatisticsCounts {
    episodes
    movies
    games
    minutes
    withoutRuntime
  }
`);

const PeriodFields = graphql(`
  fragment StatisticsPeriodFields on StatisticsPeriod {
    key
    episodes
    movies
    games
    minutes
    withoutRuntime
  }
`);

/** Everything the page shows, computed by the server (in SQL, in the account's zone) in one query. */
const StatisticsQuery = graphql(
  `
    query Statistics($year: Int) {
      statistics(year: $year) {
        timeZone
        year
        years {
          ...StatisticsPeriodFields
        }
        total {
          ...StatisticsCountsFields
        }
        review {
          ...StatisticsCountsFields
        }
        months {
          ...StatisticsPeriodFields
        }
        weekdays {
          ...StatisticsPeriodFields
        }
        showCount
        shows(first: 10) {
          showId
          title
          episodes
          minutes
          withoutRuntime
        }
      }
    }
  `,
  [CountsFields, PeriodFields],
);

type Statistics = ResultOf<typeof StatisticsQuery>['statistics'];
type Counts = ResultOf<typeof CountsFields>;
type Period = ResultOf<typeof PeriodFields>;

const number = new Intl.NumberFormat();
const plural = (count: number, one: string, many: string) => `${number.format(count)} ${count === 1 ? one : many}`;
/** Minutes as hours, one decimal under 10 hours. */
const hours = (minutes: number) => {
  const value = minutes / 60;
  return `${new Intl.NumberFormat(undefined, { maximumFractionDigits: value < 10 ? 1 : 0 }).format(value)} h`;
};
const monthName = (month: number) => new Date(Date.UTC(2024, month - 1, 1)).toLocaleDateString(undefined, { timeZone: 'UTC', month: 'long' });
// 2024-01-01 was a Monday: ISO weekday 1.
const weekdayName = (weekday: number) => new Date(Date.UTC(2024, 0, weekday)).toLocaleDateString(undefined, { timeZone: 'UTC', weekday: 'long' });

/** Episodes, movies and games watched by month, weekday and show; hours; a year in review. */
export default function StatisticsPage() {
  const location = useLocation();
  const asked = Number(location.search.get('year'));
  const year = Number.isInteger(asked) && asked >= 1900 && asked <= 2200 ? asked : undefined;
  const [state, setState] = useState<{ year: number | undefined; stats?: Statistics; error?: string }>();
  const [changes, setChanges] = useState(0);
  useEffect(() => onLibraryChanged(() => setChanges((count) => count + 1)), []);
  useEffect(() => {
    let current = true;
    request(StatisticsQuery, { year: year ?? null }).then(
      (result) => current && setState({ year, stats: result.statistics }),
      (error) => current && setState({ year, error: errorText(error) }),
    );
    return () => void (current = false);
  }, [year, changes]);

  const stats = state?.stats;
  return (
    <section class="statistics">
      <PageTitle>Statistics</PageTitle>
      {state?.error && <p role="alert">{state.error}</p>}
      {!state && <p class="loading">Loading…</p>}
      {stats && (stats.years.length === 0 ? <Empty /> : <Report stats={stats} />)}
    </section>
  );
}

function Empty() {
  return (
    <div class="card">
      <h2>Nothing watched yet</h2>
      <p>
        Statistics count what you mark watched. Follow shows and movies and mark what you have seen, or <a href="/import-export">import your history</a> from Trakt, Simkl, TV Time,
        Letterboxd or IMDb.
      </p>
    </div>
  );
}

function Report({ stats }: { stats: Statistics }) {
  const total = readFragment(CountsFields, stats.total);
  const review = readFragment(CountsFields, stats.review);
  const years = readFragment(PeriodFields, stats.years);
  const months = readFragment(PeriodFields, stats.months);
  const weekdays = readFragment(PeriodFields, stats.weekdays);
  const busiest = (periods: readonly Period[]) => periods.reduce<Period | undefined>((best, period) => (items(period) > (best ? items(best) : 0) ? period : best), undefined);
  const busiestMonth = busiest(months);
  const busiestDay = busiest(weekdays);
  const top = stats.shows[0];
  const hasYear = years.some((period) => period.key === stats.year);
  return (
    <>
      <p class="hint">Counted in your time zone ({stats.timeZone}): each episode, movie and game you have marked watched, once, at the time it was marked.</p>
      <section class="card" aria-labelledby="all-time">
        <h2 id="all-time">All time</h2>
        <Totals counts={total} />
      </section>

      <section class="card" aria-labelledby="review-heading">
        <div class="review-head">
          <h2 id="review-heading">{stats.year} in review</h2>
          <div class="field inline">
            <label for="year">Year</label>
            <select id="year" value={String(stats.year)} onChange={(event) => navigate(`/statistics?year=${event.currentTarget.value}`)}>
              {!hasYear && <option value={String(stats.year)}>{stats.year}</option>}
              {years.map((period) => (
                <option key={period.key} value={String(period.key)}>
                  {period.key} ({plural(items(period), 'item', 'items')})
                </option>
              ))}
            </select>
          </div>
        </div>
        {items(review) === 0 ? (
          <p>Nothing was marked watched in {stats.year}.</p>
        ) : (
          <>
            <Totals counts={review} />
            <ul class="highlights">
              {top && (
                <li>
                  Most watched show: <strong>{top.title}</strong> ({plural(top.episodes, 'episode', 'episodes')}
                  {top.minutes > 0 ? `, ${hours(top.minutes)}` : ''}).
                </li>
              )}
              {busiestMonth && (
                <li>
                  Busiest month: <strong>{monthName(busiestMonth.key)}</strong> ({plural(items(busiestMonth), 'item', 'items')}).
                </li>
              )}
              {busiestDay && (
                <li>
                  Favourite day: <strong>{weekdayName(busiestDay.key)}</strong> ({plural(items(busiestDay), 'item', 'items')}).
                </li>
              )}
              <li>{plural(stats.showCount, 'show', 'shows')} watched.</li>
            </ul>
            <PeriodTable caption={`By month, ${stats.year}`} label="Month" periods={months} name={monthName} games={review.games > 0} />
            <PeriodTable caption={`By weekday, ${stats.year}`} label="Weekday" periods={weekdays} name={weekdayName} games={review.games > 0} />
            <h3>Most-watched shows</h3>
            <ol class="top-shows">
              {stats.shows.map((show) => (
                <li key={show.showId}>
                  <strong>{show.title}</strong> — {plural(show.episodes, 'episode', 'episodes')}
                  {show.minutes > 0 ? `, ${hours(show.minutes)}` : ''}
                  {show.withoutRuntime > 0 ? ` (${plural(show.withoutRuntime, 'episode', 'episodes')} without a known runtime)` : ''}
                </li>
              ))}
            </ol>
          </>
        )}
      </section>
    </>
  );
}

const items = (counts: Counts | Period) => counts.episodes + counts.movies + counts.games;

function Totals({ counts }: { counts: Counts }) {
  return (
    <>
      <dl class="totals">
        <div>
          <dt>Episodes</dt>
          <dd>{number.format(counts.episodes)}</dd>
        </div>
        <div>
          <dt>Movies</dt>
          <dd>{number.format(counts.movies)}</dd>
        </div>
        <div>
          <dt>Games</dt>
          <dd>{number.format(counts.games)}</dd>
        </div>
        <div>
          <dt>Hours watched</dt>
          <dd>{hours(counts.minutes)}</dd>
        </div>
      </dl>
      {counts.withoutRuntime > 0 && (
        <p class="hint">
          {plural(counts.withoutRuntime, 'episode or movie', 'episodes and movies')} without a known runtime {counts.withoutRuntime === 1 ? 'is' : 'are'} not in the hours.
        </p>
      )}
    </>
  );
}

/**
 * One row a period: the counts as numbers, and a bar (for the eye only; the numbers are the data).
 * The games column only when the year has games played.
 */
function PeriodTable({ caption, label, periods, name, games }: { caption: string; label: string; periods: readonly Period[]; name: (key: number) => string; games: boolean }) {
  const most = Math.max(1, ...periods.map(items));
  return (
    <div class="table-scroll">
      <table class="periods">
        <caption>{caption}</caption>
        <thead>
          <tr>
            <th scope="col">{label}</th>
            <th scope="col">Episodes</th>
            <th scope="col">Movies</th>
            {games && <th scope="col">Games</th>}
            <th scope="col">Hours</th>
            <th scope="col" class="bar-cell">
              <span class="visually-hidden">Share</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {periods.map((period) => (
            <tr key={period.key}>
              <th scope="row">{name(period.key)}</th>
              <td>{number.format(period.episodes)}</td>
              <td>{number.format(period.movies)}</td>
              {games && <td>{number.format(period.games)}</td>}
              <td>{hours(period.minutes)}</td>
              <td class="bar-cell" aria-hidden="true">
                <span class="bar" style={{ width: `${(items(period) / most) * 100}%` }} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
