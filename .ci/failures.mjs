// Reads vitest JSON reports (`--reporter=json --outputFile.json=F`) for .ci/run.
//   node .ci/failures.mjs files <report.json>
//     prints the test files that failed, one per line (nothing when none did or the report is missing)
//   node .ci/failures.mjs summary <label>=<report.json>[,<rerun.json>] ...
//     prints each run's counts and its failed tests with the first lines of their messages, so that
//     the last lines of a CI log name what failed; with a rerun report, each failed test is marked
//     FLAKY (passed when its file ran again) or FAILED (failed again, or was not run again).
import { existsSync, readFileSync } from 'node:fs';
import { relative } from 'node:path';

const readReport = (file) => (existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : undefined);
const firstLines = (text, count) => String(text).split('\n').filter((line) => line.trim() !== '').slice(0, count).join('\n      ');

/** Each failure of a report: its file, its name (file-level errors have none) and message. */
function failuresOf(report) {
  const failures = [];
  for (const result of report?.testResults ?? []) {
    const file = relative(process.cwd(), result.name);
    const failed = (result.assertionResults ?? []).filter((assertion) => assertion.status === 'failed');
    for (const assertion of failed) failures.push({ file, name: assertion.fullName, message: (assertion.failureMessages ?? []).join('\n') });
    if (failed.length === 0 && result.status === 'failed') failures.push({ file, name: '', message: result.message ?? 'failed' });
  }
  return failures;
}

const [mode, ...args] = process.argv.slice(2);
if (mode === 'files') {
  for (const file of new Set(failuresOf(readReport(args[0])).map((failure) => failure.file))) console.log(file);
} else if (mode === 'summary') {
  for (const argument of args) {
    const separator = argument.indexOf('=');
    const label = argument.slice(0, separator);
    const [first, rerun] = argument.slice(separator + 1).split(',');
    const report = readReport(first);
    if (!report) {
      console.log(`${label}: no test report`);
      continue;
    }
    console.log(`${label}: ${report.numPassedTests ?? 0} passed, ${report.numFailedTests ?? 0} failed, ${report.numPendingTests ?? 0} skipped`);
    const again = rerun ? readReport(rerun) : undefined;
    const failedAgain = new Set(failuresOf(again).map((failure) => `${failure.file} > ${failure.name}`));
    const rerunFiles = new Set((again?.testResults ?? []).map((result) => relative(process.cwd(), result.name)));
    if (again) console.log(`  its failed files ran again: ${again.numPassedTests ?? 0} passed, ${again.numFailedTests ?? 0} failed`);
    for (const failure of failuresOf(report)) {
      const id = `${failure.file} > ${failure.name}`;
      const flaky = rerunFiles.has(failure.file) && !failedAgain.has(id) && !failedAgain.has(`${failure.file} > `);
      console.log(`  ${flaky ? 'FLAKY (passed when run again)' : 'FAILED'} ${failure.name ? id : failure.file}\n      ${firstLines(failure.message, 4)}`);
    }
  }
} else {
  console.error('usage: node .ci/failures.mjs files <report.json> | summary <label>=<report.json>[,<rerun.json>] ...');
  process.exit(2);
}
