import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { memo } from 'preact/compat';
import { request } from '../client.ts';
import { errorText, Notice, PageTitle, useLoad, type Outcome } from '../components.tsx';
import { graphql, type ResultOf } from '../graphql.ts';
import { formatDate, markEpisodes, markItems, setFollow, type EpisodeScope, type MarkDate } from '../library.ts';
import { useLibraryChanged } from '../library-events.ts';
import { useLocation } from '../router.ts';
import { Poster } from '../media.tsx';

const ShowQuery = graphql(`
  query ShowPage($id: Int!, $offset: Int!) {
    summary {
      date
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
        code
        title
        airDate
      }
      episodes(first: 500, offset: $offset) {
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

type Show = NonNullable<ResultOf<typeof ShowQuery>['show']>;
export type EpisodeRow = Show['episodes'][number];

/** The show with all its episodes (500 a request, the most Show.episodes gives) and the account's local today. */
export async function loadShow(id: number): Promise<{ show: Show | null; today: string }> {
  const first = await request(ShowQuery, { id, offset: 0 });
  const show = first.show;
  if (!show) return { show: null, today: first.summary.date };
  const episodes = [...show.episodes];
  while (episodes.length < show.episodeCount) {
    const next = (await request(ShowQuery, { id, offset: episodes.length })).show;
    if (!next || next.episodes.length === 0) break;
    episodes.push(...next.episodes);
  }
  return { show: { ...show, episodes }, today: first.summary.date };
}

/** What a bulk action asks about: which episodes, and whether it marks or unmarks. */
interface Bulk {
  scope: EpisodeScope;
  watched: boolean;
  /** "season 2", "everything up to S02E03", "the whole show". */
  label: string;
  /** The episodes it would take (the server decides; this is the confirmation's count). */
  candidates: EpisodeRow[];
  /** Whether the specials switch is offered (the whole show, up to a regular episode). */
  specialsOptional: boolean;
}

/**
 * A show: its seasons and episodes with air dates and watched state, marking one episode, a season
 * or everything up to an episode (watched: only what has aired; the date recorded chosen), the
 * same to unmark, follow and archive, and its next episode. Specials are listed apart and left out
 * of bulk marks unless asked for.
 */
export default function ShowPage() {
  const location = useLocation();
  const id = Number(location.path.split('/')[2]);
  const loader = useCallback(() => (Number.isInteger(id) && id > 0 ? loadShow(id) : Promise.resolve({ show: null, today: '' })), [id]);
  const { data, error, reload } = useLoad(loader);
  useLibraryChanged(reload);
  /** Marks made here not yet in the loaded data: shown at once, dropped on the next load. */
  const [overlay, setOverlay] = useState<{ data: unknown; marks: Map<number, boolean> }>({ data: undefined, marks: new Map() });
  const marks = overlay.data === data ? overlay.marks : new Map<number, boolean>();
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const [bulk, setBulk] = useState<Bulk | null>(null);
  const [followBusy, setFollowBusy] = useState(false);

  const show = data?.show ?? null;
  const today = data?.today ?? '';
  const episodes = useMemo(() => (show ? show.episodes.map((episode) => (marks.has(episode.databaseId) ? { ...episode, watched: marks.get(episode.databaseId)! } : episode)) : []), [show, marks]);
  const seasons = useMemo(() => {
    const bySeason = new Map<number, EpisodeRow[]>();
    for (const episode of episodes) bySeason.set(episode.season, [...(bySeason.get(episode.season) ?? []), episode]);
    return bySeason;
  }, [episodes]);

  const overlayMarks = (ids: number[], watched: boolean) => {
    const next = new Map(marks);
    ids.forEach((episodeId) => next.set(episodeId, watched));
    setOverlay({ data, marks: next });
    return () => setOverlay({ data, marks });
  };

  const toggle = useCallback(
    async (episode: EpisodeRow) => {
      if (!show) return;
      const rollback = overlayMarks([episode.databaseId], !episode.watched);
      setOutcome(null);
      try {
        await markItems('EPISODE', [episode.databaseId], !episode.watched, `${episode.code} of ${show.title}`);
      } catch (failure) {
        rollback();
        setOutcome({ kind: 'error', text: `${episode.code} was not ${episode.watched ? 'unmarked' : 'marked'}: ${errorText(failure)}` });
      }
    },
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [show, marks, data],
  );

  const upTo = useCallback(
    (episode: EpisodeRow, watched: boolean) => {
      const special = episode.season === 0;
      const before = (other: EpisodeRow) =>
        special ? other.season === 0 && other.number <= episode.number : other.season !== 0 && (other.season < episode.season || (other.season === episode.season && other.number <= episode.number));
      setBulk({ scope: { showId: id, upToEpisodeId: episode.databaseId }, watched, label: `everything up to ${episode.code}`, candidates: episodes.filter(before), specialsOptional: !special });
    },
    [episodes, id],
  );

  const runBulk = async (request: Bulk, date: MarkDate, includeSpecials: boolean) => {
    if (!show) return;
    setBulk(null);
    const scope = { ...request.scope, includeSpecials: request.specialsOptional ? includeSpecials : undefined };
    const taken = takenBy(request, includeSpecials, today);
    const rollback = overlayMarks(taken.map((episode) => episode.databaseId), request.watched);
    setOutcome(null);
    try {
      await markEpisodes(scope, request.watched, date, `${show.title}`);
    } catch (failure) {
      rollback();
      setOutcome({ kind: 'error', text: `Nothing was ${request.watched ? 'marked' : 'unmarked'}: ${errorText(failure)}` });
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

  if (error) return <Failure text={error} />;
  if (!data) return <p class="loading">Loading…</p>;
  if (!show) return <Failure text="There is no show with this address. Search for it instead." />;

  const followed = show.libraryEntry?.followed ?? false;
  const archived = show.libraryEntry?.archived ?? false;
  const regular = [...seasons.keys()].filter((season) => season !== 0).sort((a, b) => a - b);
  const specials = seasons.get(0) ?? [];
  const watchedCount = episodes.filter((episode) => episode.watched && episode.season !== 0).length;
  const regularCount = episodes.filter((episode) => episode.season !== 0).length;

  return (
    <section class="show-page">
      <div class="show-head">
        <Poster src={show.poster} size="large" />
        <div>
          <PageTitle>{show.title}</PageTitle>
          <p class="hint">
            {watchedCount} of {regularCount} episodes watched
            {specials.length > 0 ? ` · ${specials.length} ${specials.length === 1 ? 'special' : 'specials'}` : ''}
            {archived ? ' · archived' : followed ? ' · following' : ''}
          </p>
          <div class="actions">
            <button type="button" class={followed ? undefined : 'primary'} aria-pressed={followed} disabled={followBusy} onClick={() => void follow({ followed: !followed }, followed ? `${show.title} is no longer followed.` : `${show.title} is now followed.`)}>
              {followed ? 'Following' : 'Follow'}
            </button>
            <button type="button" disabled={followBusy} onClick={() => void follow({ archived: !archived }, archived ? `${show.title} is back from the archive.` : `${show.title} is archived: it leaves your feeds, its history stays.`)}>
              {archived ? 'Unarchive' : 'Archive'}
            </button>
            <button type="button" onClick={() => setBulk({ scope: { showId: id }, watched: true, label: 'the whole show', candidates: episodes, specialsOptional: true })}>
              Mark all aired watched…
            </button>
            <button type="button" onClick={() => setBulk({ scope: { showId: id }, watched: false, label: 'the whole show', candidates: episodes, specialsOptional: true })}>
              Unmark all…
            </button>
          </div>
        </div>
      </div>
      <Notice outcome={outcome} />
      {show.overview && <p class="overview">{show.overview}</p>}
      <section class="card" aria-labelledby="next-heading">
        <h2 id="next-heading">Next episode</h2>
        {show.upNext ? (
          <p>
            <strong>{show.upNext.code}</strong>
            {show.upNext.title ? ` · ${show.upNext.title}` : ''} <span class="hint">({formatDate(show.upNext.airDate)})</span>{' '}
            <button type="button" class="primary" onClick={() => void toggle(episodes.find((episode) => episode.databaseId === show.upNext!.databaseId) ?? { ...show.upNext!, season: 1, number: 0, watched: false })}>
              Watched<span class="visually-hidden"> {show.upNext.code}</span>
            </button>
          </p>
        ) : (
          <p class="hint">{episodes.length === 0 ? 'The catalog has no episodes of this show yet.' : 'Nothing aired is left to watch.'}</p>
        )}
      </section>
      {regular.map((season) => (
        <Season key={season} show={show.title} title={`Season ${season}`} episodes={seasons.get(season)!} today={today} onToggle={toggle} onUpTo={upTo}
          onBulk={(watched) => setBulk({ scope: { showId: id, season }, watched, label: `season ${season}`, candidates: seasons.get(season)!, specialsOptional: false })} />
      ))}
      {specials.length > 0 && (
        <Season show={show.title} title="Specials" episodes={specials} today={today} onToggle={toggle} onUpTo={upTo}
          onBulk={(watched) => setBulk({ scope: { showId: id, season: 0 }, watched, label: 'the specials', candidates: specials, specialsOptional: false })} />
      )}
      <BulkDialog bulk={bulk} today={today} onCancel={() => setBulk(null)} onConfirm={(date, includeSpecials) => bulk && void runBulk(bulk, date, includeSpecials)} />
    </section>
  );
}

/** The episodes a bulk action takes, as the server's rule picks them: marking takes aired ones only. */
function takenBy(bulk: Bulk, includeSpecials: boolean, today: string): EpisodeRow[] {
  return inScope(bulk, includeSpecials).filter((episode) => episode.watched !== bulk.watched && (!bulk.watched || hasAired(episode, today)));
}

/** A bulk action's episodes with or without the specials. */
const inScope = (bulk: Bulk, includeSpecials: boolean) => bulk.candidates.filter((episode) => !bulk.specialsOptional || includeSpecials || episode.season !== 0);
const hasAired = (episode: EpisodeRow, today: string) => episode.airDate !== null && episode.airDate <= today;

interface SeasonProps {
  show: string;
  title: string;
  episodes: EpisodeRow[];
  today: string;
  onToggle: (episode: EpisodeRow) => void;
  onUpTo: (episode: EpisodeRow, watched: boolean) => void;
  onBulk: (watched: boolean) => void;
}

const Season = memo(function Season({ show, title, episodes, today, onToggle, onUpTo, onBulk }: SeasonProps) {
  const headingId = `season-${title.replace(/\W+/g, '-').toLowerCase()}`;
  const watched = episodes.filter((episode) => episode.watched).length;
  return (
    <section class="card season" aria-labelledby={headingId}>
      <div class="season-head">
        <h2 id={headingId}>
          {title} <span class="count">({watched} of {episodes.length} watched)</span>
        </h2>
        <div class="actions">
          <button type="button" onClick={() => onBulk(true)}>
            Mark {title === 'Specials' ? 'specials' : 'season'} watched…<span class="visually-hidden"> {title}</span>
          </button>
          <button type="button" onClick={() => onBulk(false)}>
            Unmark…<span class="visually-hidden"> {title}</span>
          </button>
        </div>
      </div>
      <ol class="episodes">
        {episodes.map((episode) => (
          <Episode key={episode.databaseId} show={show} episode={episode} aired={hasAired(episode, today)} onToggle={onToggle} onUpTo={onUpTo} />
        ))}
      </ol>
    </section>
  );
});

const Episode = memo(function Episode({ show, episode, aired, onToggle, onUpTo }: { show: string; episode: EpisodeRow; aired: boolean; onToggle: (episode: EpisodeRow) => void; onUpTo: (episode: EpisodeRow, watched: boolean) => void }) {
  return (
    <li class={episode.watched ? 'episode watched' : 'episode'}>
      <button type="button" class="check" aria-pressed={episode.watched} aria-label={`${episode.code} of ${show} watched`} onClick={() => onToggle(episode)}>
        {episode.watched ? '✓' : ''}
      </button>
      <span class="episode-text">
        <strong>{episode.code}</strong> {episode.title ?? ''}
        <span class="hint"> {aired ? formatDate(episode.airDate) : episode.airDate ? `airs ${formatDate(episode.airDate)}` : 'air date not known'}</span>
      </span>
      <button type="button" class="link" onClick={() => onUpTo(episode, !episode.watched)}>
        {episode.watched ? 'Unmark up to here' : 'Up to here'}
        <span class="visually-hidden"> ({episode.code})</span>
      </button>
    </li>
  );
});

/** The one confirmation of bulk actions: how many episodes, that only aired ones are marked, and the date to record. */
function BulkDialog({ bulk, today, onCancel, onConfirm }: { bulk: Bulk | null; today: string; onCancel: () => void; onConfirm: (date: MarkDate, includeSpecials: boolean) => void }) {
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
  const taken = bulk ? takenBy(bulk, specials, today) : [];
  const notAired = bulk?.watched ? inScope(bulk, specials).filter((episode) => !episode.watched && !hasAired(episode, today)).length : 0;
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
            Only episodes that have already aired are marked: {taken.length} {taken.length === 1 ? 'episode' : 'episodes'}
            {notAired > 0 ? `; ${notAired} not aired yet ${notAired === 1 ? 'is' : 'are'} left alone` : ''}.
          </p>
        ) : (
          <p>
            {taken.length} watched {taken.length === 1 ? 'episode is' : 'episodes are'} unmarked.
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
