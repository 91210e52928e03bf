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

/** A row of the session table, without the token's hash. */
export interface SessionRow {
  id: string
  user_id: string
  expires_at: Date
  created_at: Date
  ip_address: string | null
  user_agent: string | null
  /** The organization the session works in (organization-actions.ts keeps it one the user is a member of). */
  active_organization_id: string | null
}

/** A live session and its user; banned users have none (banning deletes their sessions). */
export async function liveSession (db: Queryable, tables: AuthTables, token: string): Promise<{ session: SessionRow, user: UserRow } | undefined> {
  type Joined = UserRow & { session_id: string, session_expires_at: Date, session_created_at: Date, session_ip_address: string | null, session_user_agent: string | null, session_active_organization_id: string | null }
  const [found] = await rows<Joined>(db, sql`SELECT u.*, s.id AS session_id, s.expires_at AS session_expires_at, s.created_at AS session_created_at,
      s.ip_address AS session_ip_address, s.user_agent AS session_user_agent, s.active_organization_id AS session_active_organization_id
    FROM ${tables.session} s JOIN ${tables.user} u ON u.id = s.user_id
    WHERE s.token_hash = ${hashToken(token)} AND s.expires_at > now() AND NOT u.banned`)
  if (found === undefined) return undefined
  const { session_id: id, session_expires_at: expiresAt, session_created_at: createdAt, session_ip_address: ip, session_user_agent: agent, session_active_organization_id: active, ...user } = found
  return { session: { id, user_id: user.id, expires_at: expiresAt, created_at: createdAt, ip_address: ip, user_agent: agent, active_organization_id: active }, user }
}

/** The user behind a live session. */
export async function sessionUser (db: Queryable, tables: AuthTables, token: string): Promise<UserRow | undefined> {
  return (await liveSession(db, tables, token))?.user
}

/** Ends one session (a sign-out); an unknown token ends nothing. */
export async function endSession (db: Queryable, tables: AuthTables, token: string): Promise<void> {
  await query(db, sql`DELETE FROM ${tables.session} WHERE token_hash = ${hashToken(token)}`)
}

export async function endSessions (db: Queryable, tables: AuthTables, userId: string): Promise<void> {
  await query(db, sql`DELETE FROM ${tables.session} WHERE user_id = ${userId}`)
}

/** Ends every session of the user but one (the caller's own). */
export async function endOtherSessions (db: Queryable, tables: AuthTables, userId: string, keepId: string): Promise<void> {
  await query(db, sql`DELETE FROM ${tables.session} WHERE user_id = ${userId} AND id <> ${keepId}`)
}
