import { HttpError } from '../http/responses.ts';
import { listLimits } from '../limits.ts';

/**
 * `?limit=N` of GET /api/machine/summary, for clients that can build URLs (widgets, Home
 * Assistant's REST sensor): `upNext`, `today` and `week` hold at most N items. `undefined` when it
 * is not given; every other parameter (the token, a client's own additions) is ignored, as before.
 * @throws HttpError 400 unless it appears once as a whole number from 0 to listLimits.feedItems.max.
 */
export function summaryLimit(search: URLSearchParams): number | undefined {
  const values = search.getAll('limit');
  if (values.length === 0) return undefined;
  const refused = `limit must be a whole number from 0 to ${listLimits.feedItems.max}`;
  if (values.length > 1) throw new HttpError(400, `limit may be given once; ${refused}`);
  const text = values[0]!;
  // Digits only: Number() would accept ' 7', '1e3', '0x10' and '7.0'.
  if (!/^\d{1,9}$/.test(text)) throw new HttpError(400, refused);
  const limit = Number(text);
  if (limit > listLimits.feedItems.max) throw new HttpError(400, refused);
  return limit;
}
