import type { ComponentChildren } from 'preact';

/** A poster when the catalog has one (decorative: the title is always next to it), or a blank of the same size. */
export function Poster({ src, size = 'small' }: { src: string | null | undefined; size?: 'small' | 'large' }) {
  const [width, height] = size === 'small' ? [46, 69] : [120, 180];
  if (!src) return <span class={`poster poster-${size} poster-none`} aria-hidden="true" />;
  // A poster that cannot be loaded (the image host unreachable, a stale address) shows as the blank,
  // not as the browser's broken-image mark.
  return (
    <img
      class={`poster poster-${size}`}
      src={src}
      alt=""
      width={width}
      height={height}
      loading="lazy"
      decoding="async"
      referrerpolicy="no-referrer"
      onError={(event) => event.currentTarget.classList.add('poster-failed')}
    />
  );
}

/** What to do next when a list is empty: search and follow, import a file, connect a media server. */
export function NextSteps({ children }: { children?: ComponentChildren }) {
  return (
    <div class="empty">
      {children}
      <ul>
        <li>
          <a href="/search">Search and follow</a> shows, movies and games.
        </li>
        <li>
          <a href="/import-export">Import a file</a> from Trakt, Simkl, TV Time, Letterboxd, IMDb or Grouvee.
        </li>
        <li>
          Connect a media server or Home Assistant with the API token in <a href="/settings/developer">Developer settings</a>: what they mark shows up here.
        </li>
      </ul>
    </div>
  );
}
