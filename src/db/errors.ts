/**
 * Raised when the database cannot be reached or opened, or is not configured the way we rely on.
 * Its message is one line meant for the operator (the command line prints it alone).
 */
export class DatabaseError extends Error {
  override name = 'DatabaseError';
}
