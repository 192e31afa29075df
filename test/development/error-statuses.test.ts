import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * Errors become HTTP statuses in one place, src/http/error-status.ts (docs/development.md "The
 * rule", docs/api.md "Errors"): no other source file maps an error to a status or its headers.
 * Each rule below is a way the four places that did it before (errors.ts's status getter, the
 * edge, the /graphql endpoint's maskError, runOperation and the early answers) wrote it.
 */
const root = fileURLToPath(new URL('../..', import.meta.url));
const theModule = 'http/error-status.ts';

const rules: { name: string; pattern: RegExp }[] = [
  { name: 'names the table of statuses by code', pattern: /\b(httpStatusByCode|statusByCode)\b/g },
  { name: "reads a caught error's status or headers", pattern: /\b(error|cause|err|reason|refusal)\.(status|headers)\b/g },
  // Header names are written in lower case throughout (the OpenAPI document's 'Retry-After' describes one).
  { name: 'writes a Retry-After header', pattern: /['"]retry-after['"]\s*:/g },
  { name: 'makes an HttpError of a status it computed', pattern: /new HttpError\((?!\s*\d)/g },
  { name: 'gives a GraphQL error a status it computed', pattern: /http:\s*\{\s*status\b(?!\s*:\s*\d)/g },
  { name: 'answers an error with a status that is neither a literal nor error-status.ts’s', pattern: /(?<!function )errorResponse\((?!\s*(\d|answer\.status\b))/g },
];

/**
 * Files that read the status of an answer from a peer of ours (a catalog, the identity provider),
 * never to answer with it.
 */
const peersAnswers = [/^catalog\//, /^accounts\/single-sign-on\/oidc\.ts$/];

function sourceFiles(): string[] {
  return readdirSync(path.join(root, 'src'), { recursive: true, encoding: 'utf8' })
    .map((file) => file.split(path.sep).join('/'))
    .filter((file) => file.endsWith('.ts') && !file.startsWith('generated/'));
}

/** `file:line: rule` for each place in the code (comments blanked, so a call may span lines) that breaks a rule. */
function breaches(file: string): string[] {
  const lines = readFileSync(path.join(root, 'src', file), 'utf8').split('\n');
  const code = lines.map((line) => (/^\s*(\*|\/\*|\/\/)/.test(line) ? '' : line)).join('\n');
  const found: string[] = [];
  for (const rule of rules) {
    if (rule.name.startsWith("reads a caught error's") && peersAnswers.some((peer) => peer.test(file))) continue;
    for (const match of code.matchAll(rule.pattern)) {
      const line = code.slice(0, match.index).split('\n').length;
      found.push(`src/${file}:${line}: ${rule.name}: ${lines[line - 1]!.trim()}`);
    }
  }
  return found;
}

describe('errors become statuses in one place', () => {
  it(`no source file but src/${theModule} maps an error to a status or its headers`, () => {
    const files = sourceFiles();
    expect(files).toContain(theModule);
    expect(files.filter((file) => file !== theModule).flatMap(breaches)).toEqual([]);
  });

  it('the rules find what they look for (they are not vacuous): the module itself writes the table and Retry-After', () => {
    const found = breaches(theModule).map((line) => line.split(': ')[1]);
    expect(found).toContain('names the table of statuses by code');
    expect(found).toContain('writes a Retry-After header');
  });
});
