import { Prisma } from '../generated/prisma/client.ts';

/** Whether `error` is Prisma's unique-constraint violation (P2002), e.g. a taken name or a lost creation race. */
export function isUniqueViolation(error: unknown): boolean {
  return error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2002';
}

/** Whether `error` is Prisma's foreign-key violation (P2003): the referenced row does not exist. */
export function isForeignKeyViolation(error: unknown): boolean {
  return error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2003';
}
