import { expect, it } from 'vitest';
import { db } from '../../src/db/client.ts';
import { updateAccount } from '../../src/accounts/accounts.ts';
import { setFollow, setWatched } from '../../src/library/library.ts';
import { json, traktMoviePlay } from '../imports/fixtures.ts';
import { useTestApp } from '../support/database.ts';
import { makeAccount, makeMovie, makeShow, unique } from '../support/factories.ts';
import { upload } from '../support/upload.ts';

/**
 * Account.calendarVersion: bumped with what the calendar shows (follows, archives, settings, new
 * catalog or library rows from an import), never by a watched toggle, so the calendar's cache
 * outlives the toggles (issue 14). feedVersion moves with every change, as before.
 */
const { app } = await useTestApp();
const versions = async (id: number) => db().account.findUniqueOrThrow({ where: { id }, select: { feedVersion: true, calendarVersion: true } });

it('a watched toggle moves feedVersion only; follow, archive and a time zone change move both', async () => {
  const user = await makeAccount();
  const show = await makeShow({ episodes: [{ number: 1, airDate: '2026-01-01' }] });
  await setFollow({ accountId: user.id, kind: 'show', id: show.id, followed: true });
  const followed = await versions(user.id);
  expect(followed).toEqual({ feedVersion: 1, calendarVersion: 1 });

  await setWatched({ accountId: user.id, kind: 'episode', id: show.episodes[0]!.id, watched: true });
  await setWatched({ accountId: user.id, kind: 'episode', id: show.episodes[0]!.id, watched: false });
  expect(await versions(user.id)).toEqual({ feedVersion: 3, calendarVersion: 1 });

  await setFollow({ accountId: user.id, kind: 'show', id: show.id, archived: true });
  expect(await versions(user.id)).toEqual({ feedVersion: 4, calendarVersion: 2 });
  await updateAccount({ name: user.name, timezone: 'Asia/Tokyo' });
  expect(await versions(user.id)).toEqual({ feedVersion: 5, calendarVersion: 3 });
  // No change, no bump.
  await setFollow({ accountId: user.id, kind: 'show', id: show.id, archived: true });
  await updateAccount({ name: user.name, timezone: 'Asia/Tokyo' });
  expect(await versions(user.id)).toEqual({ feedVersion: 5, calendarVersion: 3 });
});

it('an import that adds library rows moves both; one that only adds watches moves feedVersion only', async () => {
  const user = await makeAccount();
  const tmdb = unique();
  const movie = await makeMovie({ title: 'Known Film', releaseDate: '2020-05-01' });
  await db().movie.update({ where: { id: movie.id }, data: { tmdbId: tmdb } });
  const history = (plays: ReturnType<typeof traktMoviePlay>[]) => upload(app, '/api/import/trakt', user.token, { 'watched-history.json': json(plays) });

  expect((await history([traktMoviePlay(1, '2024-01-01T20:00:00.000Z', 'Known Film', tmdb)])).status).toBe(200);
  const first = await versions(user.id);
  expect(first.calendarVersion).toBe(1);
  // A second play of the same film: a watch, no new row of the library or the catalog.
  expect((await history([traktMoviePlay(2, '2024-02-01T20:00:00.000Z', 'Known Film', tmdb)])).status).toBe(200);
  expect(await versions(user.id)).toEqual({ feedVersion: first.feedVersion + 1, calendarVersion: 1 });
});
