import { db } from '../db/client.ts';
import { maxIntColumn } from '../limits.ts';
import { retryOnUniqueViolation } from './prisma-errors.ts';
import { InputError, NotFoundError } from '../errors.ts';
import type { Prisma } from '../generated/prisma/client.ts';

export type WatchKind = 'episode' | 'movie' | 'game';
export type FollowKind = 'show' | 'movie' | 'game';

/** Column of WatchState / WatchEvent / LibraryItem that points at an item of each kind. */
export const itemColumn = { episode: 'episodeId', movie: 'movieId', game: 'gameId', show: 'showId' } as const;


function checkId(id: number): void {
  if (!Number.isInteger(id) || id < 1 || id > maxIntColumn) {
    throw new InputError(`id must be a positive integer up to ${maxIntColumn}`, 'id');
  }
}

async function assertItemExists(tx: Prisma.TransactionClient, kind: WatchKind | FollowKind, id: number): Promise<void> {
  const where = { where: { id }, select: { id: true } };
  const found =
    kind === 'episode' ? await tx.episode.findUnique(where)
    : kind === 'show' ? await tx.show.findUnique(where)
    : kind === 'movie' ? await tx.movie.findUnique(where)
    : await tx.game.findUnique(where);
  if (!found) throw new NotFoundError(`${kind} ${id} not found`);
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
  const column = itemColumn[props.kind];
  const at = props.at ?? new Date();
  // Two identical first writes at once: the loser's insert runs again and finds the row.
  return retryOnUniqueViolation(() => db().$transaction(async (tx) => {
    await assertItemExists(tx, props.kind, props.id);
    const key = { accountId: props.accountId, [column]: props.id };
    // A conditional update decides "did it change" atomically, even with concurrent writers.
    const flipped = await tx.watchState.updateMany({
      where: { ...key, watched: !props.watched },
      data: { watched: props.watched, changedAt: at },
    });
    if (flipped.count === 0) {
      const existing = await tx.watchState.findFirst({ where: key, select: { id: true } });
      if (existing) return { changed: false };
      if (!props.watched) return { changed: false }; // never watched: unwatching changes nothing
      await tx.watchState.create({ data: { ...key, kind: props.kind, watched: true, changedAt: at } });
    }
    await tx.watchEvent.create({
      data: { ...key, kind: props.kind, watched: props.watched, at, source: props.source ?? 'api' },
    });
    await tx.account.update({ where: { id: props.accountId }, data: { feedVersion: { increment: 1 } } });
    return { changed: true };
  }));
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
  const column = itemColumn[props.kind];
  const now = new Date();
  // Two identical first writes at once: the loser's insert runs again and finds the row.
  return retryOnUniqueViolation(() => db().$transaction(async (tx) => {
    await assertItemExists(tx, props.kind, props.id);
    const key = { accountId: props.accountId, [column]: props.id };
    const existing = await tx.libraryItem.findFirst({ where: key });
    const followed = props.followed ?? existing?.followed ?? false;
    const archived = props.archived ?? existing?.archived ?? false;
    const data = {
      followed,
      archived,
      followExplicit: (existing?.followExplicit ?? false) || props.followed !== undefined,
      archiveExplicit: (existing?.archiveExplicit ?? false) || props.archived !== undefined,
      followedAt: followed && !existing?.followed ? now : (existing?.followedAt ?? null),
    };
    if (existing) {
      const same = (Object.keys(data) as (keyof typeof data)[]).every((name) => sameValue(existing[name], data[name]));
      if (same) return { changed: false };
      await tx.libraryItem.update({ where: { id: existing.id }, data });
    } else {
      await tx.libraryItem.create({ data: { ...key, kind: props.kind, ...data } });
    }
    // Following and archiving change the calendar too (watching does not: setWatched bumps feedVersion only).
    await tx.account.update({ where: { id: props.accountId }, data: { feedVersion: { increment: 1 }, calendarVersion: { increment: 1 } } });
    return { changed: true };
  }));
}

function sameValue(a: unknown, b: unknown): boolean {
  return a instanceof Date && b instanceof Date ? a.getTime() === b.getTime() : a === b;
}
