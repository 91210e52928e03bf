// Field write rules see the operation they decide: `create` on creates, `update` on updates, in
// :batchWrite as on the single routes, so `write: (ctx) => ctx.operation === 'create'` makes a
// field set once and read-only after. /api/meta and the OpenAPI bodies say the same.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { runSql, freshDatabase } from '../helpers/db.js'
import { buildApp, createUser, bearer, caller, type CallResult } from '../helpers/app.js'

const databaseUrl = await freshDatabase()
await runSql(databaseUrl, 'CREATE TABLE tickets (id serial PRIMARY KEY, code text, title text NOT NULL, version integer NOT NULL DEFAULT 1)')
const app = await buildApp({
  databaseUrl,
  resources: {
    tickets: {
      version: 'version',
      fields: { id: { type: 'integer', readOnly: true, dbDefault: true }, code: { type: 'string' }, title: { type: 'string', required: true } },
      access: { fields: { code: { write: (ctx) => ctx.operation === 'create' } } },
    },
  },
})
await createUser(app, 'admin@example.com')
const admin = caller(app, await bearer(app, 'admin@example.com'))
const READ_ONLY = { field: 'code', code: 'read-only', message: 'code is read-only.' }

function assertReadOnly (response: CallResult, instance: string, extras: Record<string, unknown> = {}): void {
  assert.equal(response.status, 400, JSON.stringify(response.body))
  assert.deepEqual(response.body, { type: 'urn:service:problem:invalid-record', title: 'Invalid record', status: 400, detail: 'code is read-only.', instance, errors: [READ_ONLY], ...extras })
}

test('create accepts a field whose write rule allows create; update refuses it as read-only', async () => {
  const created = await admin('POST', '/api/v1/tickets', { payload: { code: 'T-1', title: 'first' } })
  assert.equal(created.status, 201, JSON.stringify(created.body))
  assert.equal(created.body.code, 'T-1')
  const url = `/api/v1/tickets/${created.body.id}`
  assertReadOnly(await admin('PATCH', url, { payload: { code: 'T-2' }, headers: { 'if-match': created.body.etag } }), url)
  const titled = await admin('PATCH', url, { payload: { title: 'renamed' }, headers: { 'if-match': created.body.etag } })
  assert.equal(titled.status, 200)
  assert.deepEqual([titled.body.code, titled.body.title], ['T-1', 'renamed'])
  // A get's permissions are those of an update: code cannot be edited.
  assert.deepEqual((await admin('GET', url)).body.permissions.fields, { id: 'read', code: 'read', title: 'edit', version: 'read' })
})

test('the same in a batch: a create op sets the field, an update op is refused as read-only', async () => {
  const batch = await admin('POST', '/api/v1:batchWrite', { payload: { ops: [{ op: 'create', resource: 'tickets', data: { code: 'B-1', title: 'batched' } }] } })
  assert.equal(batch.status, 200, JSON.stringify(batch.body))
  const [record] = batch.body.results
  assert.equal(record.record.code, 'B-1')
  const refused = await admin('POST', '/api/v1:batchWrite', { payload: { ops: [{ op: 'update', resource: 'tickets', key: record.record.id, etag: '*', data: { code: 'B-2' } }] } })
  assertReadOnly(refused, '/api/v1:batchWrite', { operation: 0, op: 'update', resource: 'tickets' })
})

test('/api/meta: readOnly for updates, readOnlyOnCreate where a create differs; OpenAPI: the POST body has the field, the PATCH body not', async () => {
  const fields = (await admin('GET', '/api/meta')).body.resources.tickets.fields
  assert.equal(fields.code.readOnly, true)
  assert.equal(fields.code.readOnlyOnCreate, false)
  assert.equal(fields.title.readOnly, false)
  assert.equal('readOnlyOnCreate' in fields.title, false)
  const schemas = (await admin('GET', '/api/openapi.json')).body.components.schemas
  assert.deepEqual(Object.keys(schemas['tickets.create'].properties), ['code', 'title'])
  assert.deepEqual(Object.keys(schemas['tickets.update'].properties), ['title'])
})
