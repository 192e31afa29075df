import { db } from '../db/client.ts';
import { accountVersionBumps } from '../db/stale-versions.ts';
import { InputError, NotFoundError } from '../errors.ts';
import { builder } from '../graphql/builder.ts';
import { writeErrors } from '../graphql/errors.ts';
import { fieldCosts, maxIntColumn, transactionTimes } from '../limits.ts';
import { feedWindow, hasAired, scanShow, storedUpNextRule, type ShowProgress } from '../feeds/rules.ts';
import type { SnapshotEpisode, UpNextRule } from '../feeds/types.ts';
import { localDate, type LocalDate } from '../time/dates.ts';

/**
 * A show's progress for the viewer, what a page needs to draw a long show without reading every
 * episode: its seasons with their counts, its next episode by the viewer's up-next rule, and the
 * episodes skipped before the furthest watched (the holes). The up-next rule — after the furthest
 * watched (decisions.md's, the default) or the first unwatched aired — is the account's, or the
 * show's own where the viewer set one; the feeds (src/feeds/rules.ts) honour the same.
 */

export const UpNextRuleEnum = builder.enumType('UpNextRule', {
  description: 'Which episode of a show up next offers.',
  values: {
    AFTER_LAST_WATCHED: { value: 'after-last-watched', description: 'The earliest aired unwatched episode after the furthest watched one (the default; earlier unwatched episodes are skipped).' },
    FIRST_UNWATCHED: { value: 'first-unwatched', description: 'The earliest aired unwatched episode of all: a show with holes offers its first hole.' },
  } as const,
});

interface ViewerShow {
  episodes: SnapshotEpisode[];
  /** The rule that applies (the show's own, else the account's). */
  rule: UpNextRule;
  /** The show's own rule, null when it follows the account's. */
  ownRule: UpNextRule | null;
}

/** A show's episodes with the viewer's watched flags and up-next rule, read once per request however many fields ask. */
const viewerShowReads = new WeakMap<object, Map<number, Promise<ViewerShow>>>();
function viewerShow(context: { account: { id: number } }, showId: number): Promise<ViewerShow> {
  const reads = viewerShowReads.get(context) ?? new Map<number, Promise<ViewerShow>>();
  viewerShowReads.set(context, reads);
  let read = reads.get(showId);
  if (!read) {
    const accountId = context.account.id;
    read = Promise.all([
      db().episode.findMany({ where: { showId }, select: { id: true, season: true, number: true, title: true, airDate: true } }),
      db().watchState.findMany({ where: { accountId, watched: true, episode: { showId } }, select: { episodeId: true } }),
      db().account.findUniqueOrThrow({ where: { id: accountId }, select: { upNextRule: true } }),
      db().libraryItem.findUnique({ where: { accountId_showId: { accountId, showId } }, select: { upNextRule: true } }),
    ]).then(([episodes, states, account, row]) => {
      const watched = new Set(states.map((state) => state.episodeId));
      const ownRule = row?.upNextRule == null ? null : storedUpNextRule(row.upNextRule);
      return {
        episodes: episodes.map((episode) => ({ ...episode, airDate: episode.airDate as LocalDate | null, watched: watched.has(episode.id) })),
        rule: ownRule ?? storedUpNextRule(account.upNextRule),
        ownRule,
      };
    });
    reads.set(showId, read);
  }
  return read;
}

/** The summary's scan of one show for the viewer, followed or not. */
async function progressOf(context: { account: { id: number; timezone: string } }, showId: number): Promise<ShowProgress> {
  const { episodes, rule } = await viewerShow(context, showId);
  const snapshot = { id: showId, title: '', poster: null, followed: true, archived: false, lastWatchedAt: null, upNextRule: rule, episodes };
  return scanShow(snapshot, feedWindow(localDate(context.account.timezone, new Date())));
}

builder.prismaObjectField('Show', 'upNext', (t) =>
  t.prismaField({
    type: 'Episode',
    nullable: true,
    description: "The viewer's next episode of it by the summary's rule and the viewer's up-next rule for it (upNextRule: after the furthest watched, or the first unwatched), aired, specials aside, followed or not; null when none.",
    resolve: async (query, show, _args, context) => {
      const next = (await progressOf(context, show.id)).upNext;
      return next ? db().episode.findUnique({ ...query, where: { id: next.id } }) : null;
    },
  }),
);

builder.prismaObjectField('Show', 'skippedEpisodeCount', (t) =>
  t.int({
    description: 'Aired episodes (specials aside) the viewer has not watched that come before the furthest one watched: the holes, which the default up-next rule passes over.',
    resolve: async (show, _args, context) => (await progressOf(context, show.id)).skippedEpisodes,
  }),
);

builder.prismaObjectField('Show', 'firstSkippedEpisode', (t) =>
  t.prismaField({
    type: 'Episode',
    nullable: true,
    description: 'The first of the skipped episodes (skippedEpisodeCount), null when there are none.',
    resolve: async (query, show, _args, context) => {
      const first = (await progressOf(context, show.id)).firstSkipped;
      return first ? db().episode.findUnique({ ...query, where: { id: first.id } }) : null;
    },
  }),
);

builder.prismaObjectField('Show', 'upNextRule', (t) =>
  t.field({
    type: UpNextRuleEnum,
    description: "The up-next rule that applies to it for the viewer: the show's own (ownUpNextRule) or the account's.",
    resolve: async (show, _args, context) => (await viewerShow(context, show.id)).rule,
  }),
);

builder.prismaObjectField('Show', 'ownUpNextRule', (t) =>
  t.field({
    type: UpNextRuleEnum,
    nullable: true,
    description: "The viewer's own up-next rule for this show; null when it follows the account's (Account.upNextRule).",
    resolve: async (show, _args, context) => (await viewerShow(context, show.id)).ownRule,
  }),
);

builder.prismaObjectField('Account', 'upNextRule', (t) =>
  t.field({
    type: UpNextRuleEnum,
    description: 'Which episode up next offers for each show without a rule of its own (Show.ownUpNextRule): in the summary, its REST and Home Assistant forms, and Show.upNext.',
    resolve: (account) => storedUpNextRule(account.upNextRule),
  }),
);

interface SeasonProgress {
  number: number;
  episodeCount: number;
  airedCount: number;
  watchedCount: number;
  watchedAiredCount: number;
}

const ShowSeason = builder.objectRef<SeasonProgress>('ShowSeason').implement({
  description: "One season of a show with the viewer's progress in it (season 0 holds the specials).",
  fields: (t) => ({
    number: t.exposeInt('number', { description: '0 for the specials.' }),
    episodeCount: t.exposeInt('episodeCount', { description: 'Episodes the catalog holds for the season.' }),
    airedCount: t.exposeInt('airedCount', { description: "Episodes aired on or before the viewer's local today (an unknown air date has not aired)." }),
    watchedCount: t.exposeInt('watchedCount', { description: 'Episodes the viewer has marked watched, aired or not.' }),
    watchedAiredCount: t.exposeInt('watchedAiredCount', { description: 'Aired episodes the viewer has marked watched: with airedCount, the progress a season shows.' }),
  }),
});

builder.prismaObjectField('Show', 'seasons', (t) =>
  t.field({
    type: [ShowSeason],
    description: "Its seasons in order (the specials, season 0, first when it has any), each with its episode counts and the viewer's progress: what a page needs to draw a long show without reading every episode.",
    complexity: () => ({ field: fieldCosts.showSeasons, multiplier: 1 }),
    resolve: async (show, _args, context) => {
      const today = localDate(context.account.timezone, new Date());
      const seasons = new Map<number, SeasonProgress>();
      for (const episode of (await viewerShow(context, show.id)).episodes) {
        const season = seasons.get(episode.season) ?? { number: episode.season, episodeCount: 0, airedCount: 0, watchedCount: 0, watchedAiredCount: 0 };
        const aired = hasAired(episode.airDate, today);
        season.episodeCount += 1;
        if (aired) season.airedCount += 1;
        if (episode.watched) season.watchedCount += 1;
        if (episode.watched && aired) season.watchedAiredCount += 1;
        seasons.set(episode.season, season);
      }
      return [...seasons.values()].sort((a, b) => a.number - b.number);
    },
  }),
);

const SetUpNextRuleInput = builder.inputType('SetUpNextRuleInput', {
  fields: (t) => ({
    showId: t.int({ required: false, description: "A show: its own rule. Left out: the account's rule, for every show without one." }),
    rule: t.field({ type: UpNextRuleEnum, required: false, description: "The rule; null or left out with showId: the show follows the account's again (required without showId)." }),
  }),
});

const SetUpNextRuleResult = builder.objectRef<{ changed: boolean; feedVersion: number | null }>('SetUpNextRuleResult').implement({
  fields: (t) => ({
    changed: t.exposeBoolean('changed', { description: 'False when it already had this rule.' }),
    feedVersion: t.exposeInt('feedVersion', { nullable: true, description: "The viewer's feed version this write made; null when nothing changed." }),
  }),
});

/**
 * Sets the account's up-next rule, or a show's own (null: the account's again). A show's rule is
 * kept on the viewer's library row of it, made (not followed) when there is none. Either change
 * bumps the feed version in the same write, so the summary is computed again with it.
 */
export async function setUpNextRule(accountId: number, showId: number | undefined, rule: UpNextRule | null): Promise<{ changed: boolean; feedVersion: number | null }> {
  return db().$transaction(async (tx) => {
    if (showId === undefined) {
      if (rule === null) throw new InputError("rule is required for the account's rule (without showId)", 'rule');
      const account = await tx.account.findUniqueOrThrow({ where: { id: accountId }, select: { upNextRule: true } });
      if (account.upNextRule === rule) return { changed: false, feedVersion: null };
      const updated = await tx.account.update({ where: { id: accountId }, data: { upNextRule: rule, ...accountVersionBumps({ settings: true }) }, select: { feedVersion: true } });
      return { changed: true, feedVersion: updated.feedVersion };
    }
    if (!Number.isInteger(showId) || showId < 1 || showId > maxIntColumn) throw new InputError(`showId must be a positive integer up to ${maxIntColumn}`, 'showId');
    const show = await tx.show.findUnique({ where: { id: showId }, select: { id: true } });
    if (!show) throw new NotFoundError(`show ${showId} not found`);
    const row = await tx.libraryItem.findUnique({ where: { accountId_showId: { accountId, showId } }, select: { id: true, upNextRule: true } });
    if ((row?.upNextRule ?? null) === rule) return { changed: false, feedVersion: null };
    if (row) await tx.libraryItem.update({ where: { id: row.id }, data: { upNextRule: rule } });
    else await tx.libraryItem.create({ data: { accountId, kind: 'show', showId, upNextRule: rule } });
    const updated = await tx.account.update({ where: { id: accountId }, data: accountVersionBumps({ library: true }), select: { feedVersion: true } });
    return { changed: true, feedVersion: updated.feedVersion };
  }, { maxWait: transactionTimes.sqliteWaitMs });
}

builder.mutationField('setUpNextRule', (t) =>
  t.field({
    type: SetUpNextRuleResult,
    description: "Sets which episode up next offers: for the account (every show without a rule of its own), or for one show (rule null: the account's again).",
    errors: { types: writeErrors },
    args: { input: t.arg({ type: SetUpNextRuleInput, required: true }) },
    resolve: (_root, { input }, context) => setUpNextRule(context.account.id, input.showId ?? undefined, input.rule ?? null),
  }),
);
