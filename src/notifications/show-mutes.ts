import { db } from '../db/client.ts';
import { NotFoundError } from '../errors.ts';
import { isUniqueViolation } from '../db/prisma-errors.ts';

/**
 * A per-show mute: the account hears nothing about a muted show on any channel (releases,
 * premieres, finales), while the show stays followed, in the feeds and the calendar.
 */

/** Mutes or unmutes the show for the account; NotFoundError for an unknown show. Idempotent. */
export async function setShowMuted(props: { accountId: number; showId: number; muted: boolean }): Promise<void> {
  const show = await db().show.findUnique({ where: { id: props.showId }, select: { id: true } });
  if (!show) throw new NotFoundError(`unknown show ${props.showId}`);
  if (!props.muted) {
    await db().mutedShow.deleteMany({ where: { accountId: props.accountId, showId: props.showId } });
    return;
  }
  try {
    await db().mutedShow.create({ data: { accountId: props.accountId, showId: props.showId } });
  } catch (error) {
    // Muted already (two requests at once included).
    if (!isUniqueViolation(error)) throw error;
  }
}

/** The shows the account muted. */
export async function mutedShowIds(accountId: number): Promise<Set<number>> {
  return new Set((await db().mutedShow.findMany({ where: { accountId }, select: { showId: true } })).map((row) => row.showId));
}
