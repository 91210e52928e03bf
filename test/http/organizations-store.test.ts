// The organization tables of the auth store (docs/organizations.md, "The store"): made by every
// migration, organizations configured or not; a store made before them gains them in place, its
// users and sessions kept; migrating again changes nothing.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import type pg from 'pg'
import { buildApp, createUser, signIn, sessionCookie, usersOf } from '../helpers/app.js'

/** Every column, index and constraint of the auth store's tables in `schema`, as text. */
async function catalog (pool: Pick<pg.Pool, 'query'>, schema: string): Promise<string[]> {
  const { rows } = await pool.query<{ line: string }>(`
    SELECT format('column %s.%s %s %s %s', table_name, column_name, data_type, is_nullable, coalesce(column_default, '')) AS line
      FROM information_schema.columns WHERE table_schema = $1 AND table_name LIKE 'auth\\_%'
    UNION ALL SELECT format('index %s', indexdef) FROM pg_indexes WHERE schemaname = $1 AND tablename LIKE 'auth\\_%'
    UNION ALL SELECT format('constraint %s %s %s', c.conrelid::regclass, c.conname, pg_get_constraintdef(c.oid))
      FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace WHERE n.nspname = $1 AND c.conrelid::regclass::text LIKE '%auth\\_%'
    ORDER BY 1`, [schema])
  return rows.map((r) => r.line)
}

test('the store has organizations, members and invitations even with organizations off, and sessions an active organization', async () => {
  const app = await buildApp()
  assert.equal(app.tablegate.organizations, undefined)
  // A new database keeps the store in a schema of its own.
  const lines = await catalog(usersOf(app).pool, 'tablegate_auth')
  for (const expected of [
    'column auth_organization.slug text NO ',
    'column auth_organization.metadata jsonb YES ',
    'column auth_member.role text NO ',
    "column auth_invitation.status text NO 'pending'::text",
    'column auth_invitation.inviter_id text YES ',
    'column auth_session.active_organization_id text YES ',
    'column auth_revocation.organizations jsonb YES ',
    'index CREATE UNIQUE INDEX auth_organization_slug_key ON tablegate_auth.auth_organization USING btree (slug)',
    'index CREATE UNIQUE INDEX auth_member_organization_id_user_id_key ON tablegate_auth.auth_member USING btree (organization_id, user_id)',
    'index CREATE INDEX auth_member_user_id_idx ON tablegate_auth.auth_member USING btree (user_id)',
    'index CREATE INDEX auth_invitation_email_idx ON tablegate_auth.auth_invitation USING btree (lower(email))',
    'constraint auth_member auth_member_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES auth_organization(id) ON DELETE CASCADE',
    'constraint auth_member auth_member_user_id_fkey FOREIGN KEY (user_id) REFERENCES auth_user(id) ON DELETE CASCADE',
    'constraint auth_invitation auth_invitation_inviter_id_fkey FOREIGN KEY (inviter_id) REFERENCES auth_user(id) ON DELETE SET NULL',
    'constraint auth_session auth_session_active_organization_id_fkey FOREIGN KEY (active_organization_id) REFERENCES auth_organization(id) ON DELETE SET NULL',
  ]) assert.ok(lines.includes(expected), `missing: ${expected}\n${lines.join('\n')}`)
  assert.ok(lines.some((l) => /auth_invitation_status_check CHECK .*pending.*accepted.*rejected.*canceled/.test(l)))
})

test('a store made before organizations gains their tables and the session column in place; migrating again is a no-op', async () => {
  const app = await buildApp()
  const users = usersOf(app)
  const complete = await catalog(users.pool, 'public')
  await createUser(app, 'kept@example.com')
  const cookie = sessionCookie(await signIn(app, 'kept@example.com'))
  // What the migration made before organizations: the same tables less these.
  await users.pool.query(`DROP TABLE auth_invitation, auth_member, auth_organization CASCADE;
    ALTER TABLE auth_session DROP COLUMN active_organization_id; ALTER TABLE auth_revocation DROP COLUMN organizations`)
  const before = await catalog(users.pool, 'public')
  assert.ok(!before.some((l) => /organization|member|invitation/.test(l)), before.join('\n'))

  await users.migrate()
  assert.deepEqual(await catalog(users.pool, 'public'), complete)
  assert.ok(await users.findByEmail('kept@example.com'))
  assert.equal((await app.inject({ method: 'GET', url: '/api/auth/token', headers: { cookie } })).statusCode, 200, 'the session lives on')
  const { rows } = await users.pool.query('SELECT active_organization_id FROM auth_session')
  assert.deepEqual(rows, [{ active_organization_id: null }])

  await users.migrate()
  assert.deepEqual(await catalog(users.pool, 'public'), complete)
})

test('with authSchema the organization tables live in that schema beside the users; deleting a user or an organization cascades', async () => {
  const app = await buildApp({ authSchema: 'login', organizations: {} })
  const { pool } = usersOf(app)
  const lines = await catalog(pool, 'login')
  assert.ok(lines.some((l) => l.startsWith('column auth_member.')))
  assert.deepEqual(await catalog(pool, 'public'), [])
  await createUser(app, 'owner@example.com')
  await createUser(app, 'gone@example.com')
  const orgs = app.tablegate.organizations!
  const made = await orgs.create({ name: 'Schema', slug: 'schema', owner: 'owner@example.com' })
  await orgs.addMember('schema', 'gone@example.com', 'member')
  await usersOf(app).delete('gone@example.com')
  assert.deepEqual((await orgs.list()).map((o) => [o.slug, o.members]), [['schema', 1]])
  const cookie = sessionCookie(await signIn(app, 'owner@example.com'))
  await pool.query('UPDATE login.auth_session SET active_organization_id = $1', [made.id])
  await pool.query('DELETE FROM login.auth_organization WHERE id = $1', [made.id])
  assert.deepEqual((await pool.query('SELECT count(*)::int AS n FROM login.auth_member')).rows, [{ n: 0 }])
  assert.deepEqual((await pool.query('SELECT active_organization_id FROM login.auth_session')).rows, [{ active_organization_id: null }])
  assert.equal((await app.inject({ method: 'GET', url: '/api/auth/token', headers: { cookie } })).statusCode, 200)
})
