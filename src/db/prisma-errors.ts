import { Prisma } from '../generated/prisma/client.ts';

/** Whether `error` is Prisma's unique-constraint violation (P2002), e.g. a taken name or a lost creation race. */
export function isUniqueViolation(error: unknown): boolean {
  if (!(error instanceof Prisma.PrismaClientKnownRequestError)) return false;
  if (error.code === 'P2002') return true;
  // A raw statement's failure (the bulk import writes): the driver adapter's classification.
  const cause = (error.meta as { driverAdapterError?: { cause?: { kind?: unknown } } } | undefined)?.driverAdapterError?.cause;
  return error.code === 'P2010' && cause?.kind === 'UniqueConstraintViolation';
}

/** Whether `error` is Prisma's foreign-key violation (P2003): the referenced row does not exist. */
export function isForeignKeyViolation(error: unknown): boolean {
  return error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2003';
}

/**
 * Runs `work` (a whole transaction) again when it lost an insert race: two writers creating the
 * same new row at once on PostgreSQL, where the later insert breaks a unique index. Run again, it
 * finds the other's row and takes the "already there" path. SQLite runs one write transaction at a
 * time, so there it never repeats.
 */
export async function retryOnUniqueViolation<T>(work: () => Promise<T>, attempts = 3): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (attempt >= attempts || !isUniqueViolation(error)) throw error;
    }
  }
}
