import { test } from 'node:test'
import { runtimeOf } from '../../lib/runtime.js'
import assert from 'node:assert/strict'
import { freshDatabase, runSql } from '../helpers/db.js'
import { buildApp, createUser, bearer, caller } from '../helpers/app.js'
import { SHOP_RESOURCES, SHOP_SCHEMA } from '../fixtures/shop.js'

const databaseUrl = await freshDatabase()
await runSql(databaseUrl, SHOP_SCHEMA + `
  CREATE TABLE meta (id serial PRIMARY KEY, label text NOT NULL, position integer CHECK (position >= 0));
  INSERT INTO notes (body, tenant_id) VALUES ('other tenant note', 't2');
`)
const resources = { ...SHOP_RESOURCES, meta: { fields: { id: { type: 'integer', readOnly: true, dbDefault: true }, label: { type: 'string', required: true }, position: { type: 'integer' } } } } as const
const app = await buildApp({ databaseUrl, tenant: 't1', basePath: '/rest/v2', resources })
await createUser(app, 'admin@example.com')
const auth = await bearer(app, 'admin@example.com')

const call = caller(app, auth)

test('a configurable base path serves resources, even one named meta; login stays at the parent', async () => {
  const created = await call('POST', '/rest/v2/meta', { payload: { label: 'not the metadata endpoint' } })
  assert.equal(created.status, 201)
  assert.equal(created.headers.location, `/rest/v2/meta/${created.body.id}`)
  assert.equal((await call('GET', '/api/v1/meta')).status, 404)
  assert.equal((await app.inject({ method: 'GET', url: '/rest/auth/status' })).statusCode, 200)
})

test('a check constraint refusal is 400 invalid-record without the constraint name', async () => {
  const response = await call('POST', '/rest/v2/meta', { payload: { label: 'x', position: -1 } })
  assert.equal(response.status, 400)
  assert.equal(response.body.type, 'urn:service:problem:invalid-record')
  assert.doesNotMatch(JSON.stringify(response.body), /meta_position_check|position/)
})

test('a tenant caller reads and writes only its tenant; the tenant column is not a field', async () => {
  const created = await call('POST', '/rest/v2/notes', { payload: { body: 'mine' } })
  assert.equal(created.status, 201)
  assert.deepEqual(Object.keys(created.body).sort(), ['body', 'etag', 'id'])
  const { rows } = await runtimeOf(app).db.app.query('SELECT tenant_id FROM notes WHERE id = $1', [created.body.id])
  assert.equal(rows[0].tenant_id, 't1')
  const list = await call('GET', '/rest/v2/notes')
  assert.deepEqual(list.body.items.map((n: { body: string }) => n.body), ['mine'])
  const [other] = (await runtimeOf(app).db.app.query("SELECT id FROM notes WHERE tenant_id = 't2'")).rows
  assert.equal((await call('GET', `/rest/v2/notes/${other.id}`)).status, 404)
  assert.equal((await call('PATCH', `/rest/v2/notes/${other.id}`, { payload: { body: 'x' }, headers: { 'if-match': '*' } })).status, 404)
  assert.equal((await call('DELETE', `/rest/v2/notes/${other.id}`)).status, 404)
  const smuggled = await call('POST', '/rest/v2/notes', { payload: { body: 'x', tenant_id: 't2' } })
  assert.equal(smuggled.status, 400)
  assert.deepEqual(smuggled.body.errors, [{ field: 'tenant_id', code: 'unknown', message: 'tenant_id is not a field of notes.' }])
})

test('without a version column the ETag hashes the fields, so it changes with them', async () => {
  const created = await call('POST', '/rest/v2/tags', { payload: { label: 'a' } })
  const same = await call('PATCH', `/rest/v2/tags/${created.body.id}`, { payload: { label: 'a' }, headers: { 'if-match': created.body.etag } })
  assert.equal(same.body.etag, created.body.etag)
  const changed = await call('PATCH', `/rest/v2/tags/${created.body.id}`, { payload: { label: 'b' }, headers: { 'if-match': created.body.etag } })
  assert.notEqual(changed.body.etag, created.body.etag)
  const other = await call('POST', '/rest/v2/tags', { payload: { label: 'b' } })
  assert.notEqual(other.body.etag, changed.body.etag)
})

test('undelete honours If-Match: stale is 412, current matches', async () => {
  const created = await call('POST', '/rest/v2/orders', { payload: { title: 'Back again' } })
  const deleted = await call('DELETE', `/rest/v2/orders/${created.body.id}`, { headers: { prefer: 'return=representation' } })
  const stale = await call('POST', `/rest/v2/orders/${created.body.id}:undelete`, { headers: { 'if-match': created.body.etag } })
  assert.equal(stale.status, 412)
  const restored = await call('POST', `/rest/v2/orders/${created.body.id}:undelete`, { headers: { 'if-match': deleted.body.etag } })
  assert.equal(restored.status, 200)
  assert.equal(restored.body.deleted_at, null)
})

test('an unknown custom method on a key is 404', async () => {
  const created = await call('POST', '/rest/v2/tags', { payload: { label: 'x' } })
  assert.equal((await call('POST', `/rest/v2/tags/${created.body.id}:explode`)).status, 404)
})
