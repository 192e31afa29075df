import { isListType, isNonNullType, isObjectType, type GraphQLOutputType } from 'graphql';
import { describe, expect, it } from 'vitest';
import { db } from '../../src/db/client.ts';
import { addDays, localDate } from '../../src/time/dates.ts';
import { channelLimits, listLimits, mediaServerLimits, reportListWeight } from '../../src/limits.ts';
import { mediaServerSources } from '../../src/media-servers/sources/media-event.ts';
import { schema } from '../../src/schema.ts';
import { maxServerUsers } from '../../src/media-servers/history/pulled-play.ts';
import { historyKinds } from '../../src/media-servers/history/pull-document.ts';
import { setFollow, setWatched } from '../../src/library/library.ts';
import { useTestApp } from '../support/database.ts';
import { makeAccount, makeMovie, makeShow, unique } from '../support/factories.ts';
import { call, graphql } from '../support/http.ts';

const { app } = await useTestApp({ AIRDATE_RATE_LIMIT_PER_MINUTE: '0' });
const today = localDate('UTC', new Date());

const isList = (type: GraphQLOutputType): boolean => isListType(isNonNullType(type) ? type.ofType : type);

describe('every list the library or the catalog can grow', () => {
  it('has a page size (or is one of the few lists the request itself bounds), so its cost is known', () => {
    const unpaged: string[] = [];
    for (const type of Object.values(schema.getTypeMap())) {
      if (!isObjectType(type) || type.name.startsWith('__')) continue;
      for (const field of Object.values(type.getFields())) {
        if (!isList(field.type)) continue;
        const complexity = field.extensions.complexity as { multiplier?: number } | ((...args: unknown[]) => unknown) | undefined;
        const paged = typeof complexity === 'function' || (typeof complexity === 'object' && complexity.multiplier === 1 && field.name === 'edges');
        if (!paged) unpaged.push(`${type.name}.${field.name}`);
      }
    }
    // An import's report: at most one entry per item of the upload (notes: a few per file), counted at reportListWeight.
    // And the lists bounded by what they are: an account's media server connections (one per
    // source) and a connection's user names (mediaServerLimits.usersPerConnection), costed at those bounds.
    // A mark's answer: one id per item the request named (at most markLimits.items), integers with no selection.
    // A media server's history pulls (one per server kind) and its users (at most maxServerUsers).
    // An account's notification channels (at most channelLimits.perAccount); the channel kinds, their
    // schemes and events, and a channel's events: lists of names the server defines, no selection.
    expect(unpaged.sort()).toEqual([
      'Account.mediaServerConnections', 'Account.mediaServerHistories', 'Account.notificationChannels', 'ImportResult.notes', 'ImportResult.skipped', 'ImportResult.unmatched',
      'MarkResult.historyIds', 'MarkResult.itemIds', 'MediaServerConnection.users', 'NotificationChannel.events', 'NotificationChannelKind.defaultEvents', 'NotificationChannelKind.schemes',
      'Query.mediaServerUsers', 'Query.notificationChannelKinds',
    ]);
    const account = schema.getType('Account');
    expect(isObjectType(account) && account.getFields().mediaServerConnections!.extensions.complexity).toEqual({ field: 1, multiplier: mediaServerSources.length });
    expect(isObjectType(account) && account.getFields().notificationChannels!.extensions.complexity).toEqual({ field: 1, multiplier: channelLimits.perAccount });
    const query = schema.getType('Query');
    expect(isObjectType(query) && query.getFields().mediaServerUsers!.extensions.complexity).toEqual({ field: 1, multiplier: maxServerUsers });
    expect(isObjectType(account) && account.getFields().mediaServerHistories!.extensions.complexity).toEqual({ field: 1, multiplier: historyKinds.length });
    const connection = schema.getType('MediaServerConnection');
    expect(isObjectType(connection) && connection.getFields().users!.extensions.complexity).toEqual({ field: 1, multiplier: mediaServerLimits.usersPerConnection });
    const report = schema.getType('ImportResult');
    expect(isObjectType(report) && report.getFields().skipped!.extensions.complexity).toEqual({ field: 1, multiplier: reportListWeight });
    expect(isObjectType(report) && report.getFields().notes!.extensions.complexity).toEqual({ field: 1, multiplier: reportListWeight });
  });
});

describe('page arguments', () => {
  it('pages a show’s episodes by season, first and offset, and counts them all', async () => {
    const account = await makeAccount();
    const episodes = [
      ...Array.from({ length: 130 }, (_, index) => ({ season: 1 + Math.floor(index / 100), number: 1 + (index % 100), airDate: '2020-01-01' })),
      { season: 0, number: 1, airDate: '2020-01-01' },
    ];
    const show = await makeShow({ title: `Paged show ${unique()}`, episodes });
    const query = `query($id: Int!, $first: Int, $offset: Int, $season: Int) {
      catalogLookup(source: TMDB, kind: SHOW, externalId: $id) { ... on Show { episodeCount episodes(first: $first, offset: $offset, season: $season) { code } } } }`;
    const page = async (variables: Record<string, unknown>) => (await graphql(app, account.token, query, { id: show.tmdbId, ...variables })).json.data.catalogLookup;
    const whole = await page({});
    expect(whole.episodeCount).toBe(131);
    expect(whole.episodes).toHaveLength(listLimits.episodes.default);
    expect(whole.episodes[0].code).toBe('S00E01');
    expect((await page({ first: 2, offset: 100 })).episodes.map((episode: { code: string }) => episode.code)).toEqual(['S01E100', 'S02E01']);
    expect((await page({ season: 2 })).episodes).toHaveLength(30);
    expect((await page({ offset: 500 })).episodes).toEqual([]);
    for (const bad of [{ first: -1 }, { first: listLimits.episodes.max + 1 }, { offset: -1 }]) {
      const refused = await graphql(app, account.token, query, { id: show.tmdbId, ...bad });
      expect(refused.status).toBe(400);
      expect(refused.json.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    }
  });

  it('cuts the summary’s lists at first but keeps the whole counts; the REST feeds answer whole lists', async () => {
    const account = await makeAccount();
    const shows = await Promise.all(Array.from({ length: 205 }, (_, index) => makeShow({ title: `Feed ${index}`, episodes: [{ number: 1, airDate: addDays(today, -1) }] })));
    await db().libraryItem.createMany({ data: shows.map((show) => ({ accountId: account.id, kind: 'show', showId: show.id, followed: true, followExplicit: true, followedAt: new Date() })) });
    await db().account.update({ where: { id: account.id }, data: { feedVersion: { increment: 1 } } });
    const graph = await graphql(app, account.token, '{ summary { counts { upNext } upNext { id } first3: upNext(first: 3) { id } } }');
    expect(graph.json.data.summary.counts.upNext).toBe(205);
    expect(graph.json.data.summary.upNext).toHaveLength(listLimits.feedItems.default);
    expect(graph.json.data.summary.first3).toHaveLength(3);
    const rest = await call(app, 'GET', '/api/machine/summary', { token: account.token });
    expect(rest.json.upNext).toHaveLength(205);
    expect((await call(app, 'GET', '/api/machine/widget', { token: account.token })).json.watchlist).toHaveLength(205);
  });

  it('pages the calendar’s events and the deliveries of a notification', async () => {
    const account = await makeAccount();
    const show = await makeShow({ episodes: Array.from({ length: 12 }, (_, index) => ({ number: index + 1, airDate: addDays(today, index) })) });
    await setFollow({ accountId: account.id, kind: 'show', id: show.id, followed: true });
    const calendar = await graphql(app, account.token, '{ calendar { eventCount events(first: 5, offset: 10) { episode } all: events { episode } } }');
    expect(calendar.json.data.calendar.eventCount).toBe(12);
    expect(calendar.json.data.calendar.events.map((event: { episode: string }) => event.episode)).toEqual(['S01E11', 'S01E12']);
    expect(calendar.json.data.calendar.all).toHaveLength(12);

    const notification = await db().notification.create({
      data: { accountId: account.id, itemKey: `episode:${show.episodes[0]!.id}`, kind: 'episode', webhookId: `msg_${unique()}`, payload: '{}', releaseDate: today, status: 'failed', attempts: 30 },
    });
    await db().deliveryAttempt.createMany({
      data: Array.from({ length: 30 }, (_, index) => ({ notificationId: notification.id, number: index + 1, at: new Date(), url: 'https://example.com/hook', durationMs: 1, outcome: 'retry', manual: false })),
    });
    const query = `query($id: Int!, $first: Int, $offset: Int) { notification(id: $id) { attempts deliveries(first: $first, offset: $offset) { number } } }`;
    const first = await graphql(app, account.token, query, { id: notification.id });
    expect(first.json.data.notification.attempts).toBe(30);
    expect(first.json.data.notification.deliveries).toHaveLength(listLimits.deliveries.default);
    const last = await graphql(app, account.token, query, { id: notification.id, first: 5, offset: 28 });
    expect(last.json.data.notification.deliveries.map((attempt: { number: number }) => attempt.number)).toEqual([29, 30]);
    const tooMany = await graphql(app, account.token, query, { id: notification.id, first: listLimits.deliveries.max + 1 });
    expect(tooMany.status).toBe(400);
  });

  it('reads the export a page at a time, in the order of the download', async () => {
    const account = await makeAccount();
    for (let index = 0; index < 5; index += 1) {
      const show = await makeShow({ title: `Export ${index}`, episodes: [1, 2, 3].map((number) => ({ number, airDate: '2020-01-01' })) });
      await setFollow({ accountId: account.id, kind: 'show', id: show.id, followed: true });
      for (const episode of show.episodes) await setWatched({ accountId: account.id, kind: 'episode', id: episode.id, watched: true });
    }
    const movie = await makeMovie();
    for (const watched of [true, false, true]) await setWatched({ accountId: account.id, kind: 'movie', id: movie.id, watched, at: new Date(Date.now() - (watched ? 1 : 2) * 1000) });
    const download = JSON.parse((await call(app, 'GET', '/api/export', { token: account.token })).text);
    const query = `query($first: Int, $offset: Int) { export {
      shows(first: $first, offset: $offset) { title episodes(first: 2, offset: 1) { number } }
      movies { title history(first: 1, offset: 1) { watched } } } }`;
    const page = await graphql(app, account.token, query, { first: 2, offset: 3 });
    expect(page.json.data.export.shows).toEqual(download.shows.slice(3, 5).map((show: { title: string }) => ({ title: show.title, episodes: [{ number: 2 }, { number: 3 }] })));
    expect(page.json.data.export.movies).toEqual([{ title: movie.title, history: [download.movies[0].history[1]].map((entry: { watched: boolean }) => ({ watched: entry.watched })) }]);
    const defaults = await graphql(app, account.token, '{ export { shows { title } } }');
    expect(defaults.json.data.export.shows).toHaveLength(5);
    const past = await graphql(app, account.token, '{ export { shows(offset: 10) { title } } }');
    expect(past.json.data.export.shows).toEqual([]);
  });
});
