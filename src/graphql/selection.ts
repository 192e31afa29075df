import type { GraphQLResolveInfo, SelectionSetNode } from 'graphql';

/**
 * Whether the field being resolved asks only for sub-fields in `allowed` (through fragments too).
 * A directive anywhere (`@include`, `@skip`) answers false: the caller then takes its general path.
 */
export function selectsOnly(info: GraphQLResolveInfo, allowed: ReadonlySet<string>): boolean {
  const seen = new Set<string>();
  const check = (selectionSet: SelectionSetNode | undefined): boolean => {
    if (selectionSet === undefined) return true;
    return selectionSet.selections.every((selection) => {
      if (selection.directives?.length) return false;
      if (selection.kind === 'Field') return allowed.has(selection.name.value);
      if (selection.kind === 'InlineFragment') return check(selection.selectionSet);
      const name = selection.name.value;
      if (seen.has(name)) return true;
      seen.add(name);
      const fragment = info.fragments[name];
      return fragment !== undefined && check(fragment.selectionSet);
    });
  };
  return info.fieldNodes.every((node) => !node.directives?.length && check(node.selectionSet));
}
