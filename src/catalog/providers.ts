import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Config } from '../config.ts';
import type { Warner } from '../log.ts';
import { noMetrics, type CatalogOutcome, type Metrics } from '../metrics/metrics.ts';
import { syncOfflineCatalog } from '../services/catalog.ts';
import { createIgdbProvider } from './igdb-provider.ts';
import { createOfflineProvider } from './offline-catalog.ts';
import type { CatalogProvider } from './provider.ts';
import { createTmdbProvider } from './tmdb-provider.ts';
import { createTvdbProvider } from './tvdb-provider.ts';

/** Where `demo-catalog` writes by default, and where the server looks when no file is configured. */
export const defaultCatalogFile = (config: Config): string => path.join(config.dataDir, 'catalog.json');

/**
 * The catalog providers `config` asks for, in priority order: the offline catalog, then TMDB,
 * TheTVDB and IGDB when their keys are set (TMDB before TheTVDB, so a show both know takes
 * TMDB's fields and episode numbering). The offline catalog is `AIRDATE_CATALOG_FILE`, or
 * `<data folder>/catalog.json` when that variable is unset and the file exists. It is read and
 * stored whole at start, so its items have database ids before the first request; an invalid
 * file throws CatalogFileError (naming the path and the problem).
 */
export async function createCatalogProviders(config: Config, logger: Warner, metrics: Pick<Metrics, 'catalogRequest'> = noMetrics): Promise<CatalogProvider[]> {
  const providers: CatalogProvider[] = [];
  const fallback = defaultCatalogFile(config);
  const file = config.catalogFile ?? (existsSync(fallback) ? fallback : undefined);
  if (file !== undefined) {
    const offline = createOfflineProvider(file);
    await syncOfflineCatalog(offline);
    providers.push(offline);
  }
  const { tmdb, tvdb, igdb } = config.catalogs;
  const warn = (message: string) => logger.warn(message);
  /** Each request a catalog sends is counted under the catalog's name. */
  const http = (catalog: string) => ({ observe: (outcome: CatalogOutcome, seconds: number) => metrics.catalogRequest({ catalog, outcome, seconds }) });
  if (tmdb) providers.push(createTmdbProvider({ ...tmdb, warn, http: http('tmdb') }));
  if (tvdb) providers.push(createTvdbProvider({ ...tvdb, warn, http: http('tvdb') }));
  if (igdb) providers.push(createIgdbProvider({ ...igdb, http: http('igdb') }));
  return providers;
}
