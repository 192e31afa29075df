import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Config } from '../config.ts';
import type { Warner } from '../log.ts';
import { noMetrics, type CatalogOutcome, type Metrics } from '../metrics/metrics.ts';
import { storeCatalogRecords } from './catalog-store.ts';
import { createIgdbProvider } from './igdb-provider.ts';
import { createOfflineProvider } from './offline-catalog.ts';
import type { CatalogProvider } from './provider.ts';
import { createTmdbProvider } from './tmdb-provider.ts';
import { createTvdbProvider } from './tvdb-provider.ts';

/** Where `demo-catalog` writes by default, and where the server looks when no file is configured. */
export const defaultCatalogFile = (config: Config): string => path.join(config.dataDir, 'catalog.json');

/** The catalogs of a server, and what its start still has to do with them. */
export interface CatalogSetup {
  providers: CatalogProvider[];
  /**
   * Reads and checks the offline catalog, whole, then stores every record of it in the database,
   * so that its items have database ids; nothing without one. An invalid file throws
   * CatalogFileError (naming the path and the problem) before anything is stored, and the server
   * stops. The server does it once it listens, before it reports ready: on a restart the database
   * holds the file's items already (the 30-minute refresh reads the file again too), and checking
   * ~20 000 records costs a restart 0.1–0.3 s of CPU.
   */
  storeOffline(): Promise<void>;
}

/**
 * The catalog providers `config` asks for, in priority order: the offline catalog, then TMDB,
 * TheTVDB and IGDB when their keys are set (TMDB before TheTVDB, so a show both know takes
 * TMDB's fields and episode numbering). The offline catalog is `AIRDATE_CATALOG_FILE`, or
 * `<data folder>/catalog.json` when that variable is unset and the file exists (`storeOffline`).
 */
export function createCatalogProviders(config: Config, logger: Warner, metrics: Pick<Metrics, 'catalogRequest'> = noMetrics): CatalogSetup {
  const providers: CatalogProvider[] = [];
  const fallback = defaultCatalogFile(config);
  const file = config.catalogFile ?? (existsSync(fallback) ? fallback : undefined);
  const offline = file === undefined ? undefined : createOfflineProvider(file);
  if (offline) providers.push(offline);
  const { tmdb, tvdb, igdb } = config.catalogs;
  const warn = (message: string) => logger.warn(message);
  /** Each request a catalog sends is counted under the catalog's name. */
  const http = (catalog: string) => ({ observe: (outcome: CatalogOutcome, seconds: number) => metrics.catalogRequest({ catalog, outcome, seconds }) });
  if (tmdb) providers.push(createTmdbProvider({ ...tmdb, warn, http: http('tmdb') }));
  if (tvdb) providers.push(createTvdbProvider({ ...tvdb, warn, http: http('tvdb') }));
  if (igdb) providers.push(createIgdbProvider({ ...igdb, http: http('igdb') }));
  return {
    providers,
    async storeOffline() {
      if (offline) await storeCatalogRecords(await offline.listAll());
    },
  };
}
