import fc from 'fast-check';
import {
  getNamedType,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  isUnionType,
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLNamedType,
  type GraphQLSchema,
} from 'graphql';

/** A GraphQL request as a client would send it. */
export interface GeneratedRequest {
  query: string;
  variables?: Record<string, unknown>;
  operationName?: string;
}

/** Fields a fuzzed operation never selects: they would log the test out or need real files. */
const neverSelected = new Set(['regenerateToken', 'importLibrary']);

/** Pick one of `items` with fast-check's generator, so runs replay from their seed. */
type Gen = fc.GeneratorValue;
const pick = <T>(g: Gen, items: readonly T[]): T => items[g(fc.nat, { max: items.length - 1 })]!;
const chance = (g: Gen, percent: number): boolean => g(fc.nat, { max: 99 }) < percent;

/** Values that break things when they are not checked: huge, negative, wrong-typed, odd text. */
const hostileScalars = [
  '-5',
  '0',
  '2147483647',
  '2147483648',
  '-2147483649',
  '1e308',
  '3.5',
  'true',
  'null',
  '"x"',
  '""',
  '"%_\\\\%"',
  '"\\u0000"',
  '"😀日本"',
  `"${'a'.repeat(5_000)}"`,
  '[1, 2, 3]',
  '{ a: 1 }',
  'EPISODE',
  '$undeclared',
];

/**
 * Builds one random document against `schema`: operations of random depth (up to 14), fields
 * (real ones and a few that do not exist), aliases (sometimes clashing), arguments (valid values,
 * hostile literals, variables of right and wrong types), inline and named fragments (sometimes
 * cyclic or unused), directives (real, misplaced, unknown), several operations and an
 * operationName that may not match, and now and then the text cut or garbled into a syntax
 * error. Every run is determined by fast-check's seed.
 */
export function generateRequest(g: Gen, schema: GraphQLSchema): GeneratedRequest {
  // Half the documents are meant to be valid (small pages, real fields, fitting values), so the
  // fuzz reaches execution and not only the validation; the other half are hostile throughout.
  const clean = chance(g, 50);
  const hostile = (percent: number) => !clean && chance(g, percent);
  const variables: Record<string, unknown> = {};
  const declarations: string[] = [];
  const fragments: string[] = [];
  const maxDepth = g(fc.integer, { min: 1, max: clean ? 6 : 14 });
  let aliasCount = 0;

  const literalFor = (type: GraphQLInputType, depth: number, name = ''): string => {
    if (hostile(12)) return pick(g, hostileScalars);
    if (isNonNullType(type)) return literalFor(type.ofType, depth);
    if (isListType(type)) {
      const length = g(fc.nat, { max: 3 });
      return `[${Array.from({ length }, () => literalFor(type.ofType, depth + 1)).join(', ')}]`;
    }
    if (isEnumType(type)) return pick(g, type.getValues()).name;
    if (isInputObjectType(type)) {
      if (depth > 3) return '{}';
      const fields = Object.values(type.getFields()).filter(() => chance(g, 70));
      return `{ ${fields.map((field) => `${field.name}: ${literalFor(field.type, depth + 1)}`).join(', ')} }`;
    }
    switch (isScalarType(type) ? type.name : '') {
      case 'Int':
        if (clean) return String(name === 'offset' ? pick(g, [0, 1, 2]) : pick(g, [1, 2, 3]));
        return String(pick(g, [1, 2, 3, 5, 10, 50, 100, 500, 5_000, -1, 0]));
      case 'Boolean':
        return pick(g, ['true', 'false']);
      case 'LocalDate':
        return clean ? '"2026-11-21"' : pick(g, ['"2026-11-21"', '"2026-02-30"', '"21/11/2026"']);
      case 'DateTime':
        return clean ? '"2026-11-21T10:00:00.000Z"' : pick(g, ['"2026-11-21T10:00:00.000Z"', '"yesterday"']);
      default:
        return clean ? pick(g, ['"e"', '"Show"', '"a"']) : pick(g, ['"e"', '"Show"', '"https://example.com/hook"', '"Europe/Berlin"', '"Mars/Olympus"', '""']);
    }
  };

  /** A variable for `arg`, declared with its type or a wrong one, with a fitting or unfitting value. */
  const variableFor = (arg: GraphQLArgument): string => {
    const name = `v${declarations.length}`;
    const declared = clean || chance(g, 80) ? String(arg.type) : pick(g, ['Int', 'String!', '[Int!]!', 'Boolean', 'NoSuchType']);
    declarations.push(`$${name}: ${declared}`);
    if (clean) {
      // A literal of the right type, read back as JSON: enums and strings stay strings.
      const literal = literalFor(arg.type, 0, arg.name);
      variables[name] = /^-?\d+$/.test(literal) ? Number(literal) : literal === 'true' || literal === 'false' ? literal === 'true' : literal.startsWith('"') ? JSON.parse(literal) : /^[A-Z_]+$/.test(literal) ? literal : undefined;
    } else if (chance(g, 85)) {
      variables[name] = pick(g, [1, 5, 50, 500, 5_000, -5, 2_147_483_648, 'x', '', true, null, [1], { deep: { deeper: [1, 2] } }, 'EPISODE', 'a'.repeat(300)]);
    }
    return `$${name}`;
  };

  const argumentsFor = (field: GraphQLField<unknown, unknown>): string => {
    const parts: string[] = [];
    for (const arg of field.args) {
      // Clean documents always give page sizes: the defaults multiply into costs over the limit.
      const pageSize = arg.name === 'first' || arg.name === 'last';
      if (!isNonNullType(arg.type) && !(clean && pageSize) && chance(g, 50)) continue;
      if (isNonNullType(arg.type) && hostile(5)) continue; // a required argument left out
      if (clean && arg.name === 'last') continue;
      const value = chance(g, 25) && !(clean && isInputObjectType(getNamedType(arg.type))) ? variableFor(arg) : literalFor(arg.type, 0, arg.name);
      parts.push(`${arg.name}: ${value}`);
    }
    if (hostile(5)) parts.push(`noSuchArgument: 1`);
    return parts.length === 0 ? '' : `(${parts.join(', ')})`;
  };

  const directives = (): string => {
    if (!chance(g, 15)) return '';
    if (clean) return ` ${pick(g, ['@include(if: true)', '@skip(if: false)', '@skip(if: true)'])}`;
    return ` ${pick(g, ['@include(if: true)', '@skip(if: false)', '@include(if: $undeclaredFlag)', '@deprecated', '@nope', '@skip(if: true) @skip(if: true)'])}`;
  };

  const selectionSet = (type: GraphQLNamedType, depth: number): string => {
    if (isUnionType(type) || (isInterfaceType(type) && chance(g, 50))) {
      const members = isUnionType(type) ? type.getTypes() : schema.getPossibleTypes(type);
      const chosen = members.filter(() => chance(g, 60));
      const inline = chosen.map((member) => `... on ${member.name}${directives()} ${selectionSet(member, depth)}`);
      return `{ __typename ${inline.join(' ')} }`;
    }
    if (!isObjectType(type) && !isInterfaceType(type)) return '';
    const fields = Object.values(type.getFields()).filter((field) => !neverSelected.has(field.name));
    const count = g(fc.integer, { min: 1, max: 4 });
    const selections: string[] = [];
    for (let index = 0; index < count; index += 1) {
      if (chance(g, 4)) {
        selections.push(clean ? pick(g, ['__typename', '__type(name: "Show") { name fields { name } }']) : pick(g, ['noSuchField', '__schema { types { name } }', '__type(name: "Show") { name fields { name } }']));
        continue;
      }
      const field = pick(g, fields);
      const named = getNamedType(field.type);
      const leaf = isScalarType(named) || isEnumType(named);
      if (!leaf && depth >= maxDepth) {
        selections.push('__typename');
        continue;
      }
      let alias = '';
      if (chance(g, 20)) {
        aliasCount += 1;
        alias = hostile(20) ? 'same: ' : `a${aliasCount}: `;
      }
      const sub = leaf ? (hostile(3) ? ' { nope }' : '') : ` ${selectionSet(named, depth + 1)}`;
      selections.push(`${alias}${field.name}${argumentsFor(field)}${directives()}${sub}`);
    }
    if (chance(g, 8)) {
      const name = `F${fragments.length}`;
      // Sometimes the fragment spreads itself: a cycle the validation must refuse.
      const body = hostile(20) ? `{ __typename ...${name} }` : selectionSet(type, depth + 1);
      fragments.push(`fragment ${name} on ${type.name} ${body}`);
      selections.push(`...${name}`);
    }
    return `{ ${selections.join(' ')} }`;
  };

  const operations: string[] = [];
  const names: string[] = [];
  const operationCount = hostile(20) ? 2 : 1;
  for (let index = 0; index < operationCount; index += 1) {
    const mutation = chance(g, 20);
    const root = mutation ? schema.getMutationType()! : schema.getQueryType()!;
    const name = clean || chance(g, 60) ? `Op${index}` : '';
    if (name) names.push(name);
    const body = selectionSet(root, 1);
    const vars = declarations.length > 0 ? `(${declarations.join(', ')})` : '';
    operations.push(`${mutation ? 'mutation' : 'query'} ${name}${name ? vars : vars ? `Anon${vars}` : ''}${directives()} ${body}`);
    declarations.length = 0;
  }
  let query = [...operations, ...fragments].join('\n');
  if (hostile(10)) query = query.slice(0, g(fc.nat, { max: query.length }));
  if (hostile(10)) {
    const at = g(fc.nat, { max: query.length });
    query = `${query.slice(0, at)}${pick(g, ['{', '}', '(', '"', '$', '...', '#', '\u0000'])}${query.slice(at)}`;
  }
  const request: GeneratedRequest = { query };
  if (Object.keys(variables).length > 0 || hostile(5)) request.variables = hostile(3) ? ([] as unknown as Record<string, unknown>) : variables;
  if (names.length > 0 && chance(g, 50)) request.operationName = hostile(15) ? 'NoSuchOperation' : pick(g, names);
  return request;
}
