import { isRecord, kindOfType, readProviderIds, text, whole, type MediaEvent } from './media-event.ts';

/**
 * The item part of the nested bodies Emby and Jellyfin's older community plugin send: `Item` with
 * `Type`, `Name`, `SeriesName`, `ParentIndexNumber` (season), `IndexNumber` (episode),
 * `IndexNumberEnd` (the last of a multi-episode file), `ProductionYear` and `ProviderIds` (the
 * item's own: an episode's, which may hold only one id); `Series` with its own `ProviderIds` where
 * the server sends it (the community plugin does; Emby does not).
 */
export function nestedItem(body: Record<string, unknown>): Pick<MediaEvent, 'kind' | 'ids' | 'title' | 'year' | 'show' | 'season' | 'episode' | 'episodeEnd' | 'unusedIds'> {
  const item = isRecord(body.Item) ? body.Item : {};
  const kind = kindOfType(item.Type);
  const own = readProviderIds(item.ProviderIds);
  const ids = own.ids;
  const title = text(item.Name);
  const unused = (more: typeof own.unused = []) => {
    const all = [...own.unused, ...more];
    return all.length > 0 ? { unusedIds: all } : {};
  };
  if (kind === 'movie') return { kind, ids, title, year: whole(item.ProductionYear), ...unused() };
  if (kind !== 'episode') return { kind: undefined, ids, title };
  const series = isRecord(body.Series) ? body.Series : {};
  const show = readProviderIds(series.ProviderIds);
  const episode = whole(item.IndexNumber);
  const episodeEnd = whole(item.IndexNumberEnd);
  return {
    kind,
    ids,
    title,
    show: { title: text(item.SeriesName) ?? text(series.Name), ids: show.ids },
    season: whole(item.ParentIndexNumber),
    episode,
    episodeEnd: episode !== undefined && episodeEnd !== undefined && episodeEnd > episode ? episodeEnd : undefined,
    ...unused(show.unused.map((id) => ({ ...id, provider: `show's ${id.provider}` }))),
  };
}
