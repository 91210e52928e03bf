// Where the built-in login keeps its store (docs/decisions.md, "Login store"): `authSchema` when the
// config sets it; else where the store already is, so an install from before the default keeps
// its tables where they are (the search path's schema, usually public); else, on a new database, a
// schema of its own, apart from the application's tables, so that nothing that reads the
// application's schema (`tablegate init`, a reporting tool, a careless `GRANT ... ON ALL TABLES`)
// meets password hashes and signing keys.
import { sql } from '../sql/sql.js'
import { rows, type Queryable } from './query.js'

export const DEFAULT_AUTH_SCHEMA = 'tablegate_auth'

export async function storeSchema (db: Queryable, configured: string | undefined): Promise<string> {
  if (configured !== undefined) return configured
  const [found] = await rows<{ schema: string | null }>(db, sql`SELECT (SELECT n.nspname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.oid = to_regclass(${'auth_user'})) AS schema`)
  return found?.schema ?? DEFAULT_AUTH_SCHEMA
}
