// The PostgreSQL majors tablegate runs on (docs/deployment.md, "PostgreSQL 14 to 18"): each one's
// SQL is the same but for a logged update's (`returnsOldRows`), and the test suite runs on the oldest
// and the newest. An older server is refused
// before anything runs on it, in one line, rather than failing later on the first feature it lacks.
import { sql } from '../sql/sql.js'
import { rows, type Queryable } from './query.js'

export const OLDEST_POSTGRES = 14
export const NEWEST_POSTGRES = 18

/** `server_version_num` (170004 for 17.4) as the version people say: 17.4, or 9.6.24 before 10. */
function versionName (versionNum: number): string {
  const major = Math.floor(versionNum / 10_000)
  if (major >= 10) return `${major}.${versionNum % 10_000}`
  return `${Math.floor(versionNum / 10_000)}.${Math.floor(versionNum / 100) % 100}.${versionNum % 100}`
}

/** Why a server of this `server_version_num` cannot serve tablegate, or undefined when it can. */
export function unsupportedServer (versionNum: number): string | undefined {
  if (Math.floor(versionNum / 10_000) >= OLDEST_POSTGRES) return undefined
  return `the database server is PostgreSQL ${versionName(versionNum)}; tablegate runs on PostgreSQL ${OLDEST_POSTGRES} to ${NEWEST_POSTGRES}: upgrade the server, or point DATABASE_URL at one of those`
}

/**
 * Whether an UPDATE's RETURNING can read the row as it was before (`RETURNING WITH (OLD AS …)`,
 * PostgreSQL 18): a logged update then reads its image before from the row it writes over, with no
 * locking read of its own (lib/sql/write.ts, `updateRow`).
 */
export function returnsOldRows (versionNum: number): boolean {
  return versionNum >= 180_000
}

export async function serverVersionNum (db: Queryable): Promise<number> {
  const [server] = await rows<{ version: number }>(db, sql`SELECT current_setting('server_version_num')::int AS version`)
  return Number(server!.version)
}
