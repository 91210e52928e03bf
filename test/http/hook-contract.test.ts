// The write-hook contract as a plugin author meets it: hooks see stored rows (every field, hidden
// ones included, no etag), subscribe by resource and operation, leave the fast paths of writes they
// do not hear of, and register through config.plugins in both ways of starting tablegate.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import Fastify from 'fastify'
import fp from 'fastify-plugin'
import { freshDatabase, runSql } from '../helpers/db.js'
import { buildApp, createUser, bearer, caller, TEST_SECRET } from '../helpers/app.js'
import { kinds, statementsOf } from '../helpers/statements.js'
import shopRules from '../../examples/shop/rules.js'
import { tablegate, auditLog, type Config, type WriteEvent } from '../../lib/index.js'
import { runtimeOf } from '../../lib/runtime.js'

const databaseUrl = await freshDatabase()
await runSql(databaseUrl, `
  CREATE TABLE orders (id bigserial PRIMARY KEY, title text NOT NULL, status text NOT NULL DEFAULT 'draft', note text, version integer NOT NULL DEFAULT 1, deleted_at timestamptz);
  CREATE TABLE customers (id serial PRIMARY KEY, name text NOT NULL);
`)
const resources: Config['resources'] = {
  orders: {
    softDelete: 'deleted_at',
    version: 'version',
    fields: {
      id: { type: 'bigint', readOnly: true },
      title: { type: 'string' },
      status: { type: 'string', enum: ['draft', 'open', 'locked'], default: 'draft' },
      note: { type: 'string' },
    },
    // Users see neither the status nor the note: hooks must see them all the same.
    access: { fields: { status: { read: ['admin'] }, note: { read: ['admin'] } } },
  },
  customers: { fields: { id: { type: 'integer', readOnly: true }, name: { type: 'string' } } },
}
const app = await buildApp({ databaseUrl, resources, plugins: [shopRules, [auditLog, { resources: ['orders'] }]] })
const customerEvents: WriteEvent[] = []
app.tablegate.addWriteHook(async function customersOnly (event) { customerEvents.push(event) }, { resources: ['customers'] })
await createUser(app, 'admin@example.com')
await createUser(app, 'user@example.com', 'user')
const admin = caller(app, await bearer(app, 'admin@example.com'))
const user = caller(app, await bearer(app, 'user@example.com'))
await user('GET', '/api/v1/orders?page_size=1')

test('the example rule holds whatever the caller may read: a user cannot delete a locked order', async () => {
  const order = await admin('POST', '/api/v1/orders', { payload: { title: 'Locked', status: 'locked', note: 'secret' } })
  const seen = await user('GET', `/api/v1/orders/${order.body.id}`)
  assert.deepEqual(Object.keys(seen.body), ['id', 'title', 'version', 'deleted_at', 'etag', 'permissions'])
  const refused = await user('DELETE', `/api/v1/orders/${order.body.id}`)
  assert.equal(refused.status, 409)
  assert.equal(refused.body.type, 'urn:service:problem:conflict')
  assert.equal(refused.body.detail, 'A locked order cannot be deleted.')
  assert.equal((await admin('GET', `/api/v1/orders/${order.body.id}`)).status, 200)
  const open = await admin('POST', '/api/v1/orders', { payload: { title: 'Open', status: 'open' } })
  assert.equal((await user('DELETE', `/api/v1/orders/${open.body.id}`)).status, 204)
})

test('hooks get stored rows: every field, hidden ones included, and no etag', async () => {
  const order = await user('POST', '/api/v1/orders', { payload: { title: 'Audited' } })
  await admin('PATCH', `/api/v1/orders/${order.body.id}`, { payload: { note: 'kept from users' }, headers: { 'if-match': (await admin('GET', `/api/v1/orders/${order.body.id}`)).body.etag } })
  const { rows } = await runtimeOf(app).db.app.query('SELECT operation, before, after FROM tablegate_audit_log WHERE record_key = $1 ORDER BY id', [order.body.id])
  assert.deepEqual(rows.map((r) => r.operation), ['create', 'update'])
  assert.deepEqual(rows[0].after, { id: order.body.id, title: 'Audited', status: 'draft', note: null, version: 1, deleted_at: null })
  assert.deepEqual(rows[1].before, rows[0].after)
  assert.deepEqual(rows[1].after, { ...rows[0].after, note: 'kept from users', version: 2 })
})

test('a hook hears only the resources and operations it subscribed to', async () => {
  customerEvents.length = 0
  await admin('POST', '/api/v1/orders', { payload: { title: 'not for customers' } })
  const customer = await admin('POST', '/api/v1/customers', { payload: { name: 'Cy' } })
  assert.deepEqual(customerEvents.map((e) => [e.resource, e.operation, e.key]), [['customers', 'create', String(customer.body.id)]])
  assert.equal('etag' in customerEvents[0]!.after!, false)
})

test('writes no hook hears of keep their one-statement paths; hooked writes run in a transaction', async () => {
  // orders: the example hook hears deletes, the audit log every orders write; customers: one hook.
  // Without the audit log on orders, an order update would be one UPDATE: the app below shows it.
  const plain = await buildApp({ databaseUrl, resources, plugins: [shopRules] })
  const call = caller(plain, await bearer(plain, 'admin@example.com'))
  await call('GET', '/api/v1/orders?page_size=1')
  let created: Awaited<ReturnType<typeof call>> | undefined
  const create = await statementsOf(async () => { created = await call('POST', '/api/v1/orders', { payload: { title: 'fast' } }) })
  assert.deepEqual(kinds(create), ['INSERT'])
  const update = await statementsOf(async () => { await call('PATCH', `/api/v1/orders/${created!.body.id}`, { payload: { title: 'faster' }, headers: { 'if-match': created!.body.etag } }) })
  assert.deepEqual(kinds(update), ['UPDATE'])
  const remove = await statementsOf(async () => { await call('DELETE', `/api/v1/orders/${created!.body.id}`) })
  assert.deepEqual(kinds(remove), ['BEGIN', 'SELECT FOR UPDATE', 'UPDATE', 'COMMIT'])
  const hooked = await statementsOf(async () => { await admin('POST', '/api/v1/customers', { payload: { name: 'Di' } }) })
  assert.deepEqual(kinds(hooked), ['BEGIN', 'INSERT', 'COMMIT'])
})

test('addWriteHook refuses, with coded errors, what it cannot subscribe to', async () => {
  const fresh = await buildApp({ databaseUrl, resources })
  assert.throws(() => { fresh.tablegate.addWriteHook('nope' as never) }, { name: 'HookRegistrationError', code: 'TG_ERR_HOOK_NOT_FUNCTION' })
  assert.throws(() => { fresh.tablegate.addWriteHook(async () => {}, { resources: ['ordres'] }) }, { code: 'TG_ERR_HOOK_UNKNOWN_RESOURCE', message: /no resource named 'ordres'/ })
  assert.throws(() => { fresh.tablegate.addWriteHook(async () => {}, { operations: ['upsert' as never] }) }, { code: 'TG_ERR_HOOK_UNKNOWN_OPERATION' })
  await fresh.ready()
  assert.throws(() => { fresh.tablegate.addWriteHook(async () => {}) }, { code: 'TG_ERR_HOOK_AFTER_READY' })
  assert.throws(() => { fresh.tablegate.addListGuard(async () => undefined) }, { code: 'TG_ERR_HOOK_AFTER_READY', message: /addListGuard after the app is ready/ })
  // The models are the app's: a plugin reads them and cannot change them.
  const models = fresh.tablegate.models as unknown as Record<string, unknown>
  for (const change of ['set', 'delete', 'clear']) assert.equal(models[change], undefined, change)
  assert.ok(fresh.tablegate.models.has('customers'))
  fresh.tablegate.models.forEach((_model, _name, map) => { assert.equal((map as unknown as Record<string, unknown>).delete, undefined) })
})

test('config.plugins are registered by app.register(tablegate, config) as by createServer', async () => {
  const heard: string[] = []
  const listener = fp(async (instance) => {
    instance.tablegate.addWriteHook(async (event) => { heard.push(`${event.resource}.${event.operation}`) }, { resources: ['customers'] })
  }, { name: 'listener', dependencies: ['tablegate'] })
  const own = Fastify()
  await own.register(tablegate, { databaseUrl, authSecret: TEST_SECRET, resources, plugins: [listener] })
  try {
    const call = caller(own, await bearer(app, 'admin@example.com'))
    const created = await call('POST', '/api/v1/customers', { payload: { name: 'Ed' } })
    assert.equal(created.status, 201)
    assert.deepEqual(heard, ['customers.create'])
  } finally {
    await own.close()
  }
})

test('a route the app registered before tablegate is refused without a token as a problem too', async () => {
  const own = Fastify()
  own.get('/api/v1/mine', async () => ({ ok: true }))
  await own.register(tablegate, { databaseUrl, authSecret: TEST_SECRET, resources })
  try {
    const refused = await own.inject({ method: 'GET', url: '/api/v1/mine' })
    assert.equal(refused.statusCode, 401)
    assert.equal(refused.headers['content-type'], 'application/problem+json; charset=utf-8')
    assert.equal(refused.headers['www-authenticate'], 'Bearer')
    assert.equal(JSON.parse(refused.body).type, 'urn:service:problem:unauthenticated')
    const served = await caller(own, await bearer(app, 'admin@example.com'))('GET', '/api/v1/mine')
    assert.deepEqual([served.status, served.body], [200, { ok: true }])
  } finally {
    await own.close()
  }
})

test('a config plugin that fails to register is named by its place in config.plugins, its error kept', async () => {
  const broken = fp(async (instance) => {
    instance.tablegate.addWriteHook(async () => {}, { resources: ['ordres'] })
  }, { name: 'broken-listener', dependencies: ['tablegate'] })
  await assert.rejects(buildApp({ databaseUrl, resources, plugins: [shopRules, broken] }), {
    code: 'TG_ERR_HOOK_UNKNOWN_RESOURCE',
    message: /^config\.plugins\[1\] \(broken-listener\): .*no resource named 'ordres'/,
  })
})
