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
  private readonly byKey = new Map<string, Item>();
  private readonly episodesOf = new Map<ImportShow, Map<string, ImportEpisode>>();
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
    let episodes = this.episodesOf.get(show);
    if (!episodes) this.episodesOf.set(show, (episodes = new Map()));
    const key = `${season}:${number}`;
    let episode = episodes.get(key);
    if (!episode) {
      episode = { season, number, title: title ?? null, history: [] };
      episodes.set(key, episode);
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
    const keys = idSources.flatMap((source) => (ids[source] === undefined ? [] : [`${kind}:${source}:${ids[source]}`]));
    if (keys.length === 0) keys.push(`${kind}:title:${title.toLowerCase()}`);
    let item = keys.map((key) => this.byKey.get(key)).find((found) => found !== undefined);
    if (!item) {
      item = create();
      this.items.push(item);
    }
    for (const source of idSources) {
      const id = ids[source];
      // An id the item already has under another value stays; the file's first word wins.
      if (id !== undefined && item.ids[source] === undefined && !this.byKey.has(`${kind}:${source}:${id}`)) item.ids[source] = id;
    }
    for (const key of keys) if (!this.byKey.has(key)) this.byKey.set(key, item);
    return item;
  }
}

function tidyHistory(target: { history: { watched: boolean; at: Date }[] }): void {
  if (target.history.length < 2) return;
  target.history.sort((a, b) => a.at.getTime() - b.at.getTime());
  target.history = target.history.filter((entry, index, all) => {
    const before = all[index - 1];
    return !before || before.at.getTime() !== entry.at.getTime() || before.watched !== entry.watched;
  });
}
