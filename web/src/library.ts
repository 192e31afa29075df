import { request } from './client.ts';
import { graphql } from './graphql.ts';
import { notifyLibraryChanged } from './library-events.ts';
import { ownWriteStarted } from './live-updates.ts';
import { showUndo } from './toast.tsx';

export { undoMarks } from './toast.tsx';

/**
 * The library writes every page uses: marks (with the undo toast), bulk marks of a show, undo by
 * history entries, follow and archive. Each throws the server's message when it refuses, so a
 * page rolls its optimistic change back and shows why; each success tells open pages to reload.
 */

const MarkWatched = graphql(`
  mutation MarkWatched($input: MarkWatchedInput!) {
    markWatched(input: $input) {
      __typename
      ... on MutationMarkWatchedSuccess {
        data {
          changed
          itemIds
          historyIds
          feedVersion
        }
      }
      ... on Error {
        message
      }
    }
  }
`);

const MarkEpisodes = graphql(`
  mutation MarkEpisodes($input: MarkEpisodesInput!) {
    markEpisodes(input: $input) {
      __typename
      ... on MutationMarkEpisodesSuccess {
        data {
          changed
          itemIds
          historyIds
          feedVersion
        }
      }
      ... on Error {
        message
      }
    }
  }
`);

const SetFollow = graphql(`
  mutation SetFollow($input: SetFollowInput!) {
    setFollow(input: $input) {
      __typename
      ... on MutationSetFollowSuccess {
        data {
          changed
        }
      }
      ... on Error {
        message
      }
    }
  }
`);

const SetUpNextRule = graphql(`
  mutation SetUpNextRule($input: SetUpNextRuleInput!) {
    setUpNextRule(input: $input) {
      __typename
      ... on MutationSetUpNextRuleSuccess {
        data {
          changed
          feedVersion
        }
      }
      ... on Error {
        message
      }
    }
  }
`);

export type WatchKind = 'EPISODE' | 'MOVIE' | 'GAME';
export type UpNextRule = 'AFTER_LAST_WATCHED' | 'FIRST_UNWATCHED';

/** How each up-next rule is said on the pages. */
export const upNextRuleText: Record<UpNextRule, string> = {
  AFTER_LAST_WATCHED: 'the episode after the furthest watched',
  FIRST_UNWATCHED: 'the first unwatched aired episode',
};

/** Sets the account's up-next rule, or a show's own (null: the account's again). */
export async function setUpNextRule(rule: UpNextRule | null, showId?: number): Promise<void> {
  const result = await ownWrite(async () => (await request(SetUpNextRule, { input: { rule, showId } })).setUpNextRule);
  if (result.__typename !== 'MutationSetUpNextRuleSuccess') throw new Error(result.message);
  notifyLibraryChanged();
}
export type MarkDate = 'NOW' | 'AIR_DATE' | 'UNKNOWN';
export type FollowKind = 'SHOW' | 'MOVIE' | 'GAME';

/** Runs a mark, telling the live stream its feed version so that the stream's echo of it is not told again. */
async function ownWrite<T extends { __typename: string; data?: { feedVersion: number | null } }>(write: () => Promise<T>): Promise<T> {
  const written = ownWriteStarted();
  try {
    const result = await write();
    written(result.data?.feedVersion ?? null);
    return result;
  } finally {
    written(null);
  }
}

/** What a mark did, as the toast words it: "S01E02 of Show marked watched". */
function markedText(what: string, watched: boolean, changed: number): string {
  if (changed === 0) return `${what}: nothing to change`;
  return `${what} ${watched ? 'marked watched' : 'unmarked'}`;
}

/** Marks items of one kind, then offers to undo it for a few seconds. */
export async function markItems(kind: WatchKind, ids: number[], watched: boolean, what: string, date: MarkDate = 'NOW'): Promise<number> {
  const result = await ownWrite(async () => (await request(MarkWatched, { input: { kind, ids, watched, date } })).markWatched);
  if (result.__typename !== 'MutationMarkWatchedSuccess') throw new Error(result.message);
  notifyLibraryChanged(kind === 'EPISODE' ? { episodes: { ids: result.data.itemIds, watched } } : undefined);
  if (result.data.changed > 0) showUndo(markedText(what, watched, result.data.changed), result.data.historyIds);
  return result.data.changed;
}

export interface EpisodeScope {
  showId: number;
  season?: number;
  upToEpisodeId?: number;
  includeSpecials?: boolean;
}

/** Marks a show's episodes in bulk (aired ones only when marking watched), with the undo toast. */
export async function markEpisodes(scope: EpisodeScope, watched: boolean, date: MarkDate, what: string): Promise<number> {
  const result = await ownWrite(async () => (await request(MarkEpisodes, { input: { ...scope, watched, date } })).markEpisodes);
  if (result.__typename !== 'MutationMarkEpisodesSuccess') throw new Error(result.message);
  notifyLibraryChanged({ episodes: { ids: result.data.itemIds, watched } });
  const changed = result.data.changed;
  if (changed > 0) showUndo(`${changed} ${changed === 1 ? 'episode' : 'episodes'} of ${what} ${watched ? 'marked watched' : 'unmarked'}`, result.data.historyIds);
  else showUndo(`${what}: every episode was already ${watched ? 'watched' : 'unwatched'}`, []);
  return changed;
}

/** Follows, unfollows, archives or unarchives. */
export async function setFollow(kind: FollowKind, id: number, change: { followed?: boolean; archived?: boolean }): Promise<void> {
  const result = (await request(SetFollow, { input: { kind, id, ...change } })).setFollow;
  if (result.__typename !== 'MutationSetFollowSuccess') throw new Error(result.message);
  notifyLibraryChanged();
}

/** A date (YYYY-MM-DD) as the browser's locale writes it, read as that calendar day. */
export function formatDate(date: string | null | undefined): string {
  if (!date) return 'date not known';
  const [year, month, day] = date.split('-').map(Number);
  // One formatter for every date: toLocaleDateString builds one per call (~0.1 ms each, a show of 1 000 episodes).
  dateFormat ??= new Intl.DateTimeFormat(undefined, { year: 'numeric', month: 'short', day: 'numeric' });
  return dateFormat.format(new Date(year!, month! - 1, day!));
}
let dateFormat: Intl.DateTimeFormat | undefined;
