import { describe, expect, it } from 'vitest';
import { updateAccount } from '../../src/accounts/accounts.ts';
import { setFollow, setWatched } from '../../src/library/library.ts';
import { addDays, localDate } from '../../src/time/dates.ts';
import { useTestApp } from '../support/database.ts';
import { makeAccount, makeShow } from '../support/factories.ts';
import { call, graphql } from '../support/http.ts';

/**
 * The up-next rule (issue 33, item 3): "after the furthest watched" (decisions.md's rule, the
 * default) or "the first unwatched aired episode", per account and per show, honoured by
 * Show.upNext, the summary over GraphQL, REST and its Home Assistant profile; the holes counted.
 * Runs on SQLite and PostgreSQL.
 */
const { app } = await useTestApp({ AIRDATE_RATE_LIMIT_PER_MINUTE: '0' });
const today = localDate('UTC', new Date());

const SetRule = `mutation ($input: SetUpNextRuleInput!) { setUpNextRule(input: $input) {
  __typename ... on MutationSetUpNextRuleSuccess { data { changed feedVersion } } ... on Error { code message } } }`;
const ShowProgress = `query ($id: Int!) { viewer { upNextRule } show(id: $id) { upNext { code } skippedEpisodeCount firstSkippedEpisode { code } upNextRule ownUpNextRule } }`;

/** A followed show of six aired episodes and one to come, with S01E02 and S02E01 watched: S01E01 and S01E03 are holes. */
async function showWithHoles(accountId: number, title = `Holes ${Math.random()}`) {
  const show = await makeShow({
    title,
    episodes: [
      { season: 1, number: 1, airDate: addDays(today, -60) },
      { season: 1, number: 2, airDate: addDays(today, -53) },
      { season: 1, number: 3, airDate: addDays(today, -46) },
      { season: 2, number: 1, airDate: addDays(today, -39) },
      { season: 2, number: 2, airDate: addDays(today, -32) },
      { season: 2, number: 3, airDate: addDays(today, 30) },
      { season: 0, number: 1, airDate: addDays(today, -70) },
    ],
  });
  await setFollow({ accountId, kind: 'show', id: show.id, followed: true });
  // Specials sort first.
  const [, s1e1, s1e2, , s2e1, s2e2] = show.episodes;
  for (const episode of [s1e2!, s2e1!]) await setWatched({ accountId, kind: 'episode', id: episode.id, watched: true });
  return { show, s1e1: s1e1!, s2e2: s2e2! };
}

const restSummary = async (token: string) => (await call(app, 'GET', '/api/machine/summary', { token })).json as { next: { show: string; episode: string } | null; upNext: { show: string; episode: string }[]; counts: { upNext: number } };
const upNextOf = async (token: string, title: string) => (await restSummary(token)).upNext.find((item) => item.show === title)?.episode ?? null;

describe('the up-next rule', () => {
  it('defaults to after the furthest watched, counting the holes; the first unwatched on asking; the REST summary and Home Assistant agree', async () => {
    const account = await makeAccount();
    const { show } = await showWithHoles(account.id);
    let progress = (await graphql(app, account.token, ShowProgress, { id: show.id })).json.data;
    expect(progress).toEqual({
      viewer: { upNextRule: 'AFTER_LAST_WATCHED' },
      show: { upNext: { code: 'S02E02' }, skippedEpisodeCount: 2, firstSkippedEpisode: { code: 'S01E01' }, upNextRule: 'AFTER_LAST_WATCHED', ownUpNextRule: null },
    });
    expect(await upNextOf(account.token, show.title)).toBe('S02E02');

    const set = await graphql(app, account.token, SetRule, { input: { rule: 'FIRST_UNWATCHED' } });
    expect(set.json.data.setUpNextRule.data.changed).toBe(true);
    progress = (await graphql(app, account.token, ShowProgress, { id: show.id })).json.data;
    expect(progress.viewer.upNextRule).toBe('FIRST_UNWATCHED');
    expect(progress.show).toMatchObject({ upNext: { code: 'S01E01' }, skippedEpisodeCount: 2, upNextRule: 'FIRST_UNWATCHED', ownUpNextRule: null });
    expect(await upNextOf(account.token, show.title)).toBe('S01E01');
    expect((await graphql(app, account.token, '{ summary { upNext { episode } } }')).json.data.summary.upNext).toEqual([{ episode: 'S01E01' }]);
    await updateAccount({ name: account.name, summaryProfile: 'home-assistant' });
    expect((await restSummary(account.token)).next).toMatchObject({ show: show.title, episode: 'S01E01' });

    // Setting it again changes nothing and moves no version.
    expect((await graphql(app, account.token, SetRule, { input: { rule: 'FIRST_UNWATCHED' } })).json.data.setUpNextRule.data).toEqual({ changed: false, feedVersion: null });
  });

  it("a show's own rule wins over the account's, null gives it back; other shows and other accounts keep theirs", async () => {
    const account = await makeAccount();
    const other = await makeAccount();
    const first = await showWithHoles(account.id);
    const second = await showWithHoles(account.id);
    await setFollow({ accountId: other.id, kind: 'show', id: first.show.id, followed: true });
    await setWatched({ accountId: other.id, kind: 'episode', id: first.s2e2.id, watched: true });

    await graphql(app, account.token, SetRule, { input: { showId: first.show.id, rule: 'FIRST_UNWATCHED' } });
    expect(await upNextOf(account.token, first.show.title)).toBe('S01E01');
    expect(await upNextOf(account.token, second.show.title)).toBe('S02E02');
    expect((await graphql(app, account.token, ShowProgress, { id: first.show.id })).json.data.show).toMatchObject({ ownUpNextRule: 'FIRST_UNWATCHED', upNextRule: 'FIRST_UNWATCHED' });
    // The other account watched S02E02 only: by its own (default) rule nothing aired is left, four holes.
    expect(await upNextOf(other.token, first.show.title)).toBeNull();
    expect((await graphql(app, other.token, ShowProgress, { id: first.show.id })).json.data.show).toMatchObject({ upNext: null, skippedEpisodeCount: 4, ownUpNextRule: null });

    // The account's rule turns to the first unwatched; the first show's own rule goes back to the furthest.
    await graphql(app, account.token, SetRule, { input: { rule: 'FIRST_UNWATCHED' } });
    await graphql(app, account.token, SetRule, { input: { showId: first.show.id, rule: 'AFTER_LAST_WATCHED' } });
    expect(await upNextOf(account.token, first.show.title)).toBe('S02E02');
    expect(await upNextOf(account.token, second.show.title)).toBe('S01E01');
    // Null: the account's again.
    await graphql(app, account.token, SetRule, { input: { showId: first.show.id, rule: null } });
    expect(await upNextOf(account.token, first.show.title)).toBe('S01E01');
    expect((await graphql(app, account.token, ShowProgress, { id: first.show.id })).json.data.show.ownUpNextRule).toBeNull();
  });

  it('a caught-up show with holes leaves up next by the default rule and stays with the first unwatched', async () => {
    const account = await makeAccount();
    const { show, s2e2 } = await showWithHoles(account.id);
    await setWatched({ accountId: account.id, kind: 'episode', id: s2e2.id, watched: true });
    const before = await restSummary(account.token);
    expect(before.upNext.some((item) => item.show === show.title)).toBe(false);
    await graphql(app, account.token, SetRule, { input: { rule: 'FIRST_UNWATCHED' } });
    const after = await restSummary(account.token);
    expect(after.upNext.find((item) => item.show === show.title)?.episode).toBe('S01E01');
    expect(after.counts.upNext).toBe(before.counts.upNext + 1);
  });

  it('refuses a missing show, a bad id and an account rule of null, changing nothing', async () => {
    const account = await makeAccount();
    const missing = await graphql(app, account.token, SetRule, { input: { showId: 2_000_000_000, rule: 'FIRST_UNWATCHED' } });
    expect(missing.json.data.setUpNextRule).toMatchObject({ code: 'NOT_FOUND' });
    const bad = await graphql(app, account.token, SetRule, { input: { showId: -1, rule: 'FIRST_UNWATCHED' } });
    expect(bad.json.data.setUpNextRule).toMatchObject({ code: 'BAD_INPUT' });
    const none = await graphql(app, account.token, SetRule, { input: { rule: null } });
    expect(none.json.data.setUpNextRule).toMatchObject({ code: 'BAD_INPUT' });
    expect((await graphql(app, account.token, '{ viewer { upNextRule } }')).json.data.viewer.upNextRule).toBe('AFTER_LAST_WATCHED');
  });
});
