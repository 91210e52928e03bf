// The auth store's DDL: users, password accounts, sessions, signing keys, the sign-in limiter's
// counters, and organizations with their members and invitations, kept apart from the
// application's tables (own schema when `authSchema` is set, `auth_` names either way). The
// organization tables are made whether or not organizations are configured (docs/decisions.md).
// Idempotent, and serialised by an advisory lock so concurrent starts cannot race on CREATE.
import { sql, type Sql } from '../../sql/sql.js'
import { query, type Queryable } from '../../db/query.js'
import type { Pool } from '../../db/pool.js'
import { withTransaction } from '../../db/transaction.js'
import { createCounterTable } from '../../limits/shared-store.js'

/** A row of the user table. */
export interface UserRow {
  id: string
  email: string
  name: string
  role: string
  banned: boolean
  ban_reason: string | null
  email_verified: boolean
  /** A profile image URL (update-user). */
  image: string | null
  /** The user made their own account (sign-up): `emailVerification.required` holds them until verified. */
  signed_up: boolean
  created_at: Date
  updated_at: Date
}

/** A row of the organization table. */
export interface OrganizationRow {
  id: string
  name: string
  slug: string
  logo: string | null
  metadata: Record<string, unknown> | null
  created_at: Date
}

/** A row of the member table: one user in one organization, with their organization roles (comma separated). */
export interface MemberRow {
  id: string
  organization_id: string
  user_id: string
  role: string
  created_at: Date
}

/** A row of the invitation table. */
export interface InvitationRow {
  id: string
  organization_id: string
  email: string
  role: string
  status: 'pending' | 'accepted' | 'rejected' | 'canceled'
  inviter_id: string | null
  expires_at: Date
  created_at: Date
}

export interface AuthTables {
  readonly schema: string | undefined
  readonly user: Sql
  readonly account: Sql
  readonly session: Sql
  readonly key: Sql
  /** The sign-in limiter's counters, shared by every process on the database. */
  readonly rateLimit: Sql
  /** Per user, which tokens issued before a ban, a deletion, a role change or a membership change no longer count (or count less). */
  readonly revocation: Sql
  readonly organization: Sql
  readonly member: Sql
  readonly invitation: Sql
  /** One-time tokens of email verification, password reset and email change, by their SHA-256. */
  readonly oneTimeToken: Sql
}

const TABLE_NAMES = {
  user: 'auth_user',
  account: 'auth_account',
  session: 'auth_session',
  key: 'auth_key',
  rateLimit: 'auth_rate_limit',
  revocation: 'auth_revocation',
  organization: 'auth_organization',
  member: 'auth_member',
  invitation: 'auth_invitation',
  oneTimeToken: 'auth_one_time_token',
} as const satisfies Record<Exclude<keyof AuthTables, 'schema'>, string>

/** The store's table names, the same in whichever schema it lives: none of them is ever a resource. */
export const AUTH_STORE_TABLES: ReadonlySet<string> = new Set(Object.values(TABLE_NAMES))

/**
 * Why a table of the store is never a resource, for the start's refusal and init's comment: its
 * rows are kept by the login routes and the CLI under rules of their own, which no resource rule
 * could repeat.
 */
export const AUTH_STORE_TABLE_WHY = 'it is a table of tablegate\'s own login store, which holds password hashes, session tokens and signing keys and is kept by the login routes and the CLI under rules of their own'

export function authTables (schema: string | undefined): AuthTables {
  const table = (name: keyof typeof TABLE_NAMES): Sql => sql.ident(schema, TABLE_NAMES[name])
  return {
    schema,
    user: table('user'),
    account: table('account'),
    session: table('session'),
    key: table('key'),
    rateLimit: table('rateLimit'),
    revocation: table('revocation'),
    organization: table('organization'),
    member: table('member'),
    invitation: table('invitation'),
    oneTimeToken: table('oneTimeToken'),
  }
}

/** Serialises operations that must see a stable user table (first user, last admin, key creation). */
export async function lockAuthStore (tx: Queryable): Promise<void> {
  await query(tx, sql`SELECT pg_advisory_xact_lock(hashtext(${'tablegate.auth'}))`)
}

export async function migrateAuthStore (pool: Pool, tables: AuthTables): Promise<void> {
  await withTransaction(pool, { timeoutMs: 60_000 }, async (tx) => {
    await lockAuthStore(tx)
    if (tables.schema !== undefined) await query(tx, sql`CREATE SCHEMA IF NOT EXISTS ${sql.ident(tables.schema)}`)
    await query(tx, sql`CREATE TABLE IF NOT EXISTS ${tables.user} (
      id text PRIMARY KEY,
      email text NOT NULL UNIQUE,
      name text NOT NULL DEFAULT '',
      role text NOT NULL,
      banned boolean NOT NULL DEFAULT false,
      ban_reason text,
      email_verified boolean NOT NULL DEFAULT false,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`)
    // Stores made before ban reasons existed.
    await query(tx, sql`ALTER TABLE ${tables.user} ADD COLUMN IF NOT EXISTS ban_reason text`)
    await query(tx, sql`CREATE TABLE IF NOT EXISTS ${tables.account} (
      id text PRIMARY KEY,
      user_id text NOT NULL REFERENCES ${tables.user} (id) ON DELETE CASCADE,
      provider_id text NOT NULL,
      account_id text NOT NULL,
      password text,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (provider_id, account_id)
    )`)
    await query(tx, sql`CREATE TABLE IF NOT EXISTS ${tables.session} (
      id text PRIMARY KEY,
      token_hash text NOT NULL UNIQUE,
      user_id text NOT NULL REFERENCES ${tables.user} (id) ON DELETE CASCADE,
      expires_at timestamptz NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      ip_address text,
      user_agent text
    )`)
    await query(tx, sql`CREATE INDEX IF NOT EXISTS auth_session_user_id_idx ON ${tables.session} (user_id)`)
    await query(tx, sql`CREATE TABLE IF NOT EXISTS ${tables.key} (
      id text PRIMARY KEY,
      public_key jsonb NOT NULL,
      private_key text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    )`)
    await createCounterTable(tx, tables.rateLimit)
    // No foreign key: a deleted user's row must outlive the user, as long as their tokens could.
    await query(tx, sql`CREATE TABLE IF NOT EXISTS ${tables.revocation} (
      user_id text PRIMARY KEY,
      ended_before timestamptz,
      roles_since timestamptz,
      roles text,
      changed_at timestamptz NOT NULL
    )`)
    await query(tx, sql`CREATE INDEX IF NOT EXISTS auth_revocation_changed_at_idx ON ${tables.revocation} (changed_at)`)
    // Per organization id, { since, roles } of membership changes (lib/auth/revocations.ts).
    await query(tx, sql`ALTER TABLE ${tables.revocation} ADD COLUMN IF NOT EXISTS organizations jsonb`)
    await migrateOrganizations(tx, tables)
    await migrateAccounts(tx, tables)
  })
}

/** What people do with their own accounts: profile images, who signed up, and one-time tokens; stores made before them gain them. */
async function migrateAccounts (tx: Queryable, tables: AuthTables): Promise<void> {
  await query(tx, sql`ALTER TABLE ${tables.user} ADD COLUMN IF NOT EXISTS image text`)
  await query(tx, sql`ALTER TABLE ${tables.user} ADD COLUMN IF NOT EXISTS signed_up boolean NOT NULL DEFAULT false`)
  // Only the token's SHA-256 is kept: a read of the table yields no link anyone could follow.
  await query(tx, sql`CREATE TABLE IF NOT EXISTS ${tables.oneTimeToken} (
    token_hash text PRIMARY KEY,
    purpose text NOT NULL CHECK (purpose IN ('verify-email', 'reset-password', 'change-email')),
    user_id text NOT NULL REFERENCES ${tables.user} (id) ON DELETE CASCADE,
    email text NOT NULL,
    expires_at timestamptz NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
  )`)
  await query(tx, sql`CREATE INDEX IF NOT EXISTS auth_one_time_token_user_id_idx ON ${tables.oneTimeToken} (user_id)`)
}

/** Organizations, members and invitations, and the session's active organization; stores made before them gain them. */
async function migrateOrganizations (tx: Queryable, tables: AuthTables): Promise<void> {
  await query(tx, sql`CREATE TABLE IF NOT EXISTS ${tables.organization} (
    id text PRIMARY KEY,
    name text NOT NULL,
    slug text NOT NULL UNIQUE,
    logo text,
    metadata jsonb,
    created_at timestamptz NOT NULL DEFAULT now()
  )`)
  await query(tx, sql`CREATE TABLE IF NOT EXISTS ${tables.member} (
    id text PRIMARY KEY,
    organization_id text NOT NULL REFERENCES ${tables.organization} (id) ON DELETE CASCADE,
    user_id text NOT NULL REFERENCES ${tables.user} (id) ON DELETE CASCADE,
    role text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    UNIQUE (organization_id, user_id)
  )`)
  // The unique key leads with the organization; a user's organizations are found by this one.
  await query(tx, sql`CREATE INDEX IF NOT EXISTS auth_member_user_id_idx ON ${tables.member} (user_id)`)
  await query(tx, sql`CREATE TABLE IF NOT EXISTS ${tables.invitation} (
    id text PRIMARY KEY,
    organization_id text NOT NULL REFERENCES ${tables.organization} (id) ON DELETE CASCADE,
    email text NOT NULL,
    role text NOT NULL,
    status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'accepted', 'rejected', 'canceled')),
    inviter_id text REFERENCES ${tables.user} (id) ON DELETE SET NULL,
    expires_at timestamptz NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
  )`)
  await query(tx, sql`CREATE INDEX IF NOT EXISTS auth_invitation_organization_id_idx ON ${tables.invitation} (organization_id)`)
  await query(tx, sql`CREATE INDEX IF NOT EXISTS auth_invitation_email_idx ON ${tables.invitation} (lower(email))`)
  // Deleting an organization clears it as anyone's active one; the index keeps that from scanning every session.
  await query(tx, sql`ALTER TABLE ${tables.session} ADD COLUMN IF NOT EXISTS active_organization_id text
    REFERENCES ${tables.organization} (id) ON DELETE SET NULL`)
  await query(tx, sql`CREATE INDEX IF NOT EXISTS auth_session_active_organization_id_idx ON ${tables.session} (active_organization_id)
    WHERE active_organization_id IS NOT NULL`)
}
