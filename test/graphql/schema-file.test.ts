import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { schema } from '../../src/schema.ts';
import { printedSchema, schemaFile } from '../../src/print-schema.ts';

describe('schema.graphql', () => {
  it('is up to date with the built schema (run `npm run schema:print`)', () => {
    expect(readFileSync(schemaFile, 'utf8')).toBe(printedSchema());
  });

  it('keeps the entry points outside tools rely on', () => {
    const sdl = printedSchema();
    expect(sdl).toMatch(/viewer: Account!/);
    expect(sdl).toMatch(/catalogLookup\(externalId: Int!, kind: MediaKind!, source: CatalogSource!\): CatalogItem/);
    // decisions.md: searchCatalog(query: String!, kind: MediaKind); any other argument (the page
    // size) must be optional, so the calls tools make today keep working.
    const search = schema.getQueryType()!.getFields().searchCatalog!;
    expect(String(search.type)).toBe('[CatalogItem!]!');
    const args = Object.fromEntries(search.args.map((arg) => [arg.name, String(arg.type)]));
    expect(args).toMatchObject({ query: 'String!', kind: 'MediaKind' });
    for (const [name, type] of Object.entries(args)) if (name !== 'query') expect(type.endsWith('!'), name).toBe(false);
    expect(sdl).toMatch(/summary: Summary!/);
    for (const type of ['Show', 'Episode', 'Movie', 'Game']) {
      expect(sdl).toMatch(new RegExp(`type ${type} \\{[^}]*databaseId: Int!`, 's'));
    }
    expect(sdl).toMatch(/enum CatalogSource \{\s+IGDB\s+TMDB\s+TVDB\s+\}/);
    expect(sdl).toMatch(/enum MediaKind \{\s+GAME\s+MOVIE\s+SHOW\s+\}/);
  });
});
