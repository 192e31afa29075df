import { isRecord, kindOfType, providerIds, text, whole, type MediaEvent } from './media-event.ts';

/**
 * The item part of the nested bodies Emby and Jellyfin's older community plugin send: `Item` with
 * `Type`, `Name`, `SeriesName`, `ParentIndexNumber` (season), `IndexNumber` (episode),
 * `IndexNumberEnd` (the last of a multi-episode file), `ProductionYear` and `ProviderIds` (the
 * item's own: an episode's, which may hold only one id); `Series` with its own `ProviderIds` where
 * the server sends it (the community plugin does; Emby does not).
 */
export function nestedItem(body: Record<string, unknown>): Pick<MediaEvent, 'kind' | 'ids' | 'title' | 'year' | 'show' | 'season' | 'episode' | 'episodeEnd'> {
  const item = isRecord(body.Item) ? body.Item : {};
  const kind = kindOfType(item.Type);
  const ids = providerIds(item.ProviderIds);
  const title = text(item.Name);
  if (kind === 'movie') return { kind, ids, title, year: whole(item.ProductionYear) };
  if (kind !== 'episode') return { kind: undefined, ids, title };
  const series = isRecord(body.Series) ? body.Series : {};
  const episode = whole(item.IndexNumber);
  const episodeEnd = whole(item.IndexNumberEnd);
  return {
    kind,
    ids,
    title,
    show: { title: text(item.SeriesName) ?? text(series.Name), ids: providerIds(series.ProviderIds) },
    season: whole(item.ParentIndexNumber),
    episode,
    episodeEnd: episode !== undefined && episodeEnd !== undefined && episodeEnd > episode ? episodeEnd : undefined,
  };
}
