import { fastWriter } from '../db/client.ts';
import type { WriteResult } from '../db/fast-write.ts';
import { applyToggle } from '../feeds/snapshot-cache.ts';
import { maxIntColumn } from '../limits.ts';
import { InputError, NotFoundError } from '../errors.ts';

export { itemColumn, type FollowKind, type WatchKind } from '../db/fast-write.ts';
import type { FollowKind, WatchKind } from '../db/fast-write.ts';

function checkId(id: number): void {
  if (!Number.isInteger(id) || id < 1 || id > maxIntColumn) {
    throw new InputError(`id must be a positive integer up to ${maxIntColumn}`, 'id');
  }
}

/** A write's outcome as the API answers it: a missing item is a 404. */
function answer({ outcome }: WriteResult, kind: WatchKind | FollowKind, id: number): { changed: boolean } {
  if (outcome === 'missing') throw new NotFoundError(`${kind} ${id} not found`);
  return { changed: outcome === 'changed' };
}

export interface SetWatchedProps {
  accountId: number;
  kind: WatchKind;
  /** Database id of the episode, movie or game. */
  id: number;
  watched: boolean;
  /** Where the change came from, kept in the history: `api`, `graphql`, `import:trakt`, … */
  source?: string;
  /** Time of the change; defaults to now (imports pass the file's timestamp). */
  at?: Date;
}

/**
 * Marks an item watched or unwatched. Idempotent: setting the current value again changes
 * nothing. A real change updates the state, appends one history entry and bumps the account's
 * feed version, all in one transaction. Never follows the show or touches other episodes.
 */
export async function setWatched(props: SetWatchedProps): Promise<{ changed: boolean }> {
  checkId(props.id);
  const change = { accountId: props.accountId, kind: props.kind, id: props.id, watched: props.watched, source: props.source ?? 'api', at: props.at ?? new Date() };
  const result = await fastWriter().setWatched(change);
  if (result.feedVersion !== null) applyToggle({ ...change, feedVersion: result.feedVersion });
  return answer(result, props.kind, props.id);
}

export interface SetFollowProps {
  accountId: number;
  kind: FollowKind;
  /** Database id of the show, movie or game. */
  id: number;
  /** Follow state to set; left as it is when undefined. */
  followed?: boolean;
  /** Archive state to set (shows only); left as it is when undefined. */
  archived?: boolean;
}

/**
 * Follows, unfollows, archives or unarchives an item. Unfollowing keeps the watch history, so
 * following again restores the old progress. Both flags are remembered as set explicitly by the
 * account, so later imports leave them alone.
 */
export async function setFollow(props: SetFollowProps): Promise<{ changed: boolean }> {
  checkId(props.id);
  if (props.followed === undefined && props.archived === undefined) {
    throw new InputError('followed or archived is required', 'followed');
  }
  if (props.archived !== undefined && props.kind !== 'show') {
    throw new InputError('archived applies to shows only', 'archived');
  }
  const change = { accountId: props.accountId, kind: props.kind, id: props.id, followed: props.followed, archived: props.archived, now: new Date() };
  return answer(await fastWriter().setFollow(change), props.kind, props.id);
}
