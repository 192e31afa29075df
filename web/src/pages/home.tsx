import type { ComponentChildren, VNode } from 'preact';
import { useCallback, useEffect, useState } from 'preact/hooks';
import { request } from '../client.ts';
import { errorText, Notice, PageTitle, useLoad, type Outcome } from '../components.tsx';
import { graphql, readFragment, type ResultOf } from '../graphql.ts';
import { formatDate, markItems } from '../library.ts';
import { useLibraryChanged } from '../library-events.ts';
import { NextSteps, Poster } from '../media.tsx';

const EpisodeItem = graphql(`
  fragment HomeEpisode on EpisodeFeedItem {
    id
    showId
    show
    episode
    episodeTitle
    airDate
    poster
  }
`);

/** The summary's own lists: the same fields and rules as GET /api/machine/summary. */
const HomeQuery = graphql(
  `
    query Home {
      summary {
        date
        counts {
          upNext
          airingToday
          airingWeek
          unwatchedEpisodes
        }
        upNext(first: 500) {
          ...HomeEpisode
        }
        today(first: 200) {
          ...HomeEpisode
        }
        week(first: 200) {
          ...HomeEpisode
        }
        releasing(first: 200) {
          __typename
          id
          kind
          title
          airDate
          poster
          ... on EpisodeFeedItem {
            showId
            episode
          }
        }
      }
      library(first: 1, followed: true) {
        edges {
          cursor
        }
      }
    }
  `,
  [EpisodeItem],
);

type Episode = ResultOf<typeof EpisodeItem>;
type Home = ResultOf<typeof HomeQuery>;

const loadHome = async () => request(HomeQuery);

/** How many items of a list are drawn before "Show all": a 500-show up next stays quick to draw. */
const firstShown = 24;

/**
 * Home: up next (one click marks the episode watched and the show moves on at once), airing today,
 * this week and releasing soon, straight from the summary's GraphQL fields (no rule of its own).
 */
export default function HomePage() {
  const { data, error, reload } = useLoad(loadHome);
  useLibraryChanged(reload);
  /** Episodes marked here whose show has not moved on in the data yet: hidden at once (optimistic). */
  const [pending, setPending] = useState<Set<number>>(new Set());
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  useEffect(() => setPending(new Set()), [data]);

  const watched = useCallback(
    async (item: Episode) => {
      setOutcome(null);
      setPending((old) => new Set(old).add(item.id));
      try {
        await markItems('EPISODE', [item.id], true, `${item.episode} of ${item.show}`);
        // Stays hidden until the reload the mark triggered brings the show's next episode.
      } catch (failure) {
        // Rolled back: the item shows again, with the server's reason.
        setPending((old) => {
          const next = new Set(old);
          next.delete(item.id);
          return next;
        });
        setOutcome({ kind: 'error', text: `${item.episode} of ${item.show} was not marked: ${errorText(failure)}` });
      }
    },
    [],
  );

  const summary = data?.summary;
  const hasLibrary = (data?.library.edges.length ?? 0) > 0;
  const upNext = summary ? summary.upNext.map((item) => readFragment(EpisodeItem, item)).filter((item) => !pending.has(item.id)) : [];

  return (
    <section>
      <PageTitle>Home</PageTitle>
      {error && <p role="alert">{error}</p>}
      {!data && !error && <p class="loading">Loading…</p>}
      <Notice outcome={outcome} />
      {summary && !hasLibrary && <NextSteps><p>Nothing followed yet. To fill this page:</p></NextSteps>}
      {summary && hasLibrary && (
        <>
          <FeedSection id="up-next" title="Up next" count={summary.counts.upNext} empty="Nothing to watch next: you are up to date with every show that has aired.">
            {upNext.map((item) => (
              <EpisodeRow key={item.id} item={item} action={<MarkButton item={item} onMark={watched} />} />
            ))}
          </FeedSection>
          <FeedSection id="today" title="Airing today" count={summary.counts.airingToday} empty="Nothing of yours airs today.">
            {summary.today.map((fragment) => {
              const item = readFragment(EpisodeItem, fragment);
              return <EpisodeRow key={item.id} item={item} />;
            })}
          </FeedSection>
          <FeedSection id="week" title="This week" count={summary.counts.airingWeek} empty="Nothing of yours airs in the next seven days.">
            {summary.week.map((fragment) => {
              const item = readFragment(EpisodeItem, fragment);
              return <EpisodeRow key={item.id} item={item} showDate />;
            })}
          </FeedSection>
          <FeedSection id="releasing" title="Releasing soon" count={summary.releasing.length} empty="Nothing releasing today or tomorrow.">
            {summary.releasing.map((item) => (
              <ReleaseRow key={`${item.kind}:${item.id}`} item={item} />
            ))}
          </FeedSection>
        </>
      )}
    </section>
  );
}

/** A titled list that draws its first items and the rest on request. */
function FeedSection({ id, title, count, empty, children }: { id: string; title: string; count: number; empty: string; children: VNode[] }) {
  const [all, setAll] = useState(false);
  const shown = all ? children : children.slice(0, firstShown);
  return (
    <section class="card feed" aria-labelledby={`${id}-heading`}>
      <h2 id={`${id}-heading`}>
        {title} <span class="count">({count})</span>
      </h2>
      {children.length === 0 ? <p class="hint">{empty}</p> : <ul class="items-list">{shown}</ul>}
      {!all && children.length > firstShown && (
        <button type="button" onClick={() => setAll(true)}>
          Show all {children.length}
        </button>
      )}
    </section>
  );
}

function EpisodeRow({ item, action, showDate }: { item: Episode; action?: ComponentChildren; showDate?: boolean }) {
  return (
    <li class="item">
      <Poster src={item.poster} />
      <div class="item-text">
        <a href={`/shows/${item.showId}`}>{item.show}</a>
        <span>
          {item.episode}
          {item.episodeTitle ? ` · ${item.episodeTitle}` : ''}
        </span>
        {showDate && <span class="hint">{formatDate(item.airDate)}</span>}
      </div>
      {action}
    </li>
  );
}

function MarkButton({ item, onMark }: { item: Episode; onMark: (item: Episode) => void }) {
  return (
    <button type="button" class="primary" aria-label={`Watched: ${item.episode} of ${item.show}`} onClick={() => onMark(item)}>
      Watched
    </button>
  );
}

type Release = Home['summary']['releasing'][number];

function ReleaseRow({ item }: { item: Release }) {
  const kind = item.kind === 'EPISODE' ? 'Episode' : item.kind === 'MOVIE' ? 'Movie' : 'Game';
  return (
    <li class="item">
      <Poster src={item.poster} />
      <div class="item-text">
        {item.__typename === 'EpisodeFeedItem' ? <a href={`/shows/${item.showId}`}>{item.title}</a> : <span class="title">{item.title}</span>}
        <span>
          {kind}
          {item.__typename === 'EpisodeFeedItem' ? ` ${item.episode}` : ''} · {formatDate(item.airDate)}
        </span>
      </div>
    </li>
  );
}
