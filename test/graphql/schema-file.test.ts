import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { printedSchema, schemaFile } from '../../src/schema/print.ts';

describe('schema.graphql', () => {
  it('is up to date with the built schema (run `npm run schema:print`)', () => {
    expect(readFileSync(schemaFile, 'utf8')).toBe(printedSchema());
  });

  it('keeps the entry points outside tools rely on', () => {
    const sdl = printedSchema();
    expect(sdl).toMatch(/viewer: Account!/);
    expect(sdl).toMatch(/catalogLookup\(externalId: Int!, kind: MediaKind!, source: CatalogSource!\): CatalogItem/);
    expect(sdl).toMatch(/searchCatalog\(kind: MediaKind, query: String!\): \[CatalogItem!\]!/);
    expect(sdl).toMatch(/summary: Summary!/);
    for (const type of ['Show', 'Episode', 'Movie', 'Game']) {
      expect(sdl).toMatch(new RegExp(`type ${type} \\{[^}]*databaseId: Int!`, 's'));
    }
    expect(sdl).toMatch(/enum CatalogSource \{\s+IGDB\s+TMDB\s+TVDB\s+\}/);
    expect(sdl).toMatch(/enum MediaKind \{\s+GAME\s+MOVIE\s+SHOW\s+\}/);
  });
});
