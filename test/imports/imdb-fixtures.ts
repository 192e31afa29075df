import { csvFile, type Row } from './tvtime-fixtures.ts';

/**
 * IMDb exports built the way IMDb writes them, from public importers' fixtures (Yamtrack's
 * `import_imdb.csv`, clustarr's and others' tests): the 2024 ratings header with `Original Title`
 * and spelled-out Title Types, the 2017–2023 one without it (camel-case types), a 10-column copy,
 * the watchlist and list exports (`Position,Const,Created,…`, the current ones ending with
 * `Your Rating,Date Rated`) and the older list form (`position,const,created,…,You rated,…`).
 * Values invented; BOM and CRLF as IMDb's files have them.
 */

export type ImdbKind = 'movie' | 'series' | 'mini' | 'episode' | 'tvMovie' | 'short' | 'special' | 'game' | 'podcast';

export interface ImdbTitle {
  imdb: string;
  title: string;
  kind: ImdbKind;
  year: number;
  /** 1–10, with the day it was given (YYYY-MM-DD); none: not rated. */
  rating?: number;
  rated?: string;
}

export type ImdbLayout = 'ratings-2024' | 'ratings-2017' | 'ratings-10' | 'watchlist-2024' | 'list-2017' | 'list-legacy';

export const imdbHeaders: Record<ImdbLayout, string[]> = {
  'ratings-2024': ['Const', 'Your Rating', 'Date Rated', 'Title', 'Original Title', 'URL', 'Title Type', 'IMDb Rating', 'Runtime (mins)', 'Year', 'Genres', 'Num Votes', 'Release Date', 'Directors'],
  'ratings-2017': ['Const', 'Your Rating', 'Date Rated', 'Title', 'URL', 'Title Type', 'IMDb Rating', 'Runtime (mins)', 'Year', 'Genres', 'Num Votes', 'Release Date', 'Directors'],
  'ratings-10': ['Const', 'Your Rating', 'Date Rated', 'Title', 'URL', 'Title Type', 'IMDb Rating', 'Runtime (mins)', 'Year', 'Genres'],
  'watchlist-2024': ['Position', 'Const', 'Created', 'Modified', 'Description', 'Title', 'Original Title', 'URL', 'Title Type', 'IMDb Rating', 'Runtime (mins)', 'Year', 'Genres', 'Num Votes', 'Release Date', 'Directors', 'Your Rating', 'Date Rated'],
  'list-2017': ['Position', 'Const', 'Created', 'Modified', 'Description', 'Title', 'URL', 'Title Type', 'IMDb Rating', 'Runtime (mins)', 'Year', 'Genres', 'Num Votes', 'Release Date', 'Directors'],
  'list-legacy': ['position', 'const', 'created', 'modified', 'description', 'Title', 'Title type', 'Directors', 'You rated', 'IMDb Rating', 'Runtime (mins)', 'Year', 'Genres', 'Num. Votes', 'Release Date (month/day/year)', 'URL'],
};

/** How each generation spells a Title Type. */
const typeNames: Record<'2024' | '2017' | 'legacy', Record<ImdbKind, string>> = {
  2024: { movie: 'Movie', series: 'TV Series', mini: 'TV Mini Series', episode: 'TV Episode', tvMovie: 'TV Movie', short: 'Short', special: 'TV Special', game: 'Video Game', podcast: 'Podcast Series' },
  2017: { movie: 'movie', series: 'tvSeries', mini: 'tvMiniSeries', episode: 'tvEpisode', tvMovie: 'tvMovie', short: 'short', special: 'tvSpecial', game: 'videoGame', podcast: 'podcastSeries' },
  legacy: { movie: 'Feature Film', series: 'TV Series', mini: 'Mini-Series', episode: 'TV Episode', tvMovie: 'TV Movie', short: 'Short Film', special: 'TV Special', game: 'Video Game', podcast: 'Podcast Series' },
};

const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const weekdays = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
/** The older list form's `created`: `Sat Jul 23 00:00:00 2016`. */
const ctime = (date: string) => {
  const at = new Date(`${date}T00:00:00Z`);
  return `${weekdays[at.getUTCDay()]} ${months[at.getUTCMonth()]} ${String(at.getUTCDate()).padStart(2, ' ')} 00:00:00 ${at.getUTCFullYear()}`;
};

/** One row of `title` in `layout` (`position` for list layouts). */
function imdbRow(title: ImdbTitle, layout: ImdbLayout, position: number): Row {
  const generation = layout.endsWith('2024') ? '2024' : layout === 'list-legacy' ? 'legacy' : '2017';
  const common: Row = {
    Const: title.imdb, Title: title.title, 'Original Title': title.title, URL: `https://www.imdb.com/title/${title.imdb}/`, 'Title Type': typeNames[generation][title.kind],
    'IMDb Rating': 7.1, 'Runtime (mins)': title.kind === 'episode' ? 47 : 112, Year: title.year, Genres: 'Crime, Drama, Thriller', 'Num Votes': 152_340,
    'Release Date': `${title.year}-04-17`, Directors: 'Someone Directing, Another One', 'Your Rating': title.rating ?? '', 'Date Rated': title.rated ?? '',
  };
  if (layout === 'list-legacy') {
    return {
      position, const: title.imdb, created: title.rated ? ctime(title.rated) : ctime('2016-07-23'), modified: ctime('2016-07-24'), description: '', Title: title.title,
      'Title type': typeNames.legacy[title.kind], Directors: common.Directors!, 'You rated': title.rating ?? '', 'IMDb Rating': 7.1, 'Runtime (mins)': 112, Year: title.year,
      Genres: 'crime, drama', 'Num. Votes': 152_340, 'Release Date (month/day/year)': `${title.year}-04-17`, URL: common.URL!,
    };
  }
  if (!layout.startsWith('ratings')) return { ...common, Position: position, Created: '2023-07-09', Modified: '2024-02-01', Description: position % 7 === 0 ? 'Seen at a festival, "loved it"' : '' };
  return common;
}

/** An IMDb export of `titles` in `layout`, with a BOM and CRLF line ends. */
export function imdbCsv(layout: ImdbLayout, titles: ImdbTitle[]): Uint8Array {
  return csvFile(imdbHeaders[layout], titles.map((title, index) => imdbRow(title, layout, index + 1)), { bom: true, crlf: true });
}

/** A day `offset` days after 2014-01-01, as IMDb writes Date Rated. */
export const ratedDay = (offset: number) => new Date(Date.UTC(2014, 0, 1) + offset * 86_400_000).toISOString().slice(0, 10);
