import type { MediaIds, UnusedId } from '../sources/media-event.ts';
import type { PullTarget } from './server-client.ts';

/**
 * One played item as a media server's library API lists it (Jellyfin and Emby's `Users/{id}/Items`,
 * Plex's section listings), read into the same fields a webhook's event has, so that it is matched
 * by the same ids: the item's own ids (an episode's, never its show's), the show's ids where the
 * server keeps them, season and episode numbers, the last played time and the play count.
 */
export interface PulledPlay {
  kind: 'episode' | 'movie';
  /** The episode's or the film's title. */
  title: string;
  year?: number;
  ids: MediaIds;
  /** Episodes: the show, with its ids when the server has them. */
  show?: { title?: string; ids: MediaIds };
  season?: number;
  episode?: number;
  /** A multi-episode file's last episode. */
  episodeEnd?: number;
  /** When it was last played (the server keeps no date of the plays before). */
  lastPlayed?: Date;
  /** Times played, where the server counts them. */
  playCount?: number;
  /** The server's own id of the item (the report names it). */
  serverId?: string;
  unusedIds?: UnusedId[];
}

/** A server's user a pull may read the plays of. */
export interface ServerUser {
  id: string;
  name: string;
}

/** Progress of a pull's reading: items read of the total the server announced. */
export type OnProgress = (read: number, total: number) => Promise<void>;

/** What a pull needs of one kind of server: its users, and the chosen user's played items. */
export interface ServerReader {
  users(): Promise<ServerUser[]>;
  /**
   * Every played episode and film of `userId`, page by page (a page at a time in memory), calling
   * `progress` after each page; throws PullError (server-client.ts) when the server fails.
   */
  plays(userId: string, progress: OnProgress): Promise<PulledPlay[]>;
}

/** What a reader is made from: where the server is, its key, and where Airdate may connect. */
export interface ReaderProps {
  target: PullTarget;
  base: URL;
  key: string;
  /** Items asked per page (the servers' Limit, X-Plex-Container-Size). */
  pageSize?: number;
}

export const defaultPageSize = 1000;

/** Most users of a server listed (a server of more lists its first). */
export const maxServerUsers = 200;
