// The change feed (docs/changes.md) over HTTP: each caller's events under their read access.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { freshDatabase, runSql } from '../helpers/db.js'
import { buildApp, createUser, bearer, caller } from '../helpers/app.js'

const databaseUrl = await freshDatabase()
await runSql(databaseUrl, `
  CREATE TABLE docs (id serial PRIMARY KEY, title text NOT NULL, status text NOT NULL DEFAULT 'open', secret text, owner_id text NOT NULL, tenant_id text NOT NULL, deleted_at timestamptz);
`)
const app = await buildApp({
  databaseUrl,
  tenant: 't1',
  roles: { admin: ['*'], user: ['docs.read.own', 'docs.create.own', 'docs.update.own', 'docs.delete.own'] },
  resources: {
    docs: {
      owner: 'owner_id',
      tenant: 'tenant_id',
      softDelete: 'deleted_at',
      changes: {},
      fields: { id: { type: 'integer', readOnly: true }, title: { type: 'string' }, status: { type: 'string' }, secret: { type: 'string' }, owner_id: { type: 'string' } },
      access: { fields: { secret: { read: ['admin'] } } },
    },
  },
})
await createUser(app, 'admin@example.com')
await createUser(app, 'ann@example.com', 'user')
const annAuth = await bearer(app, 'ann@example.com')
const adminAuth = await bearer(app, 'admin@example.com')
const ann = caller(app, annAuth)
const admin = caller(app, adminAuth)

test('smoke', async () => {
  const first = await ann('GET', '/api/v1/docs:changes')
  assert.equal(first.status, 200, JSON.stringify(first.body))
  const start = first.body.next_page_token
  const created = await ann('POST', '/api/v1/docs', { payload: { title: 'a' } })
  assert.equal(created.status, 201, JSON.stringify(created.body))
  const got = await ann('GET', `/api/v1/docs:changes?page_token=${encodeURIComponent(start)}`)
  assert.equal(got.status, 200, JSON.stringify(got.body))
  console.log(JSON.stringify(got.body, null, 1))
  const adminGot = await admin('GET', `/api/v1/docs:changes?page_token=${encodeURIComponent(start)}`)
  console.log(JSON.stringify(adminGot.body, null, 1))
})
