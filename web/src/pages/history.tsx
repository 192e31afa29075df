import { useCallback, useState } from 'preact/hooks';
import { request } from '../client.ts';
import { errorText, formatTime, Notice, PageTitle, useLoad, type Outcome } from '../components.tsx';
import { graphql, type ResultOf } from '../graphql.ts';
import { undoMarks, type WatchKind } from '../library.ts';
import { useLibraryChanged } from '../library-events.ts';
import { navigate, useLocation } from '../router.ts';
import { NextSteps } from '../media.tsx';

const HistoryQuery = graphql(`
  query WatchHistory($kind: WatchKind, $offset: Int!) {
    watchHistory(kind: $kind) {
      total
      entries(first: 50, offset: $offset) {
        databaseId
        kind
        at
        dateUnknown
        estimated
        source
        episode {
          code
          title
          show {
            databaseId
            title
          }
        }
        movie {
          title
        }
        game {
          title
        }
      }
    }
  }
`);

type Entry = ResultOf<typeof HistoryQuery>['watchHistory']['entries'][number];
const perPage = 50;

/** What was watched when, newest first, 50 a page, by kind; each entry can be undone. */
export default function HistoryPage() {
  const location = useLocation();
  const kind = (location.search.get('kind') || null) as WatchKind | null;
  const page = Math.max(1, Number(location.search.get('page')) || 1);
  const loader = useCallback(() => request(HistoryQuery, { kind, offset: (page - 1) * perPage }), [kind, page]);
  const { data, error, reload } = useLoad(loader);
  useLibraryChanged(reload);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const [busy, setBusy] = useState<number>();

  const go = (next: { kind?: string | null; page?: number }) => {
    const params = new URLSearchParams();
    const nextKind = next.kind === undefined ? kind : next.kind;
    if (nextKind) params.set('kind', nextKind);
    if ((next.page ?? 1) > 1) params.set('page', String(next.page));
    navigate(`/history${params.size > 0 ? `?${params}` : ''}`);
  };

  const undo = async (entry: Entry) => {
    setBusy(entry.databaseId);
    setOutcome(null);
    try {
      await undoMarks([entry.databaseId]);
      setOutcome({ kind: 'ok', text: `${describe(entry)}: the mark was undone.` });
    } catch (failure) {
      setOutcome({ kind: 'error', text: `Not undone: ${errorText(failure)}` });
    } finally {
      setBusy(undefined);
    }
  };

  const history = data?.watchHistory;
  const pages = history ? Math.max(1, Math.ceil(history.total / perPage)) : 1;
  return (
    <section>
      <PageTitle>History</PageTitle>
      <div class="field inline">
        <label for="history-kind">Show</label>
        <select id="history-kind" value={kind ?? ''} onChange={(event) => go({ kind: event.currentTarget.value || null, page: 1 })}>
          <option value="">Everything</option>
          <option value="EPISODE">Episodes</option>
          <option value="MOVIE">Movies</option>
          <option value="GAME">Games</option>
        </select>
      </div>
      {error && <p role="alert">{error}</p>}
      {!data && !error && <p class="loading">Loading…</p>}
      <Notice outcome={outcome} />
      {history && history.total === 0 && (
        <NextSteps>
          <p>Nothing watched yet{kind ? ' of this kind' : ''}. What you mark watched shows up here. To start:</p>
        </NextSteps>
      )}
      {history && history.total > 0 && (
        <>
          <ol class="items-list history">
            {history.entries.map((entry) => (
              <li class="item" key={entry.databaseId}>
                <div class="item-text">
                  {entry.episode ? <a href={`/shows/${entry.episode.show.databaseId}`}>{entry.episode.show.title}</a> : <span class="title">{describe(entry)}</span>}
                  {entry.episode && (
                    <span>
                      {entry.episode.code}
                      {entry.episode.title ? ` · ${entry.episode.title}` : ''}
                    </span>
                  )}
                  <span class="hint">{when(entry)}</span>
                </div>
                <button type="button" disabled={busy === entry.databaseId} aria-label={`Undo: ${describe(entry)}, ${when(entry)}`} onClick={() => void undo(entry)}>
                  Undo
                </button>
              </li>
            ))}
          </ol>
          <nav class="pager" aria-label="History pages">
            <button type="button" disabled={page <= 1} onClick={() => go({ page: page - 1 })}>
              Newer
            </button>
            <span>
              Page {page} of {pages} ({history.total} entries)
            </span>
            <button type="button" disabled={page >= pages} onClick={() => go({ page: page + 1 })}>
              Older
            </button>
          </nav>
        </>
      )}
    </section>
  );
}

function describe(entry: Entry): string {
  if (entry.episode) return `${entry.episode.show.title} ${entry.episode.code}`;
  return entry.movie?.title ?? entry.game?.title ?? 'A removed item';
}

/** "Watched 3 Mar 2026, 20:00", "Watched, date unknown (marked …)", "Played …" for a game. */
function when(entry: Entry): string {
  const verb = entry.kind === 'GAME' ? 'Played' : 'Watched';
  if (entry.dateUnknown) return `${verb}, date unknown (marked ${formatTime(entry.at)})`;
  return `${verb} ${formatTime(entry.at)}${entry.estimated ? ' (estimated)' : ''}`;
}
