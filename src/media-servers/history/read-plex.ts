import { isRecord, text, whole, withoutUndefined, type MediaIds } from '../sources/media-event.ts';
import { parsePlex } from '../sources/parse-plex.ts';
import { defaultPageSize, type OnProgress, type PulledPlay, type ReaderProps, type ServerReader, type ServerUser } from './pulled-play.ts';
import { getJson, PullError } from './server-client.ts';

/**
 * Plex Media Server's history, through its library API (`X-Plex-Token`, `Accept: application/json`):
 * `GET /library/sections` for the libraries, then each movie library's films (`type=1`) and each
 * show library's shows (`type=2`, for their ids) and episodes (`type=4`), with `includeGuids=1`,
 * paged with `X-Plex-Container-Start`/`X-Plex-Container-Size` (`totalSize` is the total). An item
 * with a `viewCount` was played, last at `lastViewedAt` (epoch seconds). Each `Metadata` entry
 * has the fields of a webhook's `Metadata` and is read by the webhook's parser (parse-plex.ts):
 * the same `Guid` ids and legacy agents' `guid`.
 *
 * Plex answers a token's own views: the plays pulled are those of the account whose token is
 * given (the users listed, `GET /accounts`, say which accounts the server has; pick the one the
 * token is of).
 */
export function plexReader(props: ReaderProps): ServerReader {
  const get = (path: string, query: Record<string, string>, what: string) => getJson(props.target, props.base, path, query, { 'x-plex-token': props.key }, what);
  const pageSize = props.pageSize ?? defaultPageSize;
  const container = (answer: unknown, what: string): Record<string, unknown> => {
    if (!isRecord(answer) || !isRecord(answer.MediaContainer)) throw new PullError(`the server at ${props.base.host} answered ${what} with no MediaContainer: is it a Plex Media Server?`, 'address');
    return answer.MediaContainer;
  };
  /** Every entry of a section's listing of `type`, page by page, each page handed to `each`. */
  const listing = async (section: string, type: number, each: (entries: Record<string, unknown>[], total: number) => Promise<void>) => {
    let start = 0;
    let total = 0;
    do {
      const page = container(
        await get(`library/sections/${encodeURIComponent(section)}/all`, { type: String(type), includeGuids: '1', 'X-Plex-Container-Start': String(start), 'X-Plex-Container-Size': String(pageSize) }, `library ${section}'s items from ${start}`),
        `library ${section}'s items`,
      );
      const entries = Array.isArray(page.Metadata) ? page.Metadata.filter(isRecord) : [];
      total = whole(page.totalSize) ?? start + entries.length;
      start += entries.length;
      await each(entries, total);
      if (entries.length === 0) break;
    } while (start < total);
  };
  return {
    async users() {
      const accounts = container(await get('accounts', {}, 'the list of accounts'), 'the list of accounts').Account;
      return (Array.isArray(accounts) ? accounts : []).flatMap((account): ServerUser[] => {
        const id = isRecord(account) ? text(account.id) : undefined;
        const name = isRecord(account) ? text(account.name) : undefined;
        // Account 0 is the server's own, not a person.
        return id && name && id !== '0' ? [{ id, name }] : [];
      });
    },
    async plays(_userId, progress: OnProgress) {
      const sections = container(await get('library/sections', {}, 'the list of libraries'), 'the list of libraries').Directory;
      const libraries = (Array.isArray(sections) ? sections : []).filter(isRecord).flatMap((section) => {
        const key = text(section.key);
        const type = text(section.type);
        return key && (type === 'movie' || type === 'show') ? [{ key, type }] : [];
      });
      // Totals first (a page of none answers totalSize), so that progress says "of how many".
      const totals = new Map<string, number>();
      for (const library of libraries) {
        const type = library.type === 'movie' ? 1 : 4;
        const head = container(await get(`library/sections/${encodeURIComponent(library.key)}/all`, { type: String(type), 'X-Plex-Container-Start': '0', 'X-Plex-Container-Size': '0' }, `library ${library.key}'s size`), `library ${library.key}'s size`);
        totals.set(library.key, whole(head.totalSize) ?? 0);
      }
      const total = [...totals.values()].reduce((sum, count) => sum + count, 0);
      let read = 0;
      const plays: PulledPlay[] = [];
      for (const library of libraries) {
        const showIds = new Map<string, MediaIds>();
        if (library.type === 'show') {
          await listing(library.key, 2, async (shows) => {
            for (const show of shows) {
              const key = text(show.ratingKey);
              if (key) showIds.set(key, parsePlex({ event: 'library', Metadata: { ...show, type: 'movie' } }).ids);
            }
          });
        }
        await listing(library.key, library.type === 'movie' ? 1 : 4, async (entries) => {
          for (const entry of entries) {
            const views = whole(entry.viewCount);
            if (!views) continue;
            const event = parsePlex({ event: 'library', Metadata: entry });
            if ((event.kind !== 'episode' && event.kind !== 'movie') || event.title === undefined) continue;
            const seconds = whole(entry.lastViewedAt);
            const show = event.show && { title: event.show.title, ids: { ...(showIds.get(text(entry.grandparentRatingKey) ?? '') ?? {}), ...event.show.ids } };
            plays.push(withoutUndefined({ kind: event.kind, title: event.title, year: event.year, ids: event.ids, show, season: event.season, episode: event.episode, lastPlayed: seconds === undefined ? undefined : new Date(seconds * 1000), playCount: views, serverId: text(entry.ratingKey), unusedIds: event.unusedIds }));
          }
          read += entries.length;
          await progress(Math.min(read, total), total);
        });
      }
      return plays;
    },
  };
}
