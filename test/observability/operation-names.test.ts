import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { knownOperationNames } from '../../src/metrics/operation-names.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** The names of the operations written in the sources under `folder` whose names match `files` (`query Name`, `mutation Name(`). */
function operationNames(folder: string, fileNames = /\.tsx?$/): string[] {
  const files = readdirSync(path.join(root, folder), { recursive: true, encoding: 'utf8' }).filter((file) => fileNames.test(file));
  return files.flatMap((file) => [...readFileSync(path.join(root, folder, file), 'utf8').matchAll(/\b(?:query|mutation|subscription)\s+([A-Z]\w*)\s*[({]/g)].map((match) => match[1]!));
}

it("knows exactly the web app's and the REST facade's operation names (the metrics label only those)", () => {
  const web = operationNames('web/src');
  // The REST facade's operations are written in each feature's route file.
  const rest = operationNames('src', /-routes?\.ts$/);
  // The scan finds them all: each page's operations, every REST route's.
  expect(web.length).toBeGreaterThanOrEqual(27);
  expect(rest).toEqual(expect.arrayContaining(['MachineSummary', 'MachineImport', 'CalendarFeed', 'MachineExport']));
  expect([...knownOperationNames].sort()).toEqual([...new Set([...web, ...rest])].sort());
});
