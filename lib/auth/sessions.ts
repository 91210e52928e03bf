// Sessions: a random token in the (signed) cookie, only its SHA-256 in the database, so a read of
// the session table yields nothing a browser could replay.
import { createHash, randomBytes } from 'node:crypto'
import { sql } from '../sql/sql.js'
import { query, rows, type Queryable } from '../db/query.js'
import type { AuthTables } from './store/migrate.js'
import type { UserRow } from './store/migrate.js'

export const SESSION_TTL_SECONDS = 7 * 24 * 60 * 60

function hashToken (token: string): string {
  return createHash('sha256').update(token).digest('hex')
}

export interface SessionMeta {
  readonly ipAddress?: string | undefined
  readonly userAgent?: string | undefined
}

export async function createSession (db: Queryable, tables: AuthTables, userId: string, meta: SessionMeta): Promise<{ token: string, expiresAt: Date }> {
  const token = randomBytes(32).toString('base64url')
  const expiresAt = new Date(Date.now() + SESSION_TTL_SECONDS * 1000)
  await query(db, sql`INSERT INTO ${tables.session} (id, token_hash, user_id, expires_at, ip_address, user_agent)
    VALUES (${randomBytes(16).toString('base64url')}, ${hashToken(token)}, ${userId}, ${expiresAt}, ${meta.ipAddress ?? null}, ${meta.userAgent ?? null})`)
  return { token, expiresAt }
}

/** The user behind a live session; banned users have none (banning deletes their sessions). */
export async function sessionUser (db: Queryable, tables: AuthTables, token: string): Promise<UserRow | undefined> {
  const [user] = await rows<UserRow>(db, sql`SELECT u.* FROM ${tables.session} s JOIN ${tables.user} u ON u.id = s.user_id
    WHERE s.token_hash = ${hashToken(token)} AND s.expires_at > now() AND NOT u.banned`)
  return user
}

export async function endSessions (db: Queryable, tables: AuthTables, userId: string): Promise<void> {
  await query(db, sql`DELETE FROM ${tables.session} WHERE user_id = ${userId}`)
}
