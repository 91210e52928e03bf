// Tokens outlive nothing that ends a user: a ban or a deletion ends every token issued before it,
// and a role change limits every token issued before it to the new roles. The user store writes one
// row per user in the change's own transaction; every process reads new rows on a short interval
// (default 5 s, so a change reaches every process within 10 s: docs/login.md, "Revocation") and the
// verifier consults them from memory, so a request pays a Map lookup, not a query. Membership
// changes use the same rows: per organization, tokens issued before a removal or a role change act
// with the member's organization roles since (none: the token acts in no organization).
import { sql } from '../sql/sql.js'
import { query, rows, type Queryable } from '../db/query.js'
import { rolesOf } from '../config/roles.js'
import type { AuthTables } from './store/migrate.js'
import { MAX_MINTED_TTL_SECONDS } from './tokens.js'

/** Tokens of one organization issued before `since` act with `roles` in it (none: not in it at all). */
export interface OrganizationRevocation {
  readonly since: number
  readonly roles: readonly string[]
}

/** What limits a user's tokens: all issued before `endedBefore` are void, those before `rolesSince` hold at most `roles`. */
export interface Revocation {
  readonly endedBefore: number | undefined
  readonly rolesSince: number | undefined
  readonly roles: readonly string[]
  /** Per organization id, what a membership change left of the tokens issued before it. */
  readonly organizations?: ReadonlyMap<string, OrganizationRevocation> | undefined
}

export interface Revocations {
  lookup (userId: string): Revocation | undefined
  /** Reads what changed since the last read now, not at the next poll. */
  refresh? (): Promise<void>
}

/** Ends the user's tokens issued until now (a ban, a deletion). */
export async function endTokens (db: Queryable, tables: AuthTables, userId: string): Promise<void> {
  await query(db, sql`INSERT INTO ${tables.revocation} (user_id, ended_before, changed_at) VALUES (${userId}, clock_timestamp(), clock_timestamp())
    ON CONFLICT (user_id) DO UPDATE SET ended_before = excluded.ended_before, changed_at = excluded.changed_at`)
}

/**
 * Waits out the second in which a change ended the user's tokens (at most 1 s): a token's `iat`
 * counts whole seconds, so one the user mints later in that second would pass for one issued before
 * the change and be refused. A route that ends the caller's own tokens answers after it.
 */
export async function pastTheRevokingSecond (): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 1001 - (Date.now() % 1000)))
}

/** Limits the user's tokens issued until now to `roles` (the user's new role column). */
export async function limitTokenRoles (db: Queryable, tables: AuthTables, userId: string, roles: string): Promise<void> {
  await query(db, sql`INSERT INTO ${tables.revocation} (user_id, roles_since, roles, changed_at) VALUES (${userId}, clock_timestamp(), ${roles}, clock_timestamp())
    ON CONFLICT (user_id) DO UPDATE SET roles_since = excluded.roles_since, roles = excluded.roles, changed_at = excluded.changed_at`)
}

/**
 * The user's tokens for one organization issued until now act with `roles` (the member's new
 * organization roles, comma separated; '' when they left it). Other organizations' entries stay.
 */
export async function limitOrganizationTokens (db: Queryable, tables: AuthTables, userId: string, organizationId: string, roles: string): Promise<void> {
  await query(db, sql`INSERT INTO ${tables.revocation} AS r (user_id, organizations, changed_at)
    VALUES (${userId}, jsonb_build_object(${organizationId}::text, jsonb_build_object('since', floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint, 'roles', ${roles}::text)), clock_timestamp())
    ON CONFLICT (user_id) DO UPDATE SET organizations = coalesce(r.organizations, '{}'::jsonb) || excluded.organizations, changed_at = excluded.changed_at`)
}

/**
 * After a membership is added or widened: an earlier limit for the organization becomes the new
 * roles, so a token minted in the same second as the change (`iat` counts seconds) is not held to
 * the old limit. Older tokens hold nothing the member does not hold now.
 */
export async function widenOrganizationTokens (db: Queryable, tables: AuthTables, userId: string, organizationId: string, roles: string): Promise<void> {
  await query(db, sql`UPDATE ${tables.revocation} SET changed_at = clock_timestamp(), organizations = organizations ||
      jsonb_build_object(${organizationId}::text, jsonb_build_object('since', floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint, 'roles', ${roles}::text))
    WHERE user_id = ${userId} AND organizations ? ${organizationId}::text`)
}

/** Ends every member's tokens for the organization (before deleting it: the members go with it). */
export async function endOrganizationTokens (db: Queryable, tables: AuthTables, organizationId: string): Promise<void> {
  const members = await rows<{ user_id: string }>(db, sql`SELECT user_id FROM ${tables.member} WHERE organization_id = ${organizationId}`)
  for (const member of members) await limitOrganizationTokens(db, tables, member.user_id, organizationId, '')
}

interface RevocationRow {
  user_id: string
  ended_before: Date | null
  roles_since: Date | null
  roles: string | null
  organizations: Record<string, { since: number, roles: string }> | null
}

function organizationsOf (row: RevocationRow): Map<string, OrganizationRevocation> | undefined {
  if (row.organizations === null) return undefined
  return new Map(Object.entries(row.organizations).map(([id, entry]) => [id, { since: entry.since, roles: rolesOf(entry.roles) }]))
}

export interface RevocationList extends Revocations {
  /** Reads the rows changed since the last read; the first read takes all that can still matter. */
  refresh (): Promise<void>
  /** Refreshes every `intervalMs` until stopped; a failed read keeps what it had and tries again. */
  start (intervalMs: number): void
  stop (): void
}

// A row older than the longest-lived token limits nothing any more.
const RELEVANT_MS = (MAX_MINTED_TTL_SECONDS + 3600) * 1000
// A change commits a little after its changed_at: each read looks back this far, so a row that
// committed late is read on a later round, never skipped (re-reading a row changes nothing).
const LOOK_BACK_MS = 60_000

export function revocationList (db: Queryable, tables: AuthTables): RevocationList {
  const byUser = new Map<string, Revocation>()
  let lookBack = RELEVANT_MS
  let timer: NodeJS.Timeout | undefined
  const refresh = async (): Promise<void> => {
    const changed = await rows<RevocationRow>(db, sql`SELECT * FROM ${tables.revocation}
      WHERE changed_at > now() - ${`${lookBack} milliseconds`}::interval`)
    for (const row of changed) {
      byUser.set(row.user_id, {
        endedBefore: row.ended_before?.getTime(),
        rolesSince: row.roles_since?.getTime(),
        roles: rolesOf(row.roles ?? ''),
        organizations: organizationsOf(row),
      })
    }
    lookBack = LOOK_BACK_MS
  }
  return {
    lookup: (userId) => byUser.get(userId),
    refresh,
    start: (intervalMs) => {
      timer = setInterval(() => { refresh().catch(() => {}) }, intervalMs)
      timer.unref()
    },
    stop: () => { clearInterval(timer) },
  }
}
