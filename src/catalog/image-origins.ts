/**
 * Where posters may come from: the catalogs' own image hosts (docs/security.md, "Rows created
 * from import files, and posters"). A poster is an image every page showing the item loads, so a
 * host of an import file's choosing would learn who looked at what, when; only the catalogs' hosts
 * are kept from import files, and the web pages' Content-Security-Policy allows images from these
 * origins only (src/http/web-app.ts).
 *
 * The network catalogs' hosts are always on the list, whether their keys are set or not (an
 * Airdate export from a server with TMDB names TMDB's posters); a provider adds its own
 * (CatalogProvider.imageOrigins): TMDB's configured image URL, the offline file's posters' hosts.
 */
export const networkImageOrigins: readonly string[] = ['https://image.tmdb.org', 'https://artworks.thetvdb.com', 'https://images.igdb.com'];

/** The origin (`https://host[:port]`) of an http(s) URL, or undefined for anything else. */
export function imageOrigin(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'https:' || parsed.protocol === 'http:' ? parsed.origin : undefined;
  } catch {
    return undefined;
  }
}

/** Whether `url` is served from one of `origins`. */
export function isCatalogImage(url: string, origins: readonly string[]): boolean {
  const origin = imageOrigin(url);
  return origin !== undefined && origins.includes(origin);
}

/** The distinct origins of `urls` (nulls and non-http(s) values left out), in first-seen order. */
export function originsOf(urls: Iterable<string | null | undefined>): string[] {
  const origins = new Set<string>();
  for (const url of urls) {
    const origin = url ? imageOrigin(url) : undefined;
    if (origin) origins.add(origin);
  }
  return [...origins];
}
