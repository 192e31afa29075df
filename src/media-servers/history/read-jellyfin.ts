import { isRecord, readProviderIds, text, time, whole, withoutUndefined, type MediaIds } from '../sources/media-event.ts';
import { nestedItem } from '../sources/nested-item.ts';
import { defaultPageSize, type PulledPlay, type ReaderProps, type ServerReader, type ServerUser } from './pulled-play.ts';
import { getJson, PullError } from './server-client.ts';

/**
 * Jellyfin's and Emby's history, through their documented REST API (the same on both, Emby's
 * older naming): `GET /Users` for the users (an API key from Dashboard → API Keys is an
 * administrator's and sees them all), then the user's played items
 * `GET /Users/{id}/Items?IsPlayed=true&Recursive=true&Fields=ProviderIds&IncludeItemTypes=Episode,Movie`
 * paged with `StartIndex`/`Limit` (`TotalRecordCount` is the total), each with `UserData`
 * (`PlayCount`, `LastPlayedDate`); then the shows' own ids, `GET /Users/{id}/Items?Ids=…&Fields=ProviderIds`
 * for the `SeriesId`s seen, a hundred at a time. The key goes in `Authorization: MediaBrowser
 * Token="…"` (Jellyfin's documented header) and `X-Emby-Token` (Emby's; Jellyfin's older one).
 */
export function jellyfinReader(props: ReaderProps, kind: 'jellyfin' | 'emby'): ServerReader {
  const headers: Record<string, string> = kind === 'jellyfin' ? { authorization: `MediaBrowser Client="Airdate", Token="${props.key}"`, 'x-emby-token': props.key } : { 'x-emby-token': props.key };
  const get = (path: string, query: Record<string, string>, what: string) => getJson(props.target, props.base, path, query, headers, what);
  const pageSize = props.pageSize ?? defaultPageSize;
  return {
    async users() {
      const answer = await get('Users', {}, 'the list of users');
      if (!Array.isArray(answer)) throw new PullError(`the server at ${props.base.host} answered the list of users with something else than a list: is it a ${kind === 'jellyfin' ? 'Jellyfin' : 'Emby'} server?`, 'address');
      return answer.flatMap((user): ServerUser[] => (isRecord(user) && text(user.Id) && text(user.Name) ? [{ id: text(user.Id)!, name: text(user.Name)! }] : []));
    },
    async plays(userId, progress) {
      const user = encodeURIComponent(userId);
      const plays: PulledPlay[] = [];
      const seriesOf = new Map<PulledPlay, string>();
      let start = 0;
      let total = 0;
      do {
        const page = await get(`Users/${user}/Items`, {
          IsPlayed: 'true',
          Recursive: 'true',
          Fields: 'ProviderIds',
          IncludeItemTypes: 'Episode,Movie',
          SortBy: 'SortName',
          SortOrder: 'Ascending',
          StartIndex: String(start),
          Limit: String(pageSize),
        }, `the played items from ${start}`);
        if (!isRecord(page) || !Array.isArray(page.Items)) throw new PullError(`the server at ${props.base.host} answered the played items with no Items list: is it a ${kind === 'jellyfin' ? 'Jellyfin' : 'Emby'} server?`, 'address');
        total = whole(page.TotalRecordCount) ?? start + page.Items.length;
        for (const item of page.Items) {
          const play = isRecord(item) ? playOf(item) : undefined;
          if (!play) continue;
          plays.push(play);
          const series = isRecord(item) ? text(item.SeriesId) : undefined;
          if (series && play.kind === 'episode') seriesOf.set(play, series);
        }
        start += page.Items.length;
        await progress(Math.min(start, total), total);
        if (page.Items.length === 0) break;
      } while (start < total);
      // The shows' own ids: episodes carry only theirs.
      const seriesIds = [...new Set(seriesOf.values())];
      const showIds = new Map<string, MediaIds>();
      for (let index = 0; index < seriesIds.length; index += 100) {
        const chunk = seriesIds.slice(index, index + 100);
        const answer = await get(`Users/${user}/Items`, { Ids: chunk.join(','), Fields: 'ProviderIds' }, 'the shows\' ids');
        const items = isRecord(answer) && Array.isArray(answer.Items) ? answer.Items : [];
        for (const series of items) if (isRecord(series) && text(series.Id)) showIds.set(text(series.Id)!, readProviderIds(series.ProviderIds).ids);
      }
      for (const [play, series] of seriesOf) play.show = { title: play.show?.title, ids: showIds.get(series) ?? {} };
      return plays;
    },
  };
}

/**
 * One item of the Items list as a play, read as a webhook's `Item` is (nested-item.ts: the same
 * fields, the same ids); undefined for a kind we do not track.
 */
function playOf(item: Record<string, unknown>): PulledPlay | undefined {
  const read = nestedItem({ Item: item });
  if (read.kind === undefined || read.title === undefined) return undefined;
  const userData = isRecord(item.UserData) ? item.UserData : {};
  return withoutUndefined({
    ...read,
    kind: read.kind as 'episode' | 'movie',
    title: read.title,
    lastPlayed: time(userData.LastPlayedDate),
    playCount: whole(userData.PlayCount),
    serverId: text(item.Id),
  });
}
