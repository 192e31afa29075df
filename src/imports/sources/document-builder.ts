import type {
  ImportDocument,
  ImportEpisode,
  ImportIds,
  ImportShow,
  ImportSource,
  ImportTitle,
} from './import-document.ts';

type ItemKind = 'show' | 'movie' | 'game';
type Item = ImportShow | ImportTitle;

const idSources = ['tmdb', 'tvdb', 'igdb'] as const;

/**
 * Collects what one file says into an ImportDocument. Files repeat themselves (a play per row,
 * the same show under two titles, rewatches), so items merge here already: by any shared
 * external id, or by kind and title when the file gives no id (those end up in `unmatched`).
 * Episodes merge by (season, number); identical history entries collapse into one.
 */
export class DocumentBuilder {
  private readonly items: Item[] = [];
  // Items by kind and external id, and by kind and lower-cased title for items without ids. Maps
  // keyed by the numbers themselves: a 100 000-entry file looks items up 100 000 times, and string
  // keys made several strings per lookup.
  private readonly byId = byKind(() => ({ tmdb: new Map<number, Item>(), tvdb: new Map<number, Item>(), igdb: new Map<number, Item>() }));
  private readonly byTitle = byKind(() => new Map<string, Item>());
  /** Episodes of each show by season, then number. */
  private readonly episodesOf = new Map<ImportShow, Map<number, Map<number, ImportEpisode>>>();
  private readonly skipped: ImportDocument['skipped'] = [];
  private readonly notes = new Set<string>();

  constructor(
    private readonly source: ImportSource,
    private readonly fileName: string,
  ) {}

  /** The show with these ids (or this title when there are none), created on first mention. */
  show(ids: ImportIds, title: string): ImportShow {
    return this.item('show', ids, title, () => ({ kind: 'show', ids: {}, title, episodes: [] })) as ImportShow;
  }

  /** The movie or game with these ids (or this title), created on first mention. */
  title(kind: 'movie' | 'game', ids: ImportIds, title: string): ImportTitle {
    return this.item(kind, ids, title, () => ({ kind, ids: {}, title, history: [] })) as ImportTitle;
  }

  /** Episode (season, number) of `show`, created on first mention. */
  episode(show: ImportShow, season: number, number: number, title?: string | null): ImportEpisode {
    let seasons = this.episodesOf.get(show);
    if (!seasons) this.episodesOf.set(show, (seasons = new Map()));
    let episodes = seasons.get(season);
    if (!episodes) seasons.set(season, (episodes = new Map()));
    let episode = episodes.get(number);
    if (!episode) {
      episode = { season, number, title: title ?? null, history: [] };
      episodes.set(number, episode);
      show.episodes.push(episode);
    } else if (!episode.title && title) {
      episode.title = title;
    }
    return episode;
  }

  /** A play (or a "watched at" mark) of an episode, movie or game. */
  watched(target: ImportEpisode | ImportTitle, at: Date | undefined): void {
    if (at) target.history.push({ watched: true, at });
    else target.watched = true;
  }

  /** Something recognised and left out, with why. */
  skip(item: string, reason: string): void {
    this.skipped.push({ item, reason });
  }

  /** A remark about the whole file, given once however many entries it concerns. */
  note(item: string, reason: string): void {
    if (this.notes.has(item)) return;
    this.notes.add(item);
    this.skip(item, reason);
  }

  /** The document: histories oldest first, without repeated identical entries. */
  build(): ImportDocument {
    const shows: ImportShow[] = [];
    const titles: ImportTitle[] = [];
    for (const item of this.items) {
      if (item.kind === 'show') {
        for (const episode of item.episodes) tidyHistory(episode);
        shows.push(item);
      } else {
        tidyHistory(item);
        titles.push(item);
      }
    }
    return { source: this.source, fileName: this.fileName, shows, titles, skipped: this.skipped };
  }

  private item(kind: ItemKind, ids: ImportIds, title: string, create: () => Item): Item {
    const known = this.byId[kind];
    // The first id (in idSources order) already seen names the item; without ids, the title does.
    let item: Item | undefined;
    let hasId = false;
    for (const source of idSources) {
      const id = ids[source];
      if (id === undefined) continue;
      hasId = true;
      item ??= known[source].get(id);
    }
    const titleKey = hasId ? undefined : title.toLowerCase();
    if (titleKey !== undefined) item = this.byTitle[kind].get(titleKey);
    if (!item) {
      item = create();
      this.items.push(item);
    }
    for (const source of idSources) {
      const id = ids[source];
      if (id === undefined || known[source].has(id)) continue;
      // An id the item already has under another value stays; the file's first word wins.
      if (item.ids[source] === undefined) item.ids[source] = id;
      known[source].set(id, item);
    }
    if (titleKey !== undefined && !this.byTitle[kind].has(titleKey)) this.byTitle[kind].set(titleKey, item);
    return item;
  }
}

function byKind<T>(create: () => T): Record<ItemKind, T> {
  return { show: create(), movie: create(), game: create() };
}

function tidyHistory(target: { history: { watched: boolean; at: Date }[] }): void {
  if (target.history.length < 2) return;
  target.history.sort((a, b) => a.at.getTime() - b.at.getTime());
  target.history = target.history.filter((entry, index, all) => {
    const before = all[index - 1];
    return !before || before.at.getTime() !== entry.at.getTime() || before.watched !== entry.watched;
  });
}
