// /api/meta lists, in each resource's restricted model, the relations the caller can follow: only
// where they read the related resource and the field that links the two (lib/access/relations.ts),
// whoever declared them. X-Meta-Version changes when the relations do.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildApp, bearer, caller } from '../helpers/app.js'
import { RELATIONS_CONFIG, RELATIONS_RESOURCES, relationsApp } from '../fixtures/relations.js'

const { databaseUrl, app } = await relationsApp()

async function metaOf (role: string): Promise<any> {
  const response = await caller(app, await bearer(app, `${role}@example.com`))('GET', '/api/meta')
  assert.equal(response.status, 200, JSON.stringify(response.body))
  return response.body
}

/** Each resource's relations as the caller's meta gives them (undefined where the key is absent). */
function relationsIn (meta: any): Record<string, unknown> {
  return Object.fromEntries(Object.entries(meta.resources).map(([name, resource]: [string, any]) => [name, resource.relations]))
}

const customer = { kind: 'one', resource: 'customers', field: 'customer_id' }
const lines = { kind: 'many', resource: 'order_lines', by: 'order_id', pageSize: 10 }
const orders = { kind: 'many', resource: 'orders', by: 'customer_id', pageSize: 10 }

test('an admin sees every relation; a resource without one has no relations key', async () => {
  const meta = await metaOf('admin')
  assert.deepEqual(relationsIn(meta), { customers: { orders }, orders: { customer, lines }, order_lines: undefined })
  assert.equal('relations' in meta.resources.order_lines, false)
})

test('row rules and hidden fields other than the linking ones leave the relations to a clerk', async () => {
  const meta = await metaOf('clerk')
  assert.deepEqual(relationsIn(meta), { customers: { orders }, orders: { customer, lines }, order_lines: undefined })
  assert.equal('credit_limit' in meta.resources.customers.fields, false)
  assert.equal('cost' in meta.resources.order_lines.fields, false)
})

test('a caller who cannot read customers has no customer relation, and no customers resource at all', async () => {
  assert.deepEqual(relationsIn(await metaOf('courier')), { orders: { lines }, order_lines: undefined })
})

test('a caller for whom orders.customer_id is hidden follows neither orders.customer nor customers.orders', async () => {
  const meta = await metaOf('auditor')
  assert.deepEqual(relationsIn(meta), { customers: undefined, orders: { lines }, order_lines: undefined })
  assert.equal('customer_id' in meta.resources.orders.fields, false)
})

test('a caller for whom order_lines.order_id is hidden has no lines relation', async () => {
  const meta = await metaOf('packer')
  assert.deepEqual(relationsIn(meta), { customers: { orders }, orders: { customer }, order_lines: undefined })
  assert.equal('order_id' in meta.resources.order_lines.fields, false)
})

test('X-Meta-Version changes when the relations do, and only then', async () => {
  const versionOf = async (resources: typeof RELATIONS_RESOURCES | Record<string, unknown>): Promise<string> => {
    const other = await buildApp({ databaseUrl, ...RELATIONS_CONFIG, resources: resources as typeof RELATIONS_RESOURCES })
    const response = await other.inject({ method: 'GET', url: '/api/meta' })
    return String(response.headers['x-meta-version'])
  }
  const same = await versionOf(RELATIONS_RESOURCES)
  assert.equal((await app.inject({ method: 'GET', url: '/api/meta' })).headers['x-meta-version'], same)
  const { orders: ordersConfig } = RELATIONS_RESOURCES
  const fewer = await versionOf({ ...RELATIONS_RESOURCES, orders: { ...ordersConfig, relations: { customer: ordersConfig.relations.customer } } })
  const larger = await versionOf({ ...RELATIONS_RESOURCES, orders: { ...ordersConfig, relations: { ...ordersConfig.relations, lines: { ...ordersConfig.relations.lines, pageSize: 20 } } } })
  assert.equal(new Set([same, fewer, larger]).size, 3)
})

test('a to-many ordered by a field the caller cannot read is no relation of theirs: its order would rank by it', async () => {
  const { app: ranked } = await relationsApp({
    resources: { ...RELATIONS_RESOURCES, orders: { ...RELATIONS_RESOURCES.orders, relations: { ...RELATIONS_RESOURCES.orders.relations, lines: { resource: 'order_lines', by: 'order_id', orderBy: 'cost desc, position' } } } },
  })
  const relationsOf = async (role: string): Promise<any> => (await caller(ranked, await bearer(ranked, `${role}@example.com`))('GET', '/api/meta')).body.resources.orders.relations
  assert.deepEqual(Object.keys(await relationsOf('admin')), ['customer', 'lines'])
  assert.deepEqual(Object.keys(await relationsOf('clerk')), ['customer'])
})
