import { test } from 'node:test'
import assert from 'node:assert/strict'
import pg from 'pg'
import { freshDatabase } from '../helpers/db.js'
import { buildApp, createUser, signIn, sessionCookie, json } from '../helpers/app.js'

async function authTablesIn (url: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    const { rows } = await client.query<{ table_name: string }>("SELECT table_name FROM information_schema.tables WHERE table_name LIKE 'auth\\_%' ORDER BY 1")
    return rows.map((r) => r.table_name)
  } finally {
    await client.end()
  }
}

test('with adminDatabaseUrl the auth store lives in that database, apart from the application tables', async () => {
  const appDb = await freshDatabase()
  const adminDb = await freshDatabase()
  const app = await buildApp({ databaseUrl: appDb, adminDatabaseUrl: adminDb })
  await createUser(app, 'admin@example.com')
  assert.deepEqual(await authTablesIn(appDb), [])
  assert.deepEqual(await authTablesIn(adminDb), ['auth_account', 'auth_invitation', 'auth_key', 'auth_member', 'auth_one_time_token', 'auth_organization', 'auth_rate_limit', 'auth_revocation', 'auth_session', 'auth_user'])
  const signedIn = await signIn(app, 'admin@example.com')
  assert.equal(signedIn.statusCode, 200)
  const token = await app.inject({ method: 'GET', url: '/api/auth/token', headers: { cookie: sessionCookie(signedIn) } })
  assert.equal(token.statusCode, 200)
  assert.equal(typeof json(token).token, 'string')
})

test('with databaseReadUrl reads go to that database (a replica) and writes to the primary', async () => {
  const primary = await freshDatabase()
  const replica = await freshDatabase()
  const schema = 'CREATE TABLE notes (id serial PRIMARY KEY, body text NOT NULL)'
  const client = async (url: string, text: string) => {
    const c = new pg.Client({ connectionString: url })
    await c.connect()
    try { await c.query(text) } finally { await c.end() }
  }
  await client(primary, schema)
  await client(replica, `${schema}; INSERT INTO notes (body) VALUES ('from the replica')`)
  const app = await buildApp({ databaseUrl: primary, databaseReadUrl: replica, resources: { notes: { fields: { id: { type: 'integer', readOnly: true }, body: { type: 'string' } } } } })
  await createUser(app, 'admin@example.com')
  const { token } = await app.tablegate.users!.issueToken('admin@example.com')
  const headers = { authorization: `Bearer ${token}` }
  const created = await app.inject({ method: 'POST', url: '/api/v1/notes', headers, payload: { body: 'to the primary' } })
  assert.equal(created.statusCode, 201)
  const listed = json(await app.inject({ method: 'GET', url: '/api/v1/notes', headers }))
  assert.deepEqual(listed.items.map((n: { body: string }) => n.body), ['from the replica'])
})
