import { graphql, readFragment, type FragmentOf } from '../graphql.ts';

/** What the report shows of an import's result; the import page's mutation selects it. */
export const ImportReportFields = graphql(`
  fragment ImportReportFields on ImportResult {
    dryRun
    imported {
      shows
      episodes
      movies
      games
      history
    }
    skipped {
      file
      item
      reason
    }
    notes {
      file
      note
    }
    unmatched {
      file
      kind
      title
      year
      sourceId
    }
  }
`);

/** An import's report: counts, then every unmatched and skipped item, so nothing is lost silently. */
export function ImportReport({ result }: { result: FragmentOf<typeof ImportReportFields> }) {
  const report = readFragment(ImportReportFields, result);
  const counts = report.imported;
  return (
    <section aria-labelledby="report-heading" class="report">
      <h3 id="report-heading">{report.dryRun ? 'Report (dry run, nothing written)' : 'Report'}</h3>
      <dl class="counts">
        <dt>Shows</dt>
        <dd>{counts.shows}</dd>
        <dt>Episodes</dt>
        <dd>{counts.episodes}</dd>
        <dt>Movies</dt>
        <dd>{counts.movies}</dd>
        <dt>Games</dt>
        <dd>{counts.games}</dd>
        <dt>History entries</dt>
        <dd>{counts.history}</dd>
      </dl>
      {report.notes.length > 0 && (
        <>
          <h4>How the files were read</h4>
          <ul class="items">
            {report.notes.map((item, index) => (
              <li key={index}>
                {item.file}: {item.note}
              </li>
            ))}
          </ul>
        </>
      )}
      <h4>Unmatched ({report.unmatched.length})</h4>
      {report.unmatched.length === 0 ? (
        <p>Every item was matched.</p>
      ) : (
        <>
          <p class="hint">No catalog knew these yet; they are kept and retried on every sync.</p>
          <ul class="items">
            {report.unmatched.map((item, index) => (
              <li key={index}>
                {item.title}
                {item.year ? ` (${item.year})` : ''} — {item.kind.toLowerCase()}, {item.file}
                {item.sourceId ? `, ${item.sourceId}` : ''}
              </li>
            ))}
          </ul>
        </>
      )}
      {report.skipped.length > 0 && (
        <>
          <h4>Skipped ({report.skipped.length})</h4>
          <ul class="items">
            {report.skipped.map((item, index) => (
              <li key={index}>
                {item.item} ({item.file}): {item.reason}
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}
