import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { memo } from 'preact/compat';
import type { RefObject } from 'preact';
import { request } from '../client.ts';
import { errorText, Notice, PageTitle, useLoad, type Outcome } from '../components.tsx';
import { graphql, type ResultOf } from '../graphql.ts';
import { formatDate, markEpisodes, markItems, setFollow, setUpNextRule, upNextRuleText, type EpisodeScope, type MarkDate, type UpNextRule } from '../library.ts';
import { useLibraryChanged, type LibraryChange } from '../library-events.ts';
import { useLocation } from '../router.ts';
import { Poster } from '../media.tsx';

/**
 * The show without its episodes: its seasons with the viewer's counts, and its next episode. A
 * long show is drawn from this, each season's episodes read when the season is opened.
 */
const ShowHead = graphql(`
  query ShowHead($id: Int!) {
    summary {
      date
    }
    viewer {
      upNextRule
    }
    show(id: $id) {
      databaseId
      title
      poster
      overview
      episodeCount
      libraryEntry {
        followed
        archived
      }
      upNext {
        databaseId
        season
        number
        code
        title
        airDate
      }
      seasons {
        number
        episodeCount
        airedCount
        watchedCount
        watchedAiredCount
      }
      skippedEpisodeCount
      firstSkippedEpisode {
        databaseId
        season
        code
      }
      upNextRule
      ownUpNextRule
    }
  }
`);

/** One season's episodes (or the whole show's, season null), 500 a request: the most Show.episodes gives. */
const SeasonEpisodes = graphql(`
  query SeasonEpisodes($id: Int!, $season: Int, $offset: Int!) {
    show(id: $id) {
      episodes(season: $season, first: 500, offset: $offset) {
        databaseId
        season
        number
        code
        title
        airDate
        watched
      }
    }
  }
`);

type Show = NonNullable<ResultOf<typeof ShowHead>['show']>;
type SeasonProgress = Show['seasons'][number];
export type EpisodeRow = NonNullable<ResultOf<typeof SeasonEpisodes>['show']>['episodes'][number];

/** A show this small is drawn whole, every season open, from one request. */
const smallShow = 150;

async function loadHead(id: number): Promise<{ show: Show | null; today: string; accountRule?: UpNextRule }> {
  const head = await request(ShowHead, { id });
  return { show: head.show, today: head.summary.date, accountRule: head.viewer.upNextRule };
}

/** The episodes of `season` (null: all of them), by season and number. */
async function loadEpisodes(id: number, season: number | null, expected: number): Promise<EpisodeRow[]> {
  const episodes: EpisodeRow[] = [];
  do {
    const page = (await request(SeasonEpisodes, { id, season, offset: episodes.length })).show?.episodes ?? [];
    if (page.length === 0) break;
    episodes.push(...page);
  } while (episodes.length < expected);
  return episodes;
}

/** Episodes per season, as loaded (a season absent: not loaded yet). */
type Loaded = Map<number, EpisodeRow[]>;

/** How many episodes a bulk action takes, and how many not aired it leaves alone. */
interface Counts {
  taken: number;
  notAired: number;
}

/** What a bulk action asks about: which episodes, and whether it marks or unmarks. */
interface Bulk {
  scope: EpisodeScope;
  watched: boolean;
  /** "season 2", "everything up to S02E03", "the whole show". */
  label: string;
  /** Whether the specials switch is offered (the whole show, up to a regular episode). */
  specialsOptional: boolean;
  /** The confirmation's counts (the server decides; these are what the page knows). */
  count: (includeSpecials: boolean) => Counts;
  /** Whether a loaded episode is in scope, for the change shown at once. */
  covers: (episode: EpisodeRow, includeSpecials: boolean) => boolean;
}

const hasAired = (episode: { airDate: string | null }, today: string) => episode.airDate !== null && episode.airDate <= today;

/** A season's counts: from its loaded episodes when it has them (marks made here included), else the server's. */
function progressOf(season: SeasonProgress, episodes: EpisodeRow[] | undefined, today: string): SeasonProgress {
  if (!episodes) return season;
  let airedCount = 0;
  let watchedCount = 0;
  let watchedAiredCount = 0;
  for (const episode of episodes) {
    const aired = hasAired(episode, today);
    if (aired) airedCount += 1;
    if (episode.watched) watchedCount += 1;
    if (aired && episode.watched) watchedAiredCount += 1;
  }
  return { number: season.number, episodeCount: episodes.length, airedCount, watchedCount, watchedAiredCount };
}

/** What marking (or unmarking) a whole season takes, from its counts. */
function seasonCounts(season: SeasonProgress, watched: boolean): Counts {
  if (!watched) return { taken: season.watchedCount, notAired: 0 };
  return { taken: season.airedCount - season.watchedAiredCount, notAired: season.episodeCount - season.airedCount - (season.watchedCount - season.watchedAiredCount) };
}

/** What a bulk action takes among loaded episodes: marking takes aired ones only, as the server does. */
function episodeCounts(episodes: EpisodeRow[], watched: boolean, today: string): Counts {
  const changing = episodes.filter((episode) => episode.watched !== watched);
  const taken = changing.filter((episode) => !watched || hasAired(episode, today)).length;
  return { taken, notAired: changing.length - taken };
}

const addCounts = (all: Counts[]): Counts => all.reduce((sum, counts) => ({ taken: sum.taken + counts.taken, notAired: sum.notAired + counts.notAired }), { taken: 0, notAired: 0 });

/** The episodes of `loaded` with `ids` set to `watched` (the same map when nothing changes). */
function withMarks(loaded: Loaded, ids: Set<number>, watched: boolean): Loaded {
  let next: Loaded | undefined;
  for (const [season, episodes] of loaded) {
    if (!episodes.some((episode) => ids.has(episode.databaseId) && episode.watched !== watched)) continue;
    next ??= new Map(loaded);
    next.set(season, episodes.map((episode) => (ids.has(episode.databaseId) && episode.watched !== watched ? { ...episode, watched } : episode)));
  }
  return next ?? loaded;
}

/**
 * A show: its seasons, each with its progress (watched of aired) and collapsible — open at first
 * the season of the next episode (every season of a small show), the page scrolled to that
 * episode — with a jump to any season; an open season draws only the episodes near the screen, in
 * rows of a fixed height, so a 2,700-episode show stays a small page whose height never changes
 * while scrolling. Marks: one episode, a season or everything up to an episode (watched: only
 * what has aired; the date recorded chosen), the same to unmark; follow and archive. A mark made
 * here updates the rows from the server's answer and reads only the show's counts and next
 * episode again; a change made elsewhere reads the counts and the open seasons again.
 */
export default function ShowPage() {
  const location = useLocation();
  const id = Number(location.path.split('/')[2]);
  const valid = Number.isInteger(id) && id > 0;
  const loader = useCallback(() => (valid ? loadHead(id) : Promise.resolve({ show: null, today: '' })), [id, valid]);
  const { data, error, reload } = useLoad(loader);
  const [loaded, setLoaded] = useState<{ id: number; seasons: Loaded }>({ id, seasons: new Map() });
  const episodesBySeason = loaded.id === id ? loaded.seasons : new Map<number, EpisodeRow[]>();
  /** Latest state for callbacks that must not change identity (the rows are memoized on them). */
  const current = useRef({ id, episodesBySeason, data });
  current.current = { id, episodesBySeason, data };
  const [open, setOpen] = useState<{ id: number; seasons: Set<number> } | null>(null);
  const openSeasons = open?.id === id ? open.seasons : null;
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const [bulk, setBulk] = useState<Bulk | null>(null);
  const [followBusy, setFollowBusy] = useState(false);
  /** The episode to bring into view once its season is drawn (the next one, on opening). */
  const scrollTarget = useRef<{ season: number; episodeId: number | null } | null>(null);
  const [scrollAsked, askScroll] = useState(0);

  const show = data?.show ?? null;
  const today = data?.today ?? '';

  const setEpisodes = useCallback((update: (seasons: Loaded) => Loaded) => {
    setLoaded((state) => {
      const base = state.id === current.current.id ? state.seasons : new Map<number, EpisodeRow[]>();
      const next = update(base);
      return next === base && state.id === current.current.id ? state : { id: current.current.id, seasons: next };
    });
  }, []);

  /** Reads seasons' episodes (all of a small show's at once) into the page. */
  const fetchSeasons = useCallback(
    async (seasons: number[]) => {
      const head = current.current.data?.show;
      if (!head) return;
      const showId = head.databaseId;
      const whole = head.episodeCount <= smallShow;
      const read = whole
        ? [loadEpisodes(showId, null, head.episodeCount)]
        : seasons.map((season) => loadEpisodes(showId, season, head.seasons.find((entry) => entry.number === season)?.episodeCount ?? 0));
      try {
        const lists = await Promise.all(read);
        if (current.current.id !== showId) return;
        setEpisodes((before) => {
          const next = new Map(before);
          if (whole) {
            next.clear();
            for (const episode of lists[0]!) next.set(episode.season, [...(next.get(episode.season) ?? []), episode]);
          } else seasons.forEach((season, index) => next.set(season, lists[index]!));
          return next;
        });
      } catch (failure) {
        setOutcome({ kind: 'error', text: `The episodes could not be read: ${errorText(failure)}` });
      }
    },
    [setEpisodes],
  );

  // The first head of a show: open the season of its next episode (every season of a small show) and go there.
  useEffect(() => {
    if (!show || openSeasons) return;
    const start = startingPoint(show);
    const small = show.episodeCount <= smallShow;
    setOpen({ id, seasons: new Set(small ? show.seasons.map((season) => season.number) : start ? [start.season] : []) });
    scrollTarget.current = start;
    if (small || start) void fetchSeasons(start ? [start.season] : []);
  }, [show, openSeasons, id, fetchSeasons]);

  // A change: this tab's own marks update the rows from the answer and read only the head again;
  // anything else reads the head and the loaded seasons again.
  const onChange = useCallback(
    (change?: LibraryChange) => {
      reload();
      if (change?.episodes) {
        const { ids, watched } = change.episodes;
        setEpisodes((seasons) => withMarks(seasons, new Set(ids), watched));
      } else {
        const seasons = [...current.current.episodesBySeason.keys()];
        if (seasons.length > 0) void fetchSeasons(seasons);
      }
    },
    [reload, setEpisodes, fetchSeasons],
  );
  useLibraryChanged(onChange);

  const openSeason = useCallback(
    (season: number, scroll: boolean) => {
      setOpen((state) => ({ id: current.current.id, seasons: new Set([...(state?.id === current.current.id ? state.seasons : []), season]) }));
      if (!current.current.episodesBySeason.has(season)) void fetchSeasons([season]);
      if (scroll) document.getElementById(`season-${season}`)?.scrollIntoView({ block: 'start' });
    },
    [fetchSeasons],
  );
  const toggleSeason = useCallback(
    (season: number) => {
      if (openSeasons?.has(season)) setOpen({ id, seasons: new Set([...openSeasons].filter((other) => other !== season)) });
      else openSeason(season, false);
    },
    [openSeasons, openSeason, id],
  );

  // Bring the starting episode into view once its season's rows are placed.
  useEffect(() => {
    const target = scrollTarget.current;
    if (!target || !episodesBySeason.has(target.season)) return;
    scrollTarget.current = null;
    const list = document.getElementById(`season-list-${target.season}`);
    const episodes = episodesBySeason.get(target.season)!;
    // No episode named: the one after the last watched (where the person is), or the first.
    const index = target.episodeId === null ? Math.min(episodes.length - 1, episodes.findLastIndex((episode) => episode.watched) + 1) : Math.max(0, episodes.findIndex((episode) => episode.databaseId === target.episodeId));
    if (list) window.scrollTo({ top: list.getBoundingClientRect().top + window.scrollY + Math.max(0, index) * rowPixels() - window.innerHeight / 3 });
  }, [episodesBySeason, scrollAsked]);

  const toggle = useCallback(async (episode: EpisodeRow) => {
    const title = current.current.data?.show?.title ?? '';
    const watched = !episode.watched;
    const ids = new Set([episode.databaseId]);
    setEpisodes((seasons) => withMarks(seasons, ids, watched));
    setOutcome(null);
    try {
      await markItems('EPISODE', [episode.databaseId], watched, `${episode.code} of ${title}`);
    } catch (failure) {
      setEpisodes((seasons) => withMarks(seasons, ids, !watched));
      setOutcome({ kind: 'error', text: `${episode.code} was not ${watched ? 'marked' : 'unmarked'}: ${errorText(failure)}` });
    }
  }, [setEpisodes]);

  const upTo = useCallback(
    (episode: EpisodeRow, watched: boolean) => {
      const { data: state, episodesBySeason: seasons } = current.current;
      if (!state?.show) return;
      const special = episode.season === 0;
      const before = (other: EpisodeRow) =>
        special ? other.season === 0 && other.number <= episode.number : other.season !== 0 && (other.season < episode.season || (other.season === episode.season && other.number <= episode.number));
      const today = state.today;
      setBulk({
        scope: { showId: state.show.databaseId, upToEpisodeId: episode.databaseId },
        watched,
        label: `everything up to ${episode.code}`,
        specialsOptional: !special,
        covers: before,
        count: (includeSpecials) =>
          addCounts(
            state.show!.seasons.flatMap((season) => {
              const loadedEpisodes = seasons.get(season.number);
              if (season.number === episode.season) return [episodeCounts((loadedEpisodes ?? []).filter(before), watched, today)];
              const inScope = special ? false : season.number === 0 ? includeSpecials : season.number < episode.season;
              if (!inScope) return [];
              return [loadedEpisodes ? episodeCounts(loadedEpisodes, watched, today) : seasonCounts(season, watched)];
            }),
          ),
      });
    },
    [],
  );

  /** A bulk action over whole seasons: one (`season`), or every one (the whole show). */
  const seasonBulk = useCallback((season: number | null, watched: boolean) => {
    const { data: state, episodesBySeason: seasons } = current.current;
    if (!state?.show) return;
    const label = season === null ? 'the whole show' : season === 0 ? 'the specials' : `season ${season}`;
    setBulk({
      scope: { showId: state.show.databaseId, ...(season === null ? {} : { season }) },
      watched,
      label,
      specialsOptional: season === null,
      covers: (episode, includeSpecials) => (season === null ? includeSpecials || episode.season !== 0 : episode.season === season),
      count: (includeSpecials) =>
        addCounts(
          state.show!.seasons
            .filter((entry) => (season === null ? includeSpecials || entry.number !== 0 : entry.number === season))
            .map((entry) => {
              const loadedEpisodes = seasons.get(entry.number);
              return loadedEpisodes ? episodeCounts(loadedEpisodes, watched, state.today) : seasonCounts(entry, watched);
            }),
        ),
    });
  }, []);

  const runBulk = async (request: Bulk, date: MarkDate, includeSpecials: boolean) => {
    if (!show) return;
    setBulk(null);
    const scope = { ...request.scope, includeSpecials: request.specialsOptional ? includeSpecials : undefined };
    // Shown at once on the loaded rows, as the server picks them: marking takes aired ones only.
    const shown = new Set<number>();
    for (const episodes of episodesBySeason.values()) {
      for (const episode of episodes) if (request.covers(episode, includeSpecials) && episode.watched !== request.watched && (!request.watched || hasAired(episode, today))) shown.add(episode.databaseId);
    }
    setEpisodes((seasons) => withMarks(seasons, shown, request.watched));
    setOutcome(null);
    try {
      await markEpisodes(scope, request.watched, date, `${show.title}`);
    } catch (failure) {
      setEpisodes((seasons) => withMarks(seasons, shown, !request.watched));
      setOutcome({ kind: 'error', text: `Nothing was ${request.watched ? 'marked' : 'unmarked'}: ${errorText(failure)}` });
    }
  };

  /** Opens an episode's season and brings the episode into view. */
  const goTo = (season: number, episodeId: number) => {
    scrollTarget.current = { season, episodeId };
    openSeason(season, false);
    askScroll((count) => count + 1);
  };

  const [ruleBusy, setRuleBusy] = useState(false);
  const changeRule = async (rule: UpNextRule | null) => {
    if (!show) return;
    setRuleBusy(true);
    setOutcome(null);
    try {
      await setUpNextRule(rule, show.databaseId);
      setOutcome({ kind: 'ok', text: rule === null ? `Up next for ${show.title} follows the account's choice again.` : `Up next for ${show.title} now offers ${upNextRuleText[rule]}.` });
    } catch (failure) {
      setOutcome({ kind: 'error', text: `The choice was not saved: ${errorText(failure)}` });
    } finally {
      setRuleBusy(false);
    }
  };

  const follow = async (change: { followed?: boolean; archived?: boolean }, done: string) => {
    if (!show) return;
    setFollowBusy(true);
    setOutcome(null);
    try {
      await setFollow('SHOW', show.databaseId, change);
      setOutcome({ kind: 'ok', text: done });
    } catch (failure) {
      setOutcome({ kind: 'error', text: `${show.title} was not changed: ${errorText(failure)}` });
    } finally {
      setFollowBusy(false);
    }
  };

  const progress = useMemo(() => (show ? show.seasons.map((season) => progressOf(season, episodesBySeason.get(season.number), today)) : []), [show, episodesBySeason, today]);

  if (error) return <Failure text={error} />;
  if (!data) return <p class="loading">Loading…</p>;
  if (!show) return <Failure text="There is no show with this address. Search for it instead." />;

  const followed = show.libraryEntry?.followed ?? false;
  const archived = show.libraryEntry?.archived ?? false;
  const regular = progress.filter((season) => season.number !== 0);
  const specials = progress.find((season) => season.number === 0);
  const watchedCount = regular.reduce((sum, season) => sum + season.watchedCount, 0);
  const regularCount = regular.reduce((sum, season) => sum + season.episodeCount, 0);
  const next = show.upNext;
  const nextRow = next ? (episodesBySeason.get(next.season)?.find((episode) => episode.databaseId === next.databaseId) ?? { ...next, watched: false }) : null;

  return (
    <section class="show-page">
      <div class="show-head">
        <Poster src={show.poster} size="large" />
        <div>
          <PageTitle>{show.title}</PageTitle>
          <p class="hint">
            {watchedCount} of {regularCount} episodes watched
            {specials ? ` · ${specials.episodeCount} ${specials.episodeCount === 1 ? 'special' : 'specials'}` : ''}
            {archived ? ' · archived' : followed ? ' · following' : ''}
          </p>
          <div class="actions">
            <button type="button" class={followed ? undefined : 'primary'} aria-pressed={followed} disabled={followBusy} onClick={() => void follow({ followed: !followed }, followed ? `${show.title} is no longer followed.` : `${show.title} is now followed.`)}>
              {followed ? 'Following' : 'Follow'}
            </button>
            <button type="button" disabled={followBusy} onClick={() => void follow({ archived: !archived }, archived ? `${show.title} is back from the archive.` : `${show.title} is archived: it leaves your feeds, its history stays.`)}>
              {archived ? 'Unarchive' : 'Archive'}
            </button>
            <button type="button" onClick={() => seasonBulk(null, true)}>
              Mark all aired watched…
            </button>
            <button type="button" onClick={() => seasonBulk(null, false)}>
              Unmark all…
            </button>
          </div>
        </div>
      </div>
      <Notice outcome={outcome} />
      {show.overview && <p class="overview">{show.overview}</p>}
      <section class="card" aria-labelledby="next-heading">
        <h2 id="next-heading">Next episode</h2>
        {next && nextRow ? (
          <p>
            <strong>{next.code}</strong>
            {next.title ? ` · ${next.title}` : ''} <span class="hint">({formatDate(next.airDate)})</span>{' '}
            <button type="button" class="primary" onClick={() => void toggle(nextRow)}>
              Watched<span class="visually-hidden"> {next.code}</span>
            </button>{' '}
            <button type="button" class="link" onClick={() => goTo(next.season, next.databaseId)}>
              Show in the list<span class="visually-hidden"> ({next.code})</span>
            </button>
          </p>
        ) : (
          <p class="hint">{show.episodeCount === 0 ? 'The catalog has no episodes of this show yet.' : show.skippedEpisodeCount > 0 ? 'Nothing aired is left after the furthest watched.' : 'Nothing aired is left to watch.'}</p>
        )}
        {show.skippedEpisodeCount > 0 && show.firstSkippedEpisode && (
          <p class="holes">
            {show.skippedEpisodeCount} earlier {show.skippedEpisodeCount === 1 ? 'episode' : 'episodes'} not watched.{' '}
            <button type="button" class="link" onClick={() => goTo(show.firstSkippedEpisode!.season, show.firstSkippedEpisode!.databaseId)}>
              Show the first ({show.firstSkippedEpisode.code})
            </button>
          </p>
        )}
        <div class="field inline">
          <label for="up-next-rule">Up next offers</label>
          <select id="up-next-rule" value={show.ownUpNextRule ?? ''} disabled={ruleBusy} onChange={(event) => void changeRule((event.currentTarget.value || null) as UpNextRule | null)}>
            <option value="">the account's choice ({ruleShort[data.accountRule ?? show.upNextRule]})</option>
            <option value="AFTER_LAST_WATCHED">{ruleShort.AFTER_LAST_WATCHED}</option>
            <option value="FIRST_UNWATCHED">{ruleShort.FIRST_UNWATCHED}</option>
          </select>
        </div>
      </section>
      {progress.length > 1 && (
        <div class="field inline season-jump">
          <label for="season-jump">Jump to</label>
          <select
            id="season-jump"
            value=""
            onChange={(event) => {
              const season = Number(event.currentTarget.value);
              event.currentTarget.value = '';
              if (Number.isInteger(season)) openSeason(season, true);
            }}
          >
            <option value="">a season…</option>
            {[...regular, ...(specials ? [specials] : [])].map((season) => (
              <option key={season.number} value={String(season.number)}>
                {seasonTitle(season.number)} ({season.watchedAiredCount} of {season.airedCount} aired watched)
              </option>
            ))}
          </select>
        </div>
      )}
      {[...regular, ...(specials ? [specials] : [])].map((season) => (
        <Season
          key={season.number}
          show={show.title}
          progress={season}
          episodes={episodesBySeason.get(season.number)}
          expanded={openSeasons?.has(season.number) ?? false}
          today={today}
          onExpand={toggleSeason}
          onToggle={toggle}
          onUpTo={upTo}
          onBulk={seasonBulk}
        />
      ))}
      <BulkDialog bulk={bulk} onCancel={() => setBulk(null)} onConfirm={(date, includeSpecials) => bulk && void runBulk(bulk, date, includeSpecials)} />
    </section>
  );
}

/** Where the page opens: the next episode; else the season last watched in (where the person is); else season 1. */
function startingPoint(show: Show): { season: number; episodeId: number | null } | null {
  if (show.upNext) return { season: show.upNext.season, episodeId: show.upNext.databaseId };
  const regular = show.seasons.filter((season) => season.number !== 0);
  const watchedIn = [...regular].reverse().find((season) => season.watchedCount > 0);
  const season = watchedIn ?? regular[0] ?? show.seasons[0];
  return season ? { season: season.number, episodeId: null } : null;
}

/** The up-next rules as a list of choices words them. */
const ruleShort: Record<UpNextRule, string> = { AFTER_LAST_WATCHED: 'after the furthest watched', FIRST_UNWATCHED: 'the first unwatched' };

const seasonTitle = (number: number) => (number === 0 ? 'Specials' : `Season ${number}`);

/** A row's height in pixels (3.5rem: every episode row has it, so an open season's height is known before it is drawn). */
let rowHeight: number | undefined;
function rowPixels(): number {
  rowHeight ??= 3.5 * (parseFloat(getComputedStyle(document.documentElement).fontSize) || 16);
  return rowHeight;
}

/** Rows drawn beyond the screen each way, and the step the drawn range moves by (fewer renders while scrolling). */
const overscan = 12;
const rangeStep = 8;

/** The rows of a list of `count` fixed-height rows that are on or near the screen: [start, end). */
function useRowsInView(list: RefObject<HTMLElement>, count: number): [number, number] {
  const [range, setRange] = useState<[number, number]>([0, Math.min(count, 2 * overscan)]);
  useEffect(() => {
    let frame = 0;
    const measure = () => {
      frame = 0;
      const element = list.current;
      if (!element) return;
      const row = rowPixels();
      const top = element.getBoundingClientRect().top;
      const first = Math.max(0, Math.floor(-top / row) - overscan);
      const last = Math.min(count, Math.ceil((window.innerHeight - top) / row) + overscan);
      const start = Math.floor(first / rangeStep) * rangeStep;
      const end = Math.max(start, Math.min(count, Math.ceil(last / rangeStep) * rangeStep));
      setRange((before) => (before[0] === start && before[1] === end ? before : [start, end]));
    };
    const schedule = () => {
      if (!frame) frame = requestAnimationFrame(measure);
    };
    measure();
    window.addEventListener('scroll', schedule, { passive: true });
    window.addEventListener('resize', schedule);
    return () => {
      cancelAnimationFrame(frame);
      window.removeEventListener('scroll', schedule);
      window.removeEventListener('resize', schedule);
    };
  }, [list, count]);
  return range;
}

interface SeasonProps {
  show: string;
  progress: SeasonProgress;
  /** Its episodes once read; undefined while not. */
  episodes: EpisodeRow[] | undefined;
  expanded: boolean;
  today: string;
  onExpand: (season: number) => void;
  onToggle: (episode: EpisodeRow) => void;
  onUpTo: (episode: EpisodeRow, watched: boolean) => void;
  onBulk: (season: number, watched: boolean) => void;
}

const Season = memo(function Season({ show, progress, episodes, expanded, today, onExpand, onToggle, onUpTo, onBulk }: SeasonProps) {
  const number = progress.number;
  const title = seasonTitle(number);
  const listId = `season-list-${number}`;
  return (
    <section class="card season" id={`season-${number}`} aria-labelledby={`season-heading-${number}`}>
      <div class="season-head">
        <h2 id={`season-heading-${number}`}>
          <button type="button" class="season-toggle" aria-expanded={expanded} aria-controls={listId} onClick={() => onExpand(number)}>
            {title} <span class="count">({progress.watchedCount} of {progress.episodeCount} watched)</span>
          </button>
        </h2>
        <div class="actions">
          <button type="button" onClick={() => onBulk(number, true)}>
            Mark {number === 0 ? 'specials' : 'season'} watched…<span class="visually-hidden"> {title}</span>
          </button>
          <button type="button" onClick={() => onBulk(number, false)}>
            Unmark…<span class="visually-hidden"> {title}</span>
          </button>
        </div>
      </div>
      <progress class="season-progress" max={Math.max(1, progress.airedCount)} value={progress.watchedAiredCount} aria-label={`${title}: ${progress.watchedAiredCount} of ${progress.airedCount} aired episodes watched`} />
      {expanded && (episodes ? <EpisodeList id={listId} show={show} episodes={episodes} today={today} onToggle={onToggle} onUpTo={onUpTo} /> : <p class="loading" id={listId} style={{ height: `${progress.episodeCount * 3.5}rem` }}>Loading…</p>)}
    </section>
  );
});

/** An open season's rows: the list has every row's height, only the rows near the screen are drawn (and a focused one kept). */
function EpisodeList({ id, show, episodes, today, onToggle, onUpTo }: { id: string; show: string; episodes: EpisodeRow[]; today: string; onToggle: (episode: EpisodeRow) => void; onUpTo: (episode: EpisodeRow, watched: boolean) => void }) {
  const list = useRef<HTMLOListElement>(null);
  const [start, end] = useRowsInView(list, episodes.length);
  const [focused, setFocused] = useState<number | null>(null);
  const indexes: number[] = [];
  if (focused !== null && focused < start && focused < episodes.length) indexes.push(focused);
  for (let index = start; index < end; index += 1) indexes.push(index);
  if (focused !== null && focused >= end && focused < episodes.length) indexes.push(focused);
  return (
    <ol
      class="episodes"
      id={id}
      ref={list}
      style={{ height: `${episodes.length * 3.5}rem` }}
      onFocusIn={(event) => {
        const row = (event.target as HTMLElement).closest('li');
        setFocused(row ? Number(row.dataset.index) : null);
      }}
    >
      {indexes.map((index) => {
        const episode = episodes[index]!;
        return <Episode key={episode.databaseId} index={index} total={episodes.length} show={show} episode={episode} aired={hasAired(episode, today)} onToggle={onToggle} onUpTo={onUpTo} />;
      })}
    </ol>
  );
}

interface EpisodeProps {
  index: number;
  total: number;
  show: string;
  episode: EpisodeRow;
  aired: boolean;
  onToggle: (episode: EpisodeRow) => void;
  onUpTo: (episode: EpisodeRow, watched: boolean) => void;
}

const Episode = memo(function Episode({ index, total, show, episode, aired, onToggle, onUpTo }: EpisodeProps) {
  return (
    <li class={episode.watched ? 'episode watched' : 'episode'} data-index={index} aria-posinset={index + 1} aria-setsize={total} style={{ top: `${index * 3.5}rem` }}>
      <button type="button" class="check" aria-pressed={episode.watched} aria-label={`${episode.code} of ${show} watched`} onClick={() => onToggle(episode)}>
        {episode.watched ? '✓' : ''}
      </button>
      <span class="episode-text">
        <span class="episode-title">
          <strong>{episode.code}</strong> {episode.title ?? ''}
        </span>
        <span class="hint">{aired ? formatDate(episode.airDate) : episode.airDate ? `airs ${formatDate(episode.airDate)}` : 'air date not known'}</span>
      </span>
      <button type="button" class="link" onClick={() => onUpTo(episode, !episode.watched)}>
        {episode.watched ? 'Unmark up to here' : 'Up to here'}
        <span class="visually-hidden"> ({episode.code})</span>
      </button>
    </li>
  );
});

/** The one confirmation of bulk actions: how many episodes, that only aired ones are marked, and the date to record. */
function BulkDialog({ bulk, onCancel, onConfirm }: { bulk: Bulk | null; onCancel: () => void; onConfirm: (date: MarkDate, includeSpecials: boolean) => void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [date, setDate] = useState<MarkDate>('NOW');
  const [specials, setSpecials] = useState(false);
  useEffect(() => {
    if (bulk) {
      setDate('NOW');
      setSpecials(false);
      if (!dialog.current?.open) dialog.current?.showModal();
    } else if (dialog.current?.open) dialog.current.close();
  }, [bulk]);
  const { taken, notAired } = bulk ? bulk.count(specials) : { taken: 0, notAired: 0 };
  const question = bulk ? `${bulk.watched ? 'Mark' : 'Unmark'} ${bulk.label}?` : '';
  return (
    <dialog ref={dialog} aria-labelledby="bulk-heading" onClose={onCancel}>
      <form
        method="dialog"
        onSubmit={(event) => {
          if ((event.submitter as HTMLButtonElement | null)?.value !== 'yes' || !bulk) return;
          onConfirm(date, specials);
        }}
      >
        <h2 id="bulk-heading">{question}</h2>
        {bulk?.watched ? (
          <p>
            Only episodes that have already aired are marked: {taken} {taken === 1 ? 'episode' : 'episodes'}
            {notAired > 0 ? `; ${notAired} not aired yet ${notAired === 1 ? 'is' : 'are'} left alone` : ''}.
          </p>
        ) : (
          <p>
            {taken} watched {taken === 1 ? 'episode is' : 'episodes are'} unmarked.
          </p>
        )}
        {bulk?.specialsOptional && (
          <label class="check">
            <input type="checkbox" checked={specials} onChange={(event) => setSpecials(event.currentTarget.checked)} /> Include specials
          </label>
        )}
        {bulk?.watched && (
          <fieldset>
            <legend>Date to record</legend>
            {(
              [
                ['NOW', 'Now'],
                ['AIR_DATE', 'Each episode’s air date'],
                ['UNKNOWN', 'Date unknown'],
              ] as const
            ).map(([value, text]) => (
              <label class="check" key={value}>
                <input type="radio" name="bulk-date" value={value} checked={date === value} onChange={() => setDate(value)} /> {text}
              </label>
            ))}
          </fieldset>
        )}
        <div class="actions">
          <button value="no" autofocus>
            Cancel
          </button>
          <button value="yes" class="primary">
            {bulk?.watched ? 'Mark watched' : 'Unmark'}
          </button>
        </div>
      </form>
    </dialog>
  );
}

function Failure({ text }: { text: string }) {
  return (
    <section>
      <PageTitle>Show</PageTitle>
      <p role="alert">{text}</p>
      <p>
        <a href="/search">Search</a>
      </p>
    </section>
  );
}
