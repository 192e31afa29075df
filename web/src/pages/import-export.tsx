import { useState } from 'preact/hooks';
import { request, upload } from '../client.ts';
import { Notice, PageTitle, useAction, useLoad } from '../components.tsx';
import { graphql, readFragment, type ResultOf } from '../graphql.ts';
import { ImportReport, ImportReportFields } from './import-report.tsx';

const ImportLibrary = graphql(`
  mutation ImportLibrary($source: ImportSource!, $files: [File!]!, $dryRun: Boolean, $timeZone: String) {
    importLibrary(source: $source, files: $files, dryRun: $dryRun, timeZone: $timeZone) {
      __typename
      ... on Error {
        message
      }
      ... on ImportFileError {
        file
        problem
      }
      ... on MutationImportLibrarySuccess {
        data {
          ...ImportReportFields
        }
      }
    }
  }
`, [ImportReportFields]);

const AccountZone = graphql(`
  query ImportAccountZone {
    viewer {
      timezone
    }
  }
`);

type ImportSummary = Extract<ResultOf<typeof ImportLibrary>['importLibrary'], { __typename: 'MutationImportLibrarySuccess' }>['data'];
type Source = 'TRAKT' | 'TVTIME' | 'SIMKL' | 'LETTERBOXD' | 'GROUVEE' | 'IMDB' | 'AIRDATE';

/** Every ImportSource, with what its export file is called there. */
const sources: { value: Source; label: string }[] = [
  { value: 'TRAKT', label: 'Trakt (JSON export)' },
  { value: 'TVTIME', label: 'TV Time (GDPR export)' },
  { value: 'SIMKL', label: 'Simkl (JSON backup)' },
  { value: 'LETTERBOXD', label: 'Letterboxd (CSV export)' },
  { value: 'GROUVEE', label: 'Grouvee (collection CSV)' },
  { value: 'IMDB', label: 'IMDb (ratings, watchlist or list CSV)' },
  { value: 'AIRDATE', label: 'Airdate (an export of this or another Airdate)' },
];

/** Sources whose files write times without a zone: the page asks which zone they are in. */
const zonedSources = new Set<Source>(['TVTIME']);

/** Every zone the browser knows, for the select of the zone of times without one. */
const zones: string[] = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];

const loadAccountZone = async () => (await request(AccountZone)).viewer.timezone;

/** Import files of another tracker and see the report; download this account's export. */
export default function ImportExportPage() {
  const [source, setSource] = useState<Source>('TRAKT');
  const [files, setFiles] = useState<File[]>([]);
  const [dryRun, setDryRun] = useState(false);
  const { data: accountZone } = useLoad(loadAccountZone);
  // Undefined until the person picks one: the account's zone is then what the select shows and sends.
  const [pickedZone, setPickedZone] = useState<string | undefined>(undefined);
  const timeZone = pickedZone ?? accountZone;
  const [report, setReport] = useState<ImportSummary | null>(null);
  const run = useAction(async () => {
    setReport(null);
    if (files.length === 0) throw new Error('Choose at least one file.');
    const zoned = zonedSources.has(source) && timeZone !== undefined;
    const result = (await upload(ImportLibrary, { source, files, dryRun, ...(zoned ? { timeZone } : {}) })).importLibrary;
    if (result.__typename === 'ImportFileError') throw new Error(`${result.file}: ${result.problem}`);
    if (result.__typename !== 'MutationImportLibrarySuccess') throw new Error(result.message);
    setReport(result.data);
    return readFragment(ImportReportFields, result.data).dryRun ? 'Dry run finished: nothing was written.' : 'Import finished.';
  });

  return (
    <section>
      <PageTitle>Import & export</PageTitle>
      <section class="card" aria-labelledby="import-heading">
        <h2 id="import-heading">Import</h2>
        <p class="hint">Nothing is ever deleted or duplicated; importing the same file twice adds nothing.</p>
        <form
          onSubmit={(event) => {
            event.preventDefault();
            void run.run();
          }}
        >
          <div class="field">
            <label for="import-source">From</label>
            <select id="import-source" value={source} onChange={(event) => setSource(event.currentTarget.value as Source)}>
              {sources.map((item) => (
                <option key={item.value} value={item.value}>
                  {item.label}
                </option>
              ))}
            </select>
          </div>
          {zonedSources.has(source) && timeZone !== undefined && (
            <div class="field">
              <label for="import-zone">Times without a time zone are in</label>
              <select id="import-zone" value={timeZone} onChange={(event) => setPickedZone(event.currentTarget.value)}>
                {(zones.includes(timeZone) ? zones : [timeZone, ...zones]).map((zone) => (
                  <option key={zone} value={zone}>
                    {zone === accountZone ? `${zone} (your account's)` : zone}
                  </option>
                ))}
              </select>
              <span class="hint">Some TV Time exports write your local time without saying so; the report tells which zone was used.</span>
            </div>
          )}
          <div class="field">
            <label for="import-files">Files (zips too)</label>
            <input id="import-files" type="file" multiple onChange={(event) => setFiles(Array.from(event.currentTarget.files ?? []))} />
          </div>
          <div class="check">
            <input id="dry-run" type="checkbox" checked={dryRun} onChange={(event) => setDryRun(event.currentTarget.checked)} />
            <label for="dry-run">Dry run: show the report, write nothing</label>
          </div>
          <button class="primary" disabled={run.busy}>
            {run.busy ? 'Importing…' : 'Import'}
          </button>
        </form>
        <Notice outcome={run.outcome} />
        {report && <ImportReport result={report} />}
      </section>
      <section class="card" aria-labelledby="export-heading">
        <h2 id="export-heading">Export</h2>
        <p>Your whole library with its watch history, as JSON that another Airdate can import.</p>
        <a class="button" href="/api/export" download="airdate-export.json">
          Download export
        </a>
      </section>
    </section>
  );
}
