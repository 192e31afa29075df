import { isCatalogImage } from '../catalog/image-origins.ts';
import type { ImportDocument } from './sources/import-document.ts';

/**
 * Drops (sets to null) every poster of `document` not served from one of `origins`, the catalogs'
 * image hosts (catalog/image-origins.ts), and says so in the document's notes: a file's poster is
 * an image the importer's own pages load too, and a row the file creates may become shared. The
 * item itself is imported as usual; a catalog's answer for it later brings the catalog's poster.
 * Returns how many were dropped.
 */
export function dropForeignPosters(document: ImportDocument, origins: readonly string[]): number {
  let dropped = 0;
  for (const items of [document.shows, document.titles]) {
    for (const item of items) {
      if (item.poster == null || isCatalogImage(item.poster, origins)) continue;
      item.poster = null;
      dropped += 1;
    }
  }
  if (dropped > 0) {
    const hosts = origins.map((origin) => new URL(origin).host).join(', ');
    (document.notes ??= []).push(`${dropped} ${dropped === 1 ? 'poster' : 'posters'} not on a catalog's image host (${hosts}) dropped`);
  }
  return dropped;
}
