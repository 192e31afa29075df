import { chosenShowExport, compressibleZip, letterboxdWatched, traktHistory } from './isolation-files.ts';
import { graphql, outcomeOf } from './isolation-client.ts';
import type { ScenarioContext } from './isolation-writes.ts';
import type { Measured } from './isolation-victim.ts';
import { postImport, type ImportAnswer } from './server-process.ts';

/**
 * bench:isolation's imports (issue 31, items 4, 5 and 7): a zip that inflates to a huge JSON
 * entry, a CSV of many rows, a real-shaped history, and a file that names a show no catalog knows.
 * Every answer is reported as it comes (a 200, a 400, a 413, a 429 or a 500).
 */

/** Each file is built once per run, the first time a build asks for it: both builds get its bytes. */
const built = new Map<string, Uint8Array>();
function file(key: string, make: () => Uint8Array): Uint8Array {
  let bytes = built.get(key);
  if (!bytes) {
    const started = performance.now();
    bytes = make();
    built.set(key, bytes);
    console.log(`  (built ${key}: ${(bytes.byteLength / 1024).toFixed(0)} KB in ${((performance.now() - started) / 1000).toFixed(1)} s)`);
  }
  return bytes;
}

const knobList = (name: string, fallback: string) => (process.env[name] ?? fallback).split(',').map(Number);

/** What an import answered, in a line: its status and time, and what it imported or why not. */
function describe(answer: ImportAnswer): string {
  const what = answer.status === 200 ? `imported ${JSON.stringify(answer.body.imported)}` : String(answer.body.error ?? JSON.stringify(answer.body)).slice(0, 160);
  return `${answer.status} after ${(answer.ms / 1000).toFixed(1)} s: ${what}`;
}

function upload(context: ScenarioContext, source: string, name: string, bytes: Uint8Array): Promise<ImportAnswer> {
  return postImport(context.origin, context.seed.attacker.token, source, name, bytes);
}

/** 4. One upload per size in BENCH_ZIP_MIB (122,240): a zip of one JSON entry of that many MiB. */
export async function zipUploads(context: ScenarioContext): Promise<Measured[]> {
  const phases: Measured[] = [];
  for (const size of knobList('BENCH_ZIP_MIB', '122,240')) {
    const bytes = file(`the zip of one ${size} MiB JSON entry`, () => compressibleZip(size));
    phases.push(await context.phase(`zip: ${(bytes.byteLength / 1024).toFixed(0)} KB of one ${size} MiB JSON entry`, async () => describe(await upload(context, 'trakt', 'trakt-export.zip', bytes))));
  }
  return phases;
}

/**
 * 5. Letterboxd's watched.csv of BENCH_CSV_ROWS (300,000) rows, then a real-shaped Trakt export
 * of BENCH_PLAYS (100,000) plays (450 shows, 5,000 films: bench:import's).
 */
export async function largeImports(context: ScenarioContext): Promise<Measured[]> {
  const [rows] = knobList('BENCH_CSV_ROWS', '300000');
  const [plays] = knobList('BENCH_PLAYS', '100000');
  const csv = file(`a watched.csv of ${rows} rows`, () => letterboxdWatched(rows!));
  const history = file(`a Trakt export of ${plays} plays`, () => traktHistory(plays!));
  return [
    await context.phase(`csv: ${rows!.toLocaleString('en')} rows (${(csv.byteLength / 1e6).toFixed(0)} MB, Letterboxd watched.csv)`, async () => describe(await upload(context, 'letterboxd', 'watched.csv', csv))),
    await context.phase(`csv: Trakt history of ${plays!.toLocaleString('en')} plays (${(history.byteLength / 1e6).toFixed(1)} MB zip)`, async () => describe(await upload(context, 'trakt', 'trakt-export.zip', history))),
  ];
}

/** An id no stored row and no catalog of the benchmark has (the fake TMDB knows one show only). */
const unusedTmdbId = 93_500_001;

/**
 * 7. The attacker imports an Airdate file that names a show under an unused TMDB id with a title,
 * overview and poster of its choosing; then the victim searches for that title (with its session
 * cookie, as the search page does): is it listed, and with whose poster?
 */
export async function importedRows(context: ScenarioContext): Promise<Measured[]> {
  const title = 'Harbour Lights Prize Line';
  const bytes = chosenShowExport(unusedTmdbId, title);
  const phase = await context.phase('private: an imported show under an unused TMDB id', async () => {
    const imported = describe(await upload(context, 'airdate', 'airdate-export.json', bytes));
    const search = await graphql(context.origin, { cookie: context.victimCookie }, 'query($q: String!) { searchCatalog(query: $q) { __typename ... on Show { title tmdbId poster } } }', { q: 'Prize Line' });
    const found = ((search.json?.data?.searchCatalog ?? []) as { title?: string; tmdbId?: number; poster?: string | null }[]).filter((item) => item.tmdbId === unusedTmdbId || item.title === title);
    const listed = found.length > 0 ? `yes, as "${found[0]!.title}" with poster ${found[0]!.poster ?? 'none'}` : 'no';
    return `import ${imported}; the victim's search (${outcomeOf(search, 'searchCatalog')}) lists it: ${listed}`;
  });
  return [phase];
}
