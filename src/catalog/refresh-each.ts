import { CatalogHttpError } from './http-client.ts';
import type { CatalogRecord } from './provider.ts';

/** Items fetched at once by a per-item refresh; the provider's rate limit spaces the requests. */
const parallelItems = 4;

/** Failures before the first success after which the catalog counts as down. */
const failuresMeaningDown = 3;

/**
 * Refreshes items one request chain each (TMDB, TheTVDB). `fetchOne` returns null for an item the
 * catalog no longer knows. One item failing is logged and skipped: storing never deletes, so a
 * missing answer only delays that item's update. The whole refresh throws (the catalog is down or
 * refuses us) on an authentication failure, when the first few items all fail, or when every
 * item failed; that keeps a dead catalog from costing retries for each of thousands of items.
 */
export async function refreshEach<T>(
  provider: string,
  items: T[],
  fetchOne: (item: T) => Promise<CatalogRecord | null>,
  warn: (message: string) => void,
): Promise<CatalogRecord[]> {
  const records: CatalogRecord[] = [];
  let next = 0;
  let successes = 0;
  let failures = 0;
  let fatal: Error | undefined;

  const worker = async () => {
    while (fatal === undefined && next < items.length) {
      const item = items[next++]!;
      try {
        const record = await fetchOne(item);
        successes += 1;
        if (record) records.push(record);
      } catch (error) {
        failures += 1;
        const status = error instanceof CatalogHttpError ? error.status : undefined;
        if (status === 401 || status === 403 || (successes === 0 && failures >= failuresMeaningDown)) fatal ??= error as Error;
        else warn(`catalog provider ${provider}: refresh of one item failed: ${(error as Error).message}`);
        fatal ??= successes === 0 && failures === items.length ? (error as Error) : undefined;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(parallelItems, items.length) }, worker));
  if (fatal) throw fatal;
  return records;
}
