import { useEffect, useState } from 'preact/hooks';
import { request } from '../client.ts';
import { errorText, Notice, PageTitle, type Outcome } from '../components.tsx';
import { graphql, type ResultOf } from '../graphql.ts';
import { formatDate, setFollow, type FollowKind } from '../library.ts';
import { navigate, useLocation } from '../router.ts';
import { Poster } from '../media.tsx';

const SearchQuery = graphql(`
  query SearchCatalog($query: String!, $kind: MediaKind) {
    searchCatalog(query: $query, kind: $kind, first: 30) {
      __typename
      ... on Show {
        databaseId
        title
        poster
        episodeCount
        libraryEntry {
          followed
          archived
        }
      }
      ... on Movie {
        databaseId
        title
        poster
        releaseDate
        libraryEntry {
          followed
          archived
        }
      }
      ... on Game {
        databaseId
        title
        poster
        releaseDate
        libraryEntry {
          followed
          archived
        }
      }
    }
  }
`);

type Result = ResultOf<typeof SearchQuery>['searchCatalog'][number];
type Kind = 'SHOW' | 'MOVIE' | 'GAME';
const kindOf: Record<Result['__typename'], Kind> = { Show: 'SHOW', Movie: 'MOVIE', Game: 'GAME' };
const kindNames: Record<Kind, string> = { SHOW: 'Show', MOVIE: 'Movie', GAME: 'Game' };

/**
 * Search the catalogs (the stored one and every configured catalog, through searchCatalog) and
 * follow, unfollow or archive from the results; followed items say so. The query is kept in the
 * address (`?q=…&kind=…`), so back and reload show the same results.
 */
export default function SearchPage() {
  const location = useLocation();
  const query = location.search.get('q') ?? '';
  const kind = (location.search.get('kind') ?? '') as Kind | '';
  const [text, setText] = useState(query);
  const [selected, setSelected] = useState<Kind | ''>(kind);
  const [results, setResults] = useState<{ query: string; kind: string; items: Result[] }>();
  const [loading, setLoading] = useState(false);
  const [outcome, setOutcome] = useState<Outcome | null>(null);

  useEffect(() => {
    setText(query);
    setSelected(kind);
    if (!query.trim()) return setResults(undefined);
    let current = true;
    setLoading(true);
    setOutcome(null);
    request(SearchQuery, { query, kind: kind || null })
      .then((data) => current && setResults({ query, kind, items: data.searchCatalog }))
      .catch((error) => current && setOutcome({ kind: 'error', text: `The search failed: ${errorText(error)}` }))
      .finally(() => current && setLoading(false));
    return () => void (current = false);
  }, [query, kind]);

  /** Applies a follow change at once, and puts it back with the server's reason when refused. */
  const change = async (item: Result, next: { followed?: boolean; archived?: boolean }) => {
    const before = item.libraryEntry;
    const patch = (entry: Result['libraryEntry']) =>
      setResults((old) => old && { ...old, items: old.items.map((other) => (other === item || (other.__typename === item.__typename && other.databaseId === item.databaseId) ? ({ ...other, libraryEntry: entry } as Result) : other)) });
    patch({ followed: next.followed ?? before?.followed ?? false, archived: next.archived ?? before?.archived ?? false });
    setOutcome(null);
    try {
      await setFollow(kindOf[item.__typename] as FollowKind, item.databaseId, next);
      const verb = next.followed === true ? 'now followed' : next.followed === false ? 'no longer followed' : next.archived ? 'archived' : 'back from the archive';
      setOutcome({ kind: 'ok', text: `${item.title} is ${verb}.` });
    } catch (error) {
      patch(before);
      setOutcome({ kind: 'error', text: `${item.title} was not changed: ${errorText(error)}` });
    }
  };

  return (
    <section>
      <PageTitle>Search</PageTitle>
      <form
        class="card search-form"
        role="search"
        onSubmit={(event) => {
          event.preventDefault();
          const params = new URLSearchParams({ q: text.trim() });
          if (selected) params.set('kind', selected);
          navigate(`/search?${params}`);
        }}
      >
        <div class="field grow">
          <label for="search-text">Title</label>
          <input id="search-text" type="search" required maxLength={200} value={text} onInput={(event) => setText(event.currentTarget.value)} />
        </div>
        <div class="field">
          <label for="search-kind">Kind</label>
          <select id="search-kind" value={selected} onChange={(event) => setSelected(event.currentTarget.value as Kind | '')}>
            <option value="">Everything</option>
            <option value="SHOW">Shows</option>
            <option value="MOVIE">Movies</option>
            <option value="GAME">Games</option>
          </select>
        </div>
        <button class="primary" disabled={loading}>
          Search
        </button>
      </form>
      <Notice outcome={outcome} />
      {loading && <p class="loading">Searching…</p>}
      {results && !loading && (
        <section aria-labelledby="results-heading">
          <h2 id="results-heading">
            {results.items.length === 0 ? `Nothing found for “${results.query}”` : `Results for “${results.query}”`}
          </h2>
          {results.items.length === 0 && <p class="hint">Try another spelling or fewer words. Catalogs the server is configured with are searched too (see docs/configuration.md).</p>}
          <ul class="items-list">
            {results.items.map((item) => (
              <ResultRow key={`${item.__typename}:${item.databaseId}`} item={item} onChange={change} />
            ))}
          </ul>
        </section>
      )}
    </section>
  );
}

function ResultRow({ item, onChange }: { item: Result; onChange: (item: Result, next: { followed?: boolean; archived?: boolean }) => void }) {
  const followed = item.libraryEntry?.followed ?? false;
  const archived = item.libraryEntry?.archived ?? false;
  const kind = kindOf[item.__typename];
  const detail = item.__typename === 'Show' ? `${item.episodeCount} episodes` : formatDate(item.releaseDate);
  return (
    <li class="item">
      <Poster src={item.poster} />
      <div class="item-text">
        {item.__typename === 'Show' ? <a href={`/shows/${item.databaseId}`}>{item.title}</a> : <span class="title">{item.title}</span>}
        <span class="hint">
          {kindNames[kind]} · {detail}
        </span>
        {(followed || archived) && <span class="badge">{archived ? 'Archived' : 'Following'}</span>}
      </div>
      <div class="item-actions">
        <button type="button" class={followed ? undefined : 'primary'} aria-pressed={followed} onClick={() => onChange(item, { followed: !followed })}>
          {followed ? 'Following' : 'Follow'}
          <span class="visually-hidden"> {item.title}</span>
        </button>
        {kind === 'SHOW' && (
          <button type="button" onClick={() => onChange(item, { archived: !archived })}>
            {archived ? 'Unarchive' : 'Archive'}
            <span class="visually-hidden"> {item.title}</span>
          </button>
        )}
      </div>
    </li>
  );
}
