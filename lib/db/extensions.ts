// pg_trgm serves similar() and makes ILIKE searches indexable. It is created when the process may
// run migrations; without it (no privilege), similar() is refused with a hint, nothing else breaks.
import { sql } from '../sql/sql.js'
import { query, rows } from './query.js'
import type { Pool } from './pool.js'

export async function ensureTrigram (pool: Pool, create: boolean, warn: (message: string) => void): Promise<boolean> {
  const installed = async (): Promise<boolean> => (await rows<{ ok: boolean }>(pool, sql`SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm') AS ok`))[0]?.ok === true
  if (await installed()) return true
  if (!create) return false
  try {
    await query(pool, sql`CREATE EXTENSION IF NOT EXISTS pg_trgm`)
  } catch {
    // Another process may have created it at the same moment; only a real absence is worth a warning.
    if (await installed()) return true
    warn('pg_trgm is not installed and this role cannot create it: similar() filters are unavailable. An administrator can run CREATE EXTENSION pg_trgm.')
    return false
  }
  return await installed()
}
