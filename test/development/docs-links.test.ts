import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The README and docs/ link to each other by relative paths and anchors. Every such link must
 * land on a file of the repository (none may leave it: a clone has nothing beside it) and on a
 * heading that exists there, as GitHub names its anchors.
 */
const root = fileURLToPath(new URL('../..', import.meta.url));
const documents = ['README.md', ...readdirSync(path.join(root, 'docs')).filter((file) => file.endsWith('.md')).map((file) => `docs/${file}`)];

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens; repeats get -1, -2… */
function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let inCode = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) inCode = !inCode;
    const heading = inCode ? null : /^#{1,6} (.*)$/.exec(line);
    if (!heading) continue;
    const text = heading[1]!.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').trim().toLowerCase();
    const slug = text.replace(/[^\p{L}\p{N}_\- ]/gu, '').replaceAll(' ', '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

/** The problems of every relative link of `file` (a path from the root), whose text is `markdown`. */
function brokenLinks(file: string, markdown = readFileSync(path.join(root, file), 'utf8')): string[] {
  const text = markdown.replace(/```[\s\S]*?```/g, '');
  const problems: string[] = [];
  for (const [, target] of text.matchAll(/!?\[[^\]]*\]\(([^)\s]+)\)/g)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target!)) continue; // https:, mailto:…
    const [linked, fragment] = target!.split('#') as [string, string | undefined];
    const resolved = linked === '' ? path.join(root, file) : path.resolve(path.dirname(path.join(root, file)), linked);
    if (path.relative(root, resolved).startsWith('..')) problems.push(`${file}: ${target} leaves the repository`);
    else if (!existsSync(resolved)) problems.push(`${file}: ${target} names no file`);
    else if (fragment !== undefined && resolved.endsWith('.md') && !headingAnchors(readFileSync(resolved, 'utf8')).has(fragment)) {
      problems.push(`${file}: ${target} names no heading of ${path.relative(root, resolved)}`);
    }
  }
  return problems;
}

describe('links of the README and docs/', () => {
  it('land on a file of the repository and a heading of it', () => {
    expect(documents.length).toBeGreaterThan(10);
    expect(documents.flatMap((file) => brokenLinks(file))).toEqual([]);
  });

  it('the check sees a link that leaves, a missing file and a missing heading', () => {
    expect(headingAnchors('# A `b` (c)\n## Same\n## Same')).toEqual(new Set(['a-b-c', 'same', 'same-1']));
    expect(brokenLinks('docs/x.md', '[a](../../shared/spec/a.md) [b](nope.md) [c](api.md#no-such-heading) [d](api.md#summary) [e](https://example.com)')).toEqual([
      'docs/x.md: ../../shared/spec/a.md leaves the repository',
      'docs/x.md: nope.md names no file',
      'docs/x.md: api.md#no-such-heading names no heading of docs/api.md',
    ]);
  });
});
