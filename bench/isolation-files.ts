import { Zip, ZipDeflate } from 'fflate';
import { traktExport, traktPlay } from './trakt-export.ts';

/**
 * The files bench:isolation's attacker uploads, built once per run (both builds get the same
 * bytes).
 */

const mib = 1024 * 1024;

/**
 * A zip of one Trakt history file (`trakt-export/watched-history-1.json`) of `sizeMib` MiB: a
 * real-shaped play (trakt-export.ts), then entries of their first field only (`{"id":0}`) to the
 * size. It deflates about 500 to 1 and stays within every documented bound of an upload (50 MB,
 * 256 MiB uncompressed, one entry), while parsing it makes 14 million objects per 122 MiB. Issue
 * 31's 182 KB zip held 122 MiB (the server went from 198 MB to 1.44 GB), its 350 KB one about
 * twice that.
 */
export function compressibleZip(sizeMib: number): Uint8Array {
  const chunks: Uint8Array[] = [];
  const zip = new Zip((error, chunk) => {
    if (error) throw error;
    chunks.push(chunk);
  });
  const entry = new ZipDeflate('trakt-export/watched-history-1.json', { level: 9 });
  zip.add(entry);
  const encoder = new TextEncoder();
  const element = ',{"id":0}';
  const block = encoder.encode(element.repeat(Math.floor(mib / element.length)));
  const first = encoder.encode(`[${JSON.stringify(traktPlay(0))}`);
  entry.push(first);
  // Whole elements up to exactly `sizeMib` MiB with the closing bracket (the rest is spaces).
  let left = sizeMib * mib - first.byteLength - 1;
  while (left >= block.byteLength) {
    entry.push(block);
    left -= block.byteLength;
  }
  entry.push(encoder.encode(`${element.repeat(Math.floor(left / element.length))}${' '.repeat(left % element.length)}]`), true);
  zip.end();
  const bytes = new Uint8Array(chunks.reduce((sum, chunk) => sum + chunk.byteLength, 0));
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return bytes;
}

/**
 * Letterboxd's watched.csv (`Date,Name,Year,Letterboxd URI`, ~46 bytes a row) of `rows` films,
 * each its own: the shape of issue 31's 12 MB, 300,000-row CSV. A build that takes it asks the
 * catalog's title search about them, at most 2,000 a request (limits.ts importCatalogLookups).
 */
export function letterboxdWatched(rows: number): Uint8Array {
  const lines = ['Date,Name,Year,Letterboxd URI'];
  for (let index = 0; index < rows; index += 1) {
    lines.push(`2024-0${1 + (index % 9)}-1${index % 10},Film ${index},${1990 + (index % 30)},https://boxd.it/${index.toString(36)}`);
  }
  return new TextEncoder().encode(`${lines.join('\n')}\n`);
}

/** A real-shaped Trakt export of `plays` plays (bench:import's). */
export const traktHistory = (plays: number): Uint8Array => traktExport(plays).zipped;

/**
 * An Airdate export (docs/export-format.md) of one show under `tmdb`, an id no catalog knows, with
 * the importer's chosen title, overview and poster: issue 31's item 7.
 */
export function chosenShowExport(tmdb: number, title: string): Uint8Array {
  const document = {
    format: 'airdate-export',
    version: 1,
    exportedAt: new Date().toISOString(),
    account: { name: 'attacker', timezone: 'UTC', webhookUrl: null },
    shows: [
      {
        ids: { tmdb },
        title,
        poster: 'https://posters.attacker.example/harbour.jpg',
        overview: 'Call +1 202 555 0199 to claim your prize.',
        followed: true,
        archived: false,
        episodes: [{ season: 1, number: 1, title: 'Pilot', airDate: '2025-01-01', watched: false, history: [] }],
      },
    ],
    movies: [],
    games: [],
  };
  return new TextEncoder().encode(JSON.stringify(document));
}
