import { useCallback, useMemo, useState } from 'preact/hooks';
import { request } from '../client.ts';
import { errorText, Notice, PageTitle, useLoad, type Outcome } from '../components.tsx';
import { graphql, type ResultOf } from '../graphql.ts';
import { formatDate, markItems } from '../library.ts';
import { useLibraryChanged } from '../library-events.ts';
import { useLocation } from '../router.ts';
import { NextSteps, Poster } from '../media.tsx';

const TitlesQuery = graphql(`
  query LibraryTitles($kind: MediaKind!, $after: String) {
    summary {
      date
    }
    library(kind: $kind, followed: true, first: 100, after: $after) {
      pageInfo {
        hasNextPage
        endCursor
      }
      edges {
        node {
          item {
            __typename
            ... on Movie {
              databaseId
              title
              poster
              releaseDate
              watched
            }
            ... on Game {
              databaseId
              title
              poster
              releaseDate
              watched
            }
          }
        }
      }
    }
  }
`);

type Item = Extract<ResultOf<typeof TitlesQuery>['library']['edges'][number]['node']['item'], { __typename: 'Movie' | 'Game' }>;
type Kind = 'MOVIE' | 'GAME';

/** Every followed movie or game, 100 a request (a library has a few thousand at most), and the account's today. */
async function loadTitles(kind: Kind): Promise<{ items: Item[]; today: string }> {
  const items: Item[] = [];
  let after: string | null = null;
  let today = '';
  for (let page = 0; page < 200; page += 1) {
    const data: ResultOf<typeof TitlesQuery> = await request(TitlesQuery, { kind, after });
    today = data.summary.date;
    for (const edge of data.library.edges) if (edge.node.item.__typename !== 'Show') items.push(edge.node.item as Item);
    if (!data.library.pageInfo.hasNextPage) break;
    after = data.library.pageInfo.endCursor ?? null;
  }
  return { items, today };
}

type State = 'toWatch' | 'released' | 'upcoming' | 'watched';

/** Which list an item is in: released (out, not watched), upcoming (not out yet or no date), watched. */
function stateOf(item: Item, today: string): Exclude<State, 'toWatch'> {
  if (item.watched) return 'watched';
  return item.releaseDate !== null && item.releaseDate <= today ? 'released' : 'upcoming';
}

/** Items drawn per list before "Show more". */
const pageSize = 50;

/**
 * Movies or games (by the path): the followed ones by state — to watch (everything not watched yet),
 * released, upcoming, watched — with mark watched (played) and undo.
 */
export default function TitlesPage() {
  const location = useLocation();
  const kind: Kind = location.path.startsWith('/games') ? 'GAME' : 'MOVIE';
  const words = kind === 'MOVIE' ? { title: 'Movies', items: 'movies', watched: 'Watched', toWatch: 'To watch', mark: 'Watched' } : { title: 'Games', items: 'games', watched: 'Played', toWatch: 'To play', mark: 'Played' };
  const loader = useCallback(() => loadTitles(kind), [kind]);
  const { data, error, reload } = useLoad(loader);
  useLibraryChanged(reload);
  const [state, setState] = useState<State>('toWatch');
  const [shown, setShown] = useState(pageSize);
  const [overlay, setOverlay] = useState<{ data: unknown; marks: Map<number, boolean> }>({ data: undefined, marks: new Map() });
  const marks = overlay.data === data ? overlay.marks : new Map<number, boolean>();
  const [outcome, setOutcome] = useState<Outcome | null>(null);

  const items = useMemo(() => (data?.items ?? []).map((item) => (marks.has(item.databaseId) ? { ...item, watched: marks.get(item.databaseId)! } : item)), [data, marks]);
  const today = data?.today ?? '';
  const lists = useMemo(() => {
    const grouped: Record<State, Item[]> = { toWatch: [], released: [], upcoming: [], watched: [] };
    for (const item of items) {
      const itemState = stateOf(item, today);
      grouped[itemState].push(item);
      if (itemState !== 'watched') grouped.toWatch.push(item);
    }
    // Released: newest first; upcoming: soonest first (no date last); watched and to watch by title.
    grouped.released.sort((a, b) => (b.releaseDate ?? '').localeCompare(a.releaseDate ?? ''));
    grouped.upcoming.sort((a, b) => (a.releaseDate ?? '9999').localeCompare(b.releaseDate ?? '9999'));
    return grouped;
  }, [items, today]);

  const mark = async (item: Item) => {
    const next = new Map(marks).set(item.databaseId, !item.watched);
    setOverlay({ data, marks: next });
    setOutcome(null);
    try {
      await markItems(kind, [item.databaseId], !item.watched, item.title);
    } catch (failure) {
      setOverlay({ data, marks });
      setOutcome({ kind: 'error', text: `${item.title} was not changed: ${errorText(failure)}` });
    }
  };

  const tabs: [State, string][] = [
    ['toWatch', words.toWatch],
    ['released', 'Released'],
    ['upcoming', 'Upcoming'],
    ['watched', words.watched],
  ];
  const list = lists[state];
  return (
    <section>
      <PageTitle>{words.title}</PageTitle>
      {error && <p role="alert">{error}</p>}
      {!data && !error && <p class="loading">Loading…</p>}
      <Notice outcome={outcome} />
      {data && data.items.length === 0 && (
        <NextSteps>
          <p>You follow no {words.items} yet. To add some:</p>
        </NextSteps>
      )}
      {data && data.items.length > 0 && (
        <>
          <div class="tabs" role="group" aria-label="Show">
            {tabs.map(([value, label]) => (
              <button key={value} type="button" aria-pressed={state === value} onClick={() => (setState(value), setShown(pageSize))}>
                {label} ({lists[value].length})
              </button>
            ))}
          </div>
          <h2>{tabs.find(([value]) => value === state)![1]}</h2>
          {list.length === 0 && <p class="hint">Nothing here.</p>}
          <ul class="items-list">
            {list.slice(0, shown).map((item) => (
              <li class="item" key={item.databaseId}>
                <Poster src={item.poster} />
                <div class="item-text">
                  <span class="title">{item.title}</span>
                  <span class="hint">{item.releaseDate && item.releaseDate > today ? `releases ${formatDate(item.releaseDate)}` : formatDate(item.releaseDate)}</span>
                </div>
                <button type="button" class={item.watched ? undefined : 'primary'} aria-pressed={item.watched} aria-label={`${words.mark}: ${item.title}`} onClick={() => void mark(item)}>
                  {words.mark}
                </button>
              </li>
            ))}
          </ul>
          {list.length > shown && (
            <button type="button" onClick={() => setShown(shown + pageSize)}>
              Show more ({list.length - shown} left)
            </button>
          )}
        </>
      )}
    </section>
  );
}
