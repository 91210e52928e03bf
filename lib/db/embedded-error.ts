/** The embedded PostgreSQL could not start: one line naming the cause and the fix, for the CLI to print as it is. */
export class EmbeddedDatabaseError extends Error {
  override readonly name = 'EmbeddedDatabaseError'
}

/** The advice every start failure ends with when nothing more specific helps. */
export const OR_DATABASE_URL = 'or set DATABASE_URL to use a PostgreSQL of your own'
