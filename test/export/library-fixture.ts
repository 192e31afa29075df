import { storeCatalogRecords } from '../../src/catalog/catalog-store.ts';
import type { CatalogRecord } from '../../src/catalog/provider.ts';
import { db } from '../../src/db/client.ts';
import { setFollow, setWatched, type WatchKind } from '../../src/library/library.ts';
import { makeAccount } from '../support/factories.ts';

/** Next free external id: above what `unique()` hands out, within PostgreSQL's 32-bit integer. */
let nextExternalId = 1_500_000_000;

/**
 * A block of `size` consecutive external ids nobody else in this test file uses (each test file
 * has its own database), so that fixtures know their export order.
 */
export function externalIdRange(size: number): number {
  const start = nextExternalId;
  nextExternalId += size;
  return start;
}

const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 12, minute, 0, minute % 2 === 0 ? 0 : 5));

/**
 * A library touching every part of the export: shows with both ids, one id only, specials,
 * episodes watched, unwatched again and never touched, an archived show, a show only watched (not
 * followed), a followed unwatched movie, a watched movie that was unfollowed, a game, and catalog
 * rows created in the reverse of their export order (so database ids cannot be what sorts them).
 */
export async function makeExportLibrary(props: { timezone?: string } = {}) {
  const account = await makeAccount({ timezone: props.timezone ?? 'UTC' });
  const base = externalIdRange(10);
  const ids = { showA: base + 1, showATvdb: base + 2, showB: base + 3, showCTvdb: base + 4, movieA: base + 5, movieB: base + 6, game: base + 7 };
  const records: CatalogRecord[] = [
    { kind: 'game', ids: { igdb: ids.game }, title: 'Quiet Harbor', poster: null, overview: 'A game.', releaseDate: '2025-05-05' },
    { kind: 'movie', ids: { tmdb: ids.movieB }, title: 'Second Film', poster: 'https://images.example/b.jpg', overview: null, releaseDate: null },
    { kind: 'movie', ids: { tmdb: ids.movieA }, title: 'First Film', poster: null, overview: null, releaseDate: '2024-02-29' },
    { kind: 'show', ids: { tvdb: ids.showCTvdb }, title: 'Only Watched', poster: null, overview: null, episodes: [{ season: 1, number: 1, title: 'Pilot', airDate: '2020-01-01' }] },
    { kind: 'show', ids: { tmdb: ids.showB }, title: 'Archived Show', poster: null, overview: null, episodes: [] },
    {
      kind: 'show', ids: { tmdb: ids.showA, tvdb: ids.showATvdb }, title: 'Lantern "Keepers"', poster: 'https://images.example/a.jpg', overview: 'Ünïcode ✓',
      episodes: [
        { season: 1, number: 2, title: 'Two', airDate: '2025-01-08' },
        { season: 0, number: 1, title: 'Special', airDate: null },
        { season: 1, number: 1, title: 'One', airDate: '2025-01-01' },
        { season: 2, number: 1, title: null, airDate: '2026-01-01' },
      ],
    },
  ];
  const stored = await storeCatalogRecords(records);
  const [gameId, movieBId, movieAId, showCId, showBId, showAId] = stored.items.map((item) => item.databaseId) as number[];
  const episodes = await db().episode.findMany({ where: { showId: { in: [showAId!, showCId!] } } });
  const episode = (showId: number, season: number, number: number) =>
    episodes.find((row) => row.showId === showId && row.season === season && row.number === number)!.id;

  const watch = (kind: WatchKind, id: number, watched: boolean, minute: number) =>
    setWatched({ accountId: account.id, kind, id, watched, at: at(minute), source: 'graphql' });
  await setFollow({ accountId: account.id, kind: 'show', id: showAId!, followed: true });
  await setFollow({ accountId: account.id, kind: 'show', id: showBId!, followed: true, archived: true });
  await setFollow({ accountId: account.id, kind: 'movie', id: movieAId!, followed: true });
  await setFollow({ accountId: account.id, kind: 'movie', id: movieBId!, followed: true });
  await setFollow({ accountId: account.id, kind: 'movie', id: movieBId!, followed: false });
  await setFollow({ accountId: account.id, kind: 'game', id: gameId!, followed: true });
  await watch('episode', episode(showAId!, 1, 2), true, 3);
  await watch('episode', episode(showAId!, 1, 1), true, 1);
  await watch('episode', episode(showAId!, 0, 1), true, 5);
  await watch('episode', episode(showAId!, 0, 1), false, 6);
  await watch('episode', episode(showCId!, 1, 1), true, 7);
  await watch('movie', movieBId!, true, 8);
  await watch('game', gameId!, true, 9);
  await watch('game', gameId!, false, 10);
  await watch('game', gameId!, true, 11);

  const event = (watched: boolean, minute: number) => ({ watched, at: at(minute).toISOString() });
  const expected = {
    shows: [
      {
        ids: { tmdb: ids.showA, tvdb: ids.showATvdb }, title: 'Lantern "Keepers"', poster: 'https://images.example/a.jpg', overview: 'Ünïcode ✓',
        followed: true, archived: false,
        episodes: [
          { season: 0, number: 1, title: 'Special', airDate: null, watched: false, history: [event(true, 5), event(false, 6)] },
          { season: 1, number: 1, title: 'One', airDate: '2025-01-01', watched: true, history: [event(true, 1)] },
          { season: 1, number: 2, title: 'Two', airDate: '2025-01-08', watched: true, history: [event(true, 3)] },
          { season: 2, number: 1, title: null, airDate: '2026-01-01', watched: false, history: [] },
        ],
      },
      { ids: { tmdb: ids.showB }, title: 'Archived Show', poster: null, overview: null, followed: true, archived: true, episodes: [] },
      {
        ids: { tvdb: ids.showCTvdb }, title: 'Only Watched', poster: null, overview: null, followed: false, archived: false,
        episodes: [{ season: 1, number: 1, title: 'Pilot', airDate: '2020-01-01', watched: true, history: [event(true, 7)] }],
      },
    ],
    movies: [
      { ids: { tmdb: ids.movieA }, title: 'First Film', poster: null, overview: null, releaseDate: '2024-02-29', followed: true, watched: false, history: [] },
      {
        ids: { tmdb: ids.movieB }, title: 'Second Film', poster: 'https://images.example/b.jpg', overview: null, releaseDate: null,
        followed: false, watched: true, history: [event(true, 8)],
      },
    ],
    games: [
      {
        ids: { igdb: ids.game }, title: 'Quiet Harbor', poster: null, overview: 'A game.', releaseDate: '2025-05-05', followed: true, watched: true,
        history: [event(true, 9), event(false, 10), event(true, 11)],
      },
    ],
  };
  return { account, expected };
}
