// One-time tokens of the account links (email verification, password reset, email change): 32
// random bytes, of which the store keeps only the SHA-256, so a read of the table yields no link
// anyone could follow. Taking a token deletes its row in the same statement that reads it, so two
// requests with one token cannot both succeed; a password change deletes every token of the user.
import { createHash, randomBytes } from 'node:crypto'
import { sql } from '../sql/sql.js'
import { query, rows, type Queryable } from '../db/query.js'
import type { Pool } from '../db/pool.js'
import { withTransaction } from '../db/transaction.js'
import type { AuthTables, UserRow } from './store/migrate.js'

export type TokenPurpose = 'verify-email' | 'reset-password' | 'change-email'

function hashOf (token: string): string {
  return createHash('sha256').update(token).digest('hex')
}

/** A new token for `userId`, about `email` (the address it verifies or changes to), valid `ttlSeconds`. */
export async function issueOneTimeToken (db: Queryable, tables: AuthTables, purpose: TokenPurpose, userId: string, email: string, ttlSeconds: number): Promise<string> {
  const token = randomBytes(32).toString('base64url')
  // The user's spent links of this kind go with each new one: the table holds live tokens only.
  await query(db, sql`DELETE FROM ${tables.oneTimeToken} WHERE user_id = ${userId} AND purpose = ${purpose} AND expires_at <= now()`)
  await query(db, sql`INSERT INTO ${tables.oneTimeToken} (token_hash, purpose, user_id, email, expires_at)
    VALUES (${hashOf(token)}, ${purpose}, ${userId}, ${email}, now() + ${ttlSeconds}::integer * interval '1 second')`)
  return token
}

/**
 * A new token in a transaction of its own whose commit does not wait for the disk: a request that
 * issues one answers no slower than one that does not (a lost link is asked for again).
 */
export async function issueOneTimeTokenAlone (pool: Pool, tables: AuthTables, purpose: TokenPurpose, userId: string, email: string, ttlSeconds: number): Promise<string> {
  return await withTransaction(pool, {}, async (db) => {
    await query(db, sql`SET LOCAL synchronous_commit TO off`)
    return await issueOneTimeToken(db, tables, purpose, userId, email, ttlSeconds)
  })
}

/**
 * Issues a token for the user `email` names, if there is one `eligible` admits (not banned; for a
 * verification link, not verified yet), in one statement that runs whether or not there is: a known
 * and an unknown email cost the same round trip. The commit does not wait for the disk (a lost link
 * is asked for again), so the answer that wrote a row is no slower than the one that did not.
 */
export async function issueToEmail (pool: Pool, tables: AuthTables, purpose: TokenPurpose, email: string, eligible: 'any' | 'unverified', ttlSeconds: number): Promise<{ user: UserRow, token: string } | undefined> {
  const token = randomBytes(32).toString('base64url')
  const unverified = eligible === 'unverified' ? sql`AND NOT email_verified` : sql.empty
  return await withTransaction(pool, {}, async (db) => {
    await query(db, sql`SET LOCAL synchronous_commit TO off`)
    const [user] = await rows<UserRow>(db, sql`WITH target AS (
        SELECT * FROM ${tables.user} WHERE email = ${email} AND NOT banned ${unverified}
      ), spent AS (
        DELETE FROM ${tables.oneTimeToken} WHERE user_id IN (SELECT id FROM target) AND purpose = ${purpose} AND expires_at <= now()
      ), issued AS (
        INSERT INTO ${tables.oneTimeToken} (token_hash, purpose, user_id, email, expires_at)
        SELECT ${hashOf(token)}, ${purpose}, id, email, now() + ${ttlSeconds}::integer * interval '1 second' FROM target
      )
      SELECT * FROM target`)
    return user === undefined ? undefined : { user, token }
  })
}

export interface TakenToken {
  readonly purpose: TokenPurpose
  readonly userId: string
  readonly email: string
  readonly expired: boolean
}

/** Takes the token (of one of `purposes`): its row is gone once this returns, whether it was still valid (`expired: false`) or not. */
export async function takeOneTimeToken (db: Queryable, tables: AuthTables, purposes: readonly TokenPurpose[], token: unknown): Promise<TakenToken | undefined> {
  if (typeof token !== 'string' || token === '' || token.length > 200) return undefined
  const [taken] = await rows<{ purpose: TokenPurpose, user_id: string, email: string, expired: boolean }>(db, sql`DELETE FROM ${tables.oneTimeToken}
    WHERE token_hash = ${hashOf(token)} AND purpose = ANY (${purposes}::text[]) RETURNING purpose, user_id, email, expires_at <= now() AS expired`)
  return taken === undefined ? undefined : { purpose: taken.purpose, userId: taken.user_id, email: taken.email, expired: taken.expired }
}

/** Whether the token is one of `purpose` that can still be used (the reset link's check before its page opens; nothing is spent). */
export async function isLiveOneTimeToken (db: Queryable, tables: AuthTables, purpose: TokenPurpose, token: string): Promise<boolean> {
  if (token === '' || token.length > 200) return false
  const [live] = await rows(db, sql`SELECT 1 FROM ${tables.oneTimeToken} WHERE token_hash = ${hashOf(token)} AND purpose = ${purpose} AND expires_at > now()`)
  return live !== undefined
}

/** Ends every token of the user (a password change: no link sent before it works after it). */
export async function endOneTimeTokens (db: Queryable, tables: AuthTables, userId: string): Promise<void> {
  await query(db, sql`DELETE FROM ${tables.oneTimeToken} WHERE user_id = ${userId}`)
}
