// Where the login store lives (docs/decisions.md, "Login store"): a new database keeps it in a
// schema of its own (tablegate_auth), out of the application's, and every login step works there
// with nothing on the search path; a database whose store is already in the application's schema
// (an install from before) keeps it there; `authSchema` wins over both.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { freshDatabase, runSql, withClient } from '../helpers/db.js'
import { bearer, buildApp, caller, createUser, json, PASSWORD, sessionCookie, TEST_SECRET, usersOf } from '../helpers/app.js'
import { createServer } from '../../lib/server.js'

const notes = { notes: { tenant: 'org_id', fields: { id: { type: 'integer', readOnly: true, dbDefault: true }, body: { type: 'string', required: true } } } } as const
const NOTES = 'CREATE TABLE notes (id serial PRIMARY KEY, body text NOT NULL, org_id text NOT NULL)'

async function schemasOf (databaseUrl: string): Promise<string[]> {
  return await withClient(databaseUrl, async (c) => (await c.query<{ schema: string }>(
    "SELECT DISTINCT n.nspname AS schema FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relname = 'auth_user' ORDER BY 1")).rows.map((r) => r.schema))
}

test('a new database keeps the store in tablegate_auth, and sign-up to organization tokens work there with nothing on the search path', async () => {
  const databaseUrl = await freshDatabase({ storeOnSearchPath: false })
  await runSql(databaseUrl, NOTES)
  const app = await buildApp({ databaseUrl, roles: { admin: ['*'], user: [] }, defaultRole: 'user', organizations: { roleCapabilities: { owner: ['notes.*'] } }, resources: notes })
  assert.deepEqual(await schemasOf(databaseUrl), ['tablegate_auth'])
  assert.equal(await withClient(databaseUrl, async (c) => (await c.query<{ found: string | null }>("SELECT to_regclass('auth_user')::text AS found")).rows[0]!.found), null)
  await createUser(app, 'admin@example.com', 'admin')
  await createUser(app, 'ann@example.com')
  const organization = await app.tablegate.organizations!.create({ name: 'Acme', slug: 'acme', owner: 'ann@example.com' })
  const signedIn = await app.inject({ method: 'POST', url: '/api/auth/sign-in/email', payload: { email: 'ann@example.com', password: PASSWORD } })
  assert.equal(signedIn.statusCode, 200, signedIn.body)
  const cookie = sessionCookie(signedIn)
  const active = await app.inject({ method: 'POST', url: '/api/auth/organization/set-active', headers: { cookie, origin: 'http://localhost:5173' }, payload: { organizationId: organization.id } })
  assert.equal(active.statusCode, 200, active.body)
  const token = json(await app.inject({ method: 'GET', url: '/api/auth/token', headers: { cookie } })).token as string
  const ann = caller(app, { authorization: `Bearer ${token}` })
  assert.equal((await ann('POST', '/api/v1/notes', { payload: { body: 'in acme' } })).status, 201)
  assert.deepEqual((await ann('GET', '/api/v1/notes')).body.items.map((n: { body: string }) => n.body), ['in acme'])
  assert.equal((await caller(app, await bearer(app, 'admin@example.com'))('GET', '/api/v1/notes')).status, 403)
})

test('a database whose store is already in its schema keeps it there; authSchema wins over both', async () => {
  const databaseUrl = await freshDatabase({ storeOnSearchPath: false })
  await runSql(databaseUrl, NOTES)
  // An install from before the default: its store in public.
  const before = await createServer({ databaseUrl, authSecret: TEST_SECRET, authSchema: 'public', resources: notes })
  await usersOf(before).create({ email: 'old@example.com', password: PASSWORD })
  await before.close()
  const app = await buildApp({ databaseUrl, resources: notes })
  assert.deepEqual(await schemasOf(databaseUrl), ['public'])
  assert.equal((await app.inject({ method: 'POST', url: '/api/auth/sign-in/email', payload: { email: 'old@example.com', password: PASSWORD } })).statusCode, 200)
  await (await createServer({ databaseUrl, authSecret: TEST_SECRET, authSchema: 'auth', resources: notes })).close()
  assert.deepEqual(await schemasOf(databaseUrl), ['auth', 'public'])
})
