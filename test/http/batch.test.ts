// POST /api/v1:batchWrite: many writes across resources in one transaction, references between
// them, the failing operation's own problem with where it happened, and nothing written on failure.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { freshDatabase, runSql, withClient } from '../helpers/db.js'
import { buildApp, createUser, bearer, caller } from '../helpers/app.js'
import { auditLog, type WriteEvent } from '../../lib/index.js'

const databaseUrl = await freshDatabase()
await runSql(databaseUrl, `
  CREATE TABLE orders (id serial PRIMARY KEY, title text NOT NULL, code text UNIQUE, status text NOT NULL DEFAULT 'open', version integer NOT NULL DEFAULT 1);
  CREATE TABLE lines (region text NOT NULL, number integer NOT NULL, order_id integer REFERENCES orders (id), label text, PRIMARY KEY (region, number));
  CREATE TABLE notes (id serial PRIMARY KEY, body text NOT NULL);
`)
const app = await buildApp({
  databaseUrl,
  plugins: [auditLog],
  resources: {
    orders: {
      version: 'version',
      fields: { id: { type: 'integer', readOnly: true }, title: { type: 'string', required: true }, code: { type: 'string' }, status: { type: 'string' } },
      access: { fields: { status: { read: ['admin'] } }, delete: ['admin'] },
    },
    lines: { key: ['region', 'number'], fields: { region: { type: 'string' }, number: { type: 'integer' }, order_id: { type: 'integer' }, label: { type: 'string' } } },
    notes: { fields: { id: { type: 'integer', readOnly: true }, body: { type: 'string', required: true } } },
  },
})
const events: WriteEvent[] = []
let failAt: number | undefined
app.tablegate.addWriteHook(async function recordAndMaybeFail (event) {
  events.push(event)
  if (failAt !== undefined && events.length === failAt) throw new Error('hook refused')
})
await createUser(app, 'admin@example.com')
await createUser(app, 'user@example.com', 'user')
const admin = caller(app, await bearer(app, 'admin@example.com'))
const user = caller(app, await bearer(app, 'user@example.com'))
const batch = async (ops: unknown[], as = admin): Promise<{ status: number, body: any }> => await as('POST', '/api/v1:batchWrite', { payload: { ops } })

async function count (table: string): Promise<number> {
  return await withClient(databaseUrl, async (c) => (await c.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`)).rows[0]!.n)
}

test('creates, updates and deletes across resources in one request, references resolved', async () => {
  const existing = await admin('POST', '/api/v1/orders', { payload: { title: 'old' } })
  const doomed = await admin('POST', '/api/v1/notes', { payload: { body: 'bye' } })
  events.length = 0
  const answer = await admin('POST', '/api/v1:batchWrite', {
    payload: {
      operations: [
        { op: 'create', resource: 'orders', data: { title: 'Tea' }, ref: 'order' },
        { op: 'create', resource: 'lines', data: { region: 'eu', number: 1, order_id: { $ref: 'order' }, label: { $ref: 'order', field: 'title' } }, ref: 'line' },
        { op: 'update', resource: 'lines', key: { $ref: 'line' }, etag: '*', data: { label: 'first line' } },
        { op: 'update', resource: 'orders', key: existing.body.id, etag: existing.body.etag, data: { title: 'renamed' } },
        { op: 'delete', resource: 'notes', key: String(doomed.body.id) },
      ],
    },
  })
  assert.equal(answer.status, 200, JSON.stringify(answer.body))
  const [order, line, updatedLine, renamed, deleted] = answer.body.results
  assert.equal(order.record.title, 'Tea')
  assert.equal(order.etag, order.record.etag)
  assert.deepEqual(Object.keys(order.record.permissions), ['update', 'delete', 'fields'])
  assert.deepEqual({ ...line.record, etag: 'E', permissions: 'P' }, { region: 'eu', number: 1, order_id: order.record.id, label: 'Tea', etag: 'E', permissions: 'P' })
  assert.equal(updatedLine.record.label, 'first line')
  assert.equal(renamed.record.title, 'renamed')
  assert.equal(renamed.record.version, 2)
  assert.deepEqual(deleted, { deleted: true })
  assert.equal((await admin('GET', `/api/v1/notes/${doomed.body.id}`)).status, 404)
  assert.deepEqual(events.map((e) => `${e.resource}.${e.operation}`), ['orders.create', 'lines.create', 'lines.update', 'orders.update', 'notes.delete'])
  // The audit log wrote one row per operation, in the batch's transaction.
  const audited = await withClient(databaseUrl, async (c) => (await c.query('SELECT resource, operation, record_key FROM tablegate_audit_log ORDER BY id DESC LIMIT 5')).rows.reverse())
  assert.deepEqual(audited, [
    { resource: 'orders', operation: 'create', record_key: String(order.record.id) },
    { resource: 'lines', operation: 'create', record_key: 'eu,1' },
    { resource: 'lines', operation: 'update', record_key: 'eu,1' },
    { resource: 'orders', operation: 'update', record_key: String(existing.body.id) },
    { resource: 'notes', operation: 'delete', record_key: String(doomed.body.id) },
  ])
})

test('every key form: URL text, a number, a list of parts, a reference, a reference as a key part', async () => {
  const ops = [
    { op: 'create', resource: 'orders', data: { title: 'keys' }, ref: 'o' },
    { op: 'create', resource: 'lines', data: { region: 'us', number: 7 } },
    { op: 'update', resource: 'lines', key: 'us,7', etag: '*', data: { label: 'url text' } },
    { op: 'update', resource: 'lines', key: ['us', 7], etag: '*', data: { label: 'parts' } },
    { op: 'create', resource: 'lines', data: { region: 'ref', number: { $ref: 'o' } } },
    { op: 'update', resource: 'lines', key: ['ref', { $ref: 'o' }], etag: '*', data: { label: 'ref part' } },
    { op: 'update', resource: 'orders', key: { $ref: 'o' }, etag: '*', data: { title: 'by ref' } },
  ]
  const answer = await batch(ops)
  assert.equal(answer.status, 200, JSON.stringify(answer.body))
  const orderId = answer.body.results[0].record.id
  const byNumber = await batch([{ op: 'update', resource: 'orders', key: orderId, etag: '*', data: { title: 'by number' } }])
  assert.equal(byNumber.body.results[0].record.title, 'by number')
  assert.equal(answer.body.results[3].record.label, 'parts')
  assert.equal(answer.body.results[5].record.label, 'ref part')
  assert.equal(answer.body.results[5].record.number, orderId)
})

/** The problem of a refused batch, with where it happened. */
function refused (answer: { status: number, body: any }, status: number, slug: string, at: { operation: number, op?: string, resource?: string }): void {
  assert.equal(answer.status, status, JSON.stringify(answer.body))
  assert.equal(answer.body.type, `urn:service:problem:${slug}`)
  assert.equal(answer.body.operation, at.operation)
  if (at.op !== undefined) assert.equal(answer.body.op, at.op)
  if (at.resource !== undefined) assert.equal(answer.body.resource, at.resource)
}

test('bad references are 400s naming the operation', async () => {
  const create = { op: 'create', resource: 'orders', data: { title: 'r' }, ref: 'r' }
  refused(await batch([{ op: 'update', resource: 'orders', key: { $ref: 'nope' }, etag: '*', data: { title: 'x' } }]), 400, 'invalid-parameter', { operation: 0, op: 'update', resource: 'orders' })
  const early = await batch([{ op: 'update', resource: 'orders', key: { $ref: 'r' }, etag: '*', data: { title: 'x' } }, create])
  refused(early, 400, 'invalid-parameter', { operation: 0 })
  assert.match(early.body.detail, /used before operation 1 creates it/)
  refused(await batch([create, { ...create }]), 400, 'invalid-parameter', { operation: 1, op: 'create' })
  // status is hidden from users: named through a reference, it is refused exactly like a missing field.
  const hidden = await batch([create, { op: 'create', resource: 'notes', data: { body: { $ref: 'r', field: 'status' } } }], user)
  refused(hidden, 400, 'invalid-parameter', { operation: 1, op: 'create', resource: 'notes' })
  const missing = await batch([create, { op: 'create', resource: 'notes', data: { body: { $ref: 'r', field: 'nothing' } } }], user)
  assert.equal(hidden.body.detail.replace('status', 'X'), missing.body.detail.replace('nothing', 'X'))
})

test('each operation fails with its own problem and where it happened; nothing of the batch is written', async () => {
  const order = await admin('POST', '/api/v1/orders', { payload: { title: 'target', code: 'taken' } })
  const before = { orders: await count('orders'), notes: await count('notes') }
  const first = { op: 'create', resource: 'notes', data: { body: 'never kept' } }
  const cases: Array<[unknown, number, string, string, string]> = [
    [{ op: 'update', resource: 'orders', key: order.body.id, data: { title: 'x' } }, 428, 'precondition-required', 'update', 'orders'],
    [{ op: 'update', resource: 'orders', key: order.body.id, etag: '"1.0000000000000000"', data: { title: 'x' } }, 412, 'precondition-failed', 'update', 'orders'],
    [{ op: 'update', resource: 'orders', key: 99999, etag: '*', data: { title: 'x' } }, 404, 'not-found', 'update', 'orders'],
    [{ op: 'create', resource: 'orders', data: { title: 'dup', code: 'taken' } }, 409, 'conflict', 'create', 'orders'],
    [{ op: 'create', resource: 'orders', data: { title: 7 } }, 400, 'invalid-record', 'create', 'orders'],
    [{ op: 'create', resource: 'nowhere', data: {} }, 404, 'not-found', 'create', 'nowhere'],
    [{ op: 'delete', resource: 'notes', key: 'x' }, 400, 'invalid-key', 'delete', 'notes'],
  ]
  for (const [op, status, slug, name, resource] of cases) {
    refused(await batch([first, first, op]), status, slug, { operation: 2, op: name, resource })
  }
  refused(await batch([first, { op: 'delete', resource: 'orders', key: order.body.id }], user), 403, 'access-denied', { operation: 1, op: 'delete', resource: 'orders' })
  assert.deepEqual({ orders: await count('orders'), notes: await count('notes') }, before)
})

test('the body: ops or operations, at most 500, each operation well formed', async () => {
  const note = { op: 'create', resource: 'notes', data: { body: 'n' } }
  const tooMany = await batch(Array.from({ length: 501 }, () => note))
  assert.equal(tooMany.status, 400)
  assert.equal(tooMany.body.type, 'urn:service:problem:invalid-parameter')
  assert.equal((await batch(Array.from({ length: 500 }, () => note))).status, 200)
  const both = await admin('POST', '/api/v1:batchWrite', { payload: { ops: [], operations: [] } })
  assert.equal(both.status, 400)
  refused(await batch([note, { op: 'upsert', resource: 'notes' }]), 400, 'invalid-parameter', { operation: 1 })
  refused(await batch([{ ...note, key: 1 }]), 400, 'invalid-parameter', { operation: 0, op: 'create' })
  assert.equal((await app.inject({ method: 'POST', url: '/api/v1:batchWrite', payload: { ops: [] } })).statusCode, 401)
})

test('a hook that throws in the last operation rolls back every operation before it, audit rows included', async () => {
  const before = await count('notes')
  const auditedBefore = await count('tablegate_audit_log')
  events.length = 0
  failAt = 3
  const answer = await batch([1, 2, 3].map((i) => ({ op: 'create', resource: 'notes', data: { body: `n${i}` } })))
  failAt = undefined
  assert.equal(answer.status, 500)
  assert.equal(answer.body.type, 'urn:service:problem:internal-error')
  assert.equal(events.length, 3)
  assert.equal(await count('notes'), before)
  assert.equal(await count('tablegate_audit_log'), auditedBefore)
})
