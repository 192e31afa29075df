import { rowLabel, showTitle, type RowContext } from './tvtime-rows.ts';

/**
 * `lists-prod-lists.csv` of the GDPR export: one row per list, its items in the `objects` column
 * as a dump of Go maps, `[map[created_at:1.6e+09 id:83322 type:series] map[type:movie uuid:…]]`.
 * Series are TheTVDB ids; movies are TV Time uuids, named through the v1 tracking file of the same
 * upload, or the data export's movies file with their ids (a movie no file names is reported:
 * nothing could ever match it). Every item is followed.
 */
export function readListV1(context: RowContext): void {
  const { row, collector, names } = context;
  const list = row.get('name') || row.get('list_name') || row.get('id') || row.get('list_id');
  const what = (item: string) => rowLabel(row, `${item} of list "${list}"`);
  for (const [, body] of row.get('objects').matchAll(/map\[([^\]]*)\]/g)) {
    const fields = new Map([...body!.matchAll(/([a-z_]+):(\S+)/g)].map(([, key, value]) => [key!, value!]));
    const type = fields.get('type');
    // Go prints a map's numbers as float64 in their shortest form (`8e+04` is 80000): exact integers still.
    const id = Number(fields.get('id'));
    const uuid = fields.get('uuid');
    if (type === 'series' && Number.isSafeInteger(id) && id > 0 && id <= 2_147_483_647) {
      collector.show({ tvdb: id }, showTitle(names, { tvdb: id }, ''));
    } else if (type === 'movie' && uuid) {
      const movie = names.movieByUuid.get(uuid);
      if (movie) collector.movie({ uuid, tvdb: movie.tvdb, imdb: movie.imdb }, movie.title, movie.year);
      else collector.skip(what(`movie ${uuid}`), 'a movie known only by its TV Time uuid, which no other file of the upload names');
    } else {
      collector.skip(what(`map[${body}]`), 'is neither a series with a TheTVDB id nor a movie with a TV Time uuid');
    }
  }
}
