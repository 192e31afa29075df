/** Values per `IN (…)` list and per `updateMany` through Prisma: inside the 999 parameters its SQLite adapter allows. */
export const prismaListValues = 500;

/** `items` in slices of `size` (the last one shorter). */
export function chunks<T>(items: readonly T[], size: number): T[][] {
  const parts: T[][] = [];
  for (let start = 0; start < items.length; start += size) parts.push(items.slice(start, start + size));
  return parts;
}
