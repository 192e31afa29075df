/**
 * Snapshot factories for the feed-rule tests: every object gets a fresh id, shows are followed and
 * not archived unless told otherwise, so a test states only what it is about.
 */
import type {
  EpisodeFeedItem,
  FeedItem,
  LibrarySnapshot,
  SnapshotEpisode,
  SnapshotShow,
  SnapshotTitle,
} from '../../src/feeds/types.ts';
import type { LocalDate } from '../../src/time/dates.ts';

/** mulberry32: a tiny seeded PRNG, so a failure is reproducible from its seed. */
export function createRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

let lastId = 0;

/** A fresh id, unique within the test file. */
export function nextId(): number {
  lastId += 1;
  return lastId;
}

/** An episode from its code: `ep('S01E02', '2026-03-01', { watched: true })`. */
export function ep(code: string, airDate: LocalDate | null, overrides: Partial<SnapshotEpisode> = {}): SnapshotEpisode {
  const match = /^S(\d+)E(\d+)$/.exec(code);
  if (match === null) throw new Error(`Bad episode code ${code}`);
  const number = Number(match[2]);
  return { id: nextId(), season: Number(match[1]), number, title: `Chapter ${number}`, airDate, watched: false, ...overrides };
}

/** A watched episode. */
export function seen(code: string, airDate: LocalDate | null): SnapshotEpisode {
  return ep(code, airDate, { watched: true });
}

/** A followed, non-archived, never-watched show. */
export function makeShow(overrides: Partial<SnapshotShow> = {}): SnapshotShow {
  const id = nextId();
  return {
    id,
    title: `Show ${id}`,
    poster: `https://img.example/show-${id}.jpg`,
    followed: true,
    archived: false,
    lastWatchedAt: null,
    episodes: [],
    ...overrides,
  };
}

/** A followed, unwatched movie or game. */
export function makeTitle(
  kind: 'movie' | 'game',
  releaseDate: LocalDate | null,
  overrides: Partial<SnapshotTitle> = {},
): SnapshotTitle {
  const id = nextId();
  return { kind, id, title: `${kind} ${id}`, poster: null, followed: true, releaseDate, watched: false, ...overrides };
}

export function library(shows: SnapshotShow[], titles: SnapshotTitle[] = []): LibrarySnapshot {
  return { shows, titles };
}

/** `Show title S01E02` per item: what a user reads in a list. */
export function labels(items: EpisodeFeedItem[]): string[] {
  return items.map((item) => `${item.show} ${item.episode}`);
}

/** `kind:title` per item, episodes with their code. */
export function releaseLabels(items: FeedItem[]): string[] {
  return items.map((item) => (item.kind === 'episode' ? `episode:${item.show} ${item.episode}` : `${item.kind}:${item.title}`));
}
