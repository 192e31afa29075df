import type { Config } from '../config.ts';
import { syncOfflineCatalog } from '../services/catalog.ts';
import { createOfflineProvider } from './offline-catalog.ts';
import type { CatalogProvider } from './provider.ts';

/**
 * The catalog providers `config` asks for, in priority order. The offline catalog file is read
 * and stored whole at start, so its items have database ids before the first request; an
 * invalid file throws CatalogFileError (naming the path and the problem) and stops the start.
 */
export async function createCatalogProviders(config: Config): Promise<CatalogProvider[]> {
  const providers: CatalogProvider[] = [];
  if (config.catalogFile !== undefined) {
    const offline = createOfflineProvider(config.catalogFile);
    await syncOfflineCatalog(offline);
    providers.push(offline);
  }
  return providers;
}
