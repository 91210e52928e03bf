import { test } from 'node:test'
import { runtimeOf } from '../../lib/runtime.js'
import assert from 'node:assert/strict'
import { freshDatabase, runSql } from '../helpers/db.js'
import { buildApp, createUser, bearer, json } from '../helpers/app.js'
import { SHOP_RESOURCES, SHOP_SCHEMA } from '../fixtures/shop.js'
import auditLog from '../../plugins/audit-log/index.js'
import type { WriteEvent } from '../../hooks/types.js'

const databaseUrl = await freshDatabase()
await runSql(databaseUrl, SHOP_SCHEMA)
const app = await buildApp({ databaseUrl, resources: SHOP_RESOURCES })
await app.register(auditLog)
const events: WriteEvent[] = []
let failNext: Error | undefined
app.tablegate.addWriteHook(async function recordEvent (event) { events.push(event) })
app.tablegate.addWriteHook(async function failOnDemand () {
  if (failNext === undefined) return
  const err = failNext
  failNext = undefined
  throw err
})
// A hook that keeps its tx for later.
let kept: Parameters<Parameters<typeof app.tablegate.addWriteHook>[0]>[1] | undefined
app.tablegate.addWriteHook(async function keepsTx (_event, tx) { kept = tx })
// A hook that runs a failing statement and swallows its error: PostgreSQL still aborts the write.
let swallowNext = false
app.tablegate.addWriteHook(async function swallowOnDemand (_event, tx) {
  if (!swallowNext) return
  swallowNext = false
  try {
    await tx.query('SELECT no_such_column FROM orders')
  } catch {}
})
await app.ready()
await createUser(app, 'admin@example.com')
const auth = await bearer(app, 'admin@example.com')

async function count (sqlText: string): Promise<number> {
  const { rows } = await runtimeOf(app).db.app.query<{ n: string }>(sqlText)
  return Number(rows[0]!.n)
}

test('hooks see resource, operation, key, before, after and the caller, for every write', async () => {
  events.length = 0
  const created = json(await app.inject({ method: 'POST', url: '/api/v1/orders', headers: auth, payload: { title: 'Hooked' } }))
  const updated = json(await app.inject({ method: 'PATCH', url: `/api/v1/orders/${created.id}`, headers: { ...auth, 'if-match': created.etag }, payload: { title: 'Hooked 2' } }))
  await app.inject({ method: 'DELETE', url: `/api/v1/orders/${created.id}`, headers: auth })
  await app.inject({ method: 'POST', url: `/api/v1/orders/${created.id}:undelete`, headers: auth })
  assert.deepEqual(events.map((e) => [e.resource, e.operation, e.key]), [
    ['orders', 'create', created.id], ['orders', 'update', created.id], ['orders', 'delete', created.id], ['orders', 'undelete', created.id],
  ])
  assert.equal(events[0]!.before, undefined)
  assert.equal((events[0]!.after as { title: string }).title, 'Hooked')
  assert.equal((events[1]!.before as { title: string }).title, 'Hooked')
  // The stored record: every field of the model, no etag.
  const { etag: _etag, ...stored } = updated
  assert.deepEqual(events[1]!.after, stored)
  assert.equal(events[0]!.ctx.user?.id, (await app.tablegate.users!.findByEmail('admin@example.com'))!.id)
})

test('a write whose hook swallowed a failed statement is a 500, never a success that stored nothing', async () => {
  const ordersBefore = await count('SELECT count(*) AS n FROM orders')
  swallowNext = true
  const created = await app.inject({ method: 'POST', url: '/api/v1/orders', headers: auth, payload: { title: 'Rolled back at commit' } })
  assert.equal(created.statusCode, 500, created.body)
  assert.equal(json(created).type, 'urn:service:problem:internal-error')
  assert.equal(await count('SELECT count(*) AS n FROM orders'), ordersBefore)
  // A PATCH too: answered 200 before, though its row stayed as it was.
  const stored = json(await app.inject({ method: 'POST', url: '/api/v1/orders', headers: auth, payload: { title: 'Kept' } }))
  swallowNext = true
  const updated = await app.inject({ method: 'PATCH', url: `/api/v1/orders/${stored.id}`, headers: { ...auth, 'if-match': stored.etag }, payload: { title: 'Lost' } })
  assert.equal(updated.statusCode, 500, updated.body)
  assert.equal(await count(`SELECT count(*) AS n FROM orders WHERE id = ${Number(stored.id)} AND title = 'Kept'`), 1)
})

test('a hook\'s tx refuses statements once the hooks have run: none can run outside its write', async () => {
  const created = await app.inject({ method: 'POST', url: '/api/v1/orders', headers: auth, payload: { title: 'Kept tx' } })
  assert.equal(created.statusCode, 201)
  assert.ok(kept !== undefined)
  await assert.rejects(async () => await kept!.query("INSERT INTO orders (title) VALUES ('late')"), /valid only while the hook runs/)
  assert.equal(await count("SELECT count(*) AS n FROM orders WHERE title = 'late'"), 0)
})

test('a hook that throws leaves no trace of the write, nor of the audit row', async () => {
  const ordersBefore = await count('SELECT count(*) AS n FROM orders')
  const auditBefore = await count('SELECT count(*) AS n FROM tablegate_audit_log')
  failNext = new Error('hook refused')
  const response = await app.inject({ method: 'POST', url: '/api/v1/orders', headers: auth, payload: { title: 'Never stored' } })
  assert.equal(response.statusCode, 500)
  assert.equal(json(response).type, 'urn:service:problem:internal-error')
  assert.doesNotMatch(response.body, /hook refused/)
  assert.equal(await count('SELECT count(*) AS n FROM orders'), ordersBefore)
  assert.equal(await count("SELECT count(*) AS n FROM orders WHERE title = 'Never stored'"), 0)
  assert.equal(await count('SELECT count(*) AS n FROM tablegate_audit_log'), auditBefore)
})

test('an update rolled back by a hook keeps the old record and ETag', async () => {
  const created = json(await app.inject({ method: 'POST', url: '/api/v1/orders', headers: auth, payload: { title: 'Keep' } }))
  failNext = new Error('no')
  const refused = await app.inject({ method: 'PATCH', url: `/api/v1/orders/${created.id}`, headers: { ...auth, 'if-match': created.etag }, payload: { title: 'Lost' } })
  assert.equal(refused.statusCode, 500)
  const got = json(await app.inject({ method: 'GET', url: `/api/v1/orders/${created.id}`, headers: auth }))
  assert.equal(got.title, 'Keep')
  assert.equal(got.etag, created.etag)
})

test('a hook may refuse with a problem, which reaches the caller as it is', async () => {
  const { problem } = await import('../../lib/problems.js')
  failNext = problem('conflict', 'The warehouse is closed.')
  const response = await app.inject({ method: 'POST', url: '/api/v1/orders', headers: auth, payload: { title: 'Closed' } })
  assert.equal(response.statusCode, 409)
  assert.equal(json(response).detail, 'The warehouse is closed.')
})

test('a problem from another instance of the module (a plugin loaded by tsx) is still a problem', async () => {
  const other = await import(new URL('../../lib/problems.js?another-instance', import.meta.url).href) as typeof import('../../lib/problems.js')
  const { Problem } = await import('../../lib/problems.js')
  assert.notEqual(other.Problem, Problem)
  failNext = other.problem('conflict', 'Refused by a plugin.')
  const response = await app.inject({ method: 'POST', url: '/api/v1/orders', headers: auth, payload: { title: 'Plugin says no' } })
  assert.equal(response.statusCode, 409)
  assert.equal(json(response).detail, 'Refused by a plugin.')
})

test('the audit log writes one row per write in the same transaction', async () => {
  const created = json(await app.inject({ method: 'POST', url: '/api/v1/orders', headers: auth, payload: { title: 'Audited' } }))
  const { rows } = await runtimeOf(app).db.app.query('SELECT resource, operation, record_key, user_id, before, after FROM tablegate_audit_log WHERE record_key = $1 ORDER BY id', [created.id])
  assert.equal(rows.length, 1)
  assert.equal(rows[0].resource, 'orders')
  assert.equal(rows[0].operation, 'create')
  assert.equal(rows[0].before, null)
  assert.equal(rows[0].after.title, 'Audited')
  assert.equal(typeof rows[0].user_id, 'string')
})

test('once the app is ready, addWriteHook is refused with a coded error, as Fastify refuses its own hooks', () => {
  assert.throws(() => { app.tablegate.addWriteHook(async () => {}) }, { name: 'HookRegistrationError', code: 'TG_ERR_HOOK_AFTER_READY' })
})
