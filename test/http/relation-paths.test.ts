// One resolver for every relation path (lib/query/paths.ts): `fields`, `filter`, `order_by` and the
// aggregates refuse the same misspelt path with the same nearest path, and a path through three
// relations with the same limit of two. And the check of a filter is shared by callers who see
// the same fields on each side, while the rows each reads on the other side stay their own: the
// cache holds no caller's scope.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { freshDatabase, runSql } from '../helpers/db.js'
import { bearer, buildApp, caller, createUser, subjectOf } from '../helpers/app.js'
import { runtimeOf } from '../../lib/runtime.js'
import type { ResourceConfig } from '../../lib/config/schema.js'
import { RELATIONS_FILTER_CONFIG, RELATIONS_FILTER_SCHEMA } from '../fixtures/relations-filter.js'

const databaseUrl = await freshDatabase()
await runSql(databaseUrl, RELATIONS_FILTER_SCHEMA)
const resources = RELATIONS_FILTER_CONFIG.resources!
const customers = resources.customers as ResourceConfig
// Two clerks who read the same fields everywhere, but other customers: retail ones, or wholesale ones.
const wholesalers = new Set<string>()
const app = await buildApp({
  ...RELATIONS_FILTER_CONFIG,
  databaseUrl,
  resources: {
    ...resources,
    customers: { ...customers, access: { ...customers.access, read: (ctx) => ({ filter: { segment: wholesalers.has(ctx.user.id) ? 'wholesale' : 'retail' } }) } },
  },
})
// The first user is the admin.
await createUser(app, 'admin@example.com', 'admin')
await createUser(app, 'retail@example.com', 'clerk')
await createUser(app, 'wholesale@example.com', 'clerk')
const retail = caller(app, await bearer(app, 'retail@example.com'))
const wholesaleAuth = await bearer(app, 'wholesale@example.com')
wholesalers.add(subjectOf(wholesaleAuth))
const wholesale = caller(app, wholesaleAuth)

function refusal (answer: { status: number, body: any }): string {
  assert.equal(answer.status, 400, JSON.stringify(answer.body))
  return JSON.stringify(answer.body)
}

test('fields, filter, order_by and :facets refuse a misspelt path alike, suggesting the same path', async () => {
  const q = encodeURIComponent
  for (const url of [
    '/api/v1/orders?fields=id,customer.regio.name',
    `/api/v1/orders?filter=${q('customer.regio.name = "EU"')}`,
    '/api/v1/orders?order_by=customer.regio.name',
    '/api/v1/orders:facets?field=customer.regio.name',
  ]) {
    assert.match(refusal(await retail('GET', url)), /did you mean 'customer\.region\.name'\?/i, url)
  }
  // What the caller may not read is never suggested: the clerk reads no credit_limit.
  for (const url of ['/api/v1/orders?fields=customer.credit_limi', '/api/v1/orders?order_by=customer.credit_limi']) {
    assert.doesNotMatch(refusal(await retail('GET', url)), /credit_limit/, url)
  }
})

test('fields, filter, order_by and :facets follow at most two relations, alike', async () => {
  const path = 'customer.region.customers.name'
  for (const [url, said] of [
    [`/api/v1/orders?fields=${path}`, /more than 2 relations/],
    [`/api/v1/orders?filter=${encodeURIComponent(`${path} = "x"`)}`, /at most 2 relations/],
  ] as const) {
    assert.match(refusal(await retail('GET', url)), said, url)
  }
  // order_by and the aggregates take to-one paths only: the third step, a to-many, is refused as such.
  for (const url of [`/api/v1/orders?order_by=${path}`, `/api/v1/orders:facets?field=${path}`]) {
    assert.match(refusal(await retail('GET', url)), /'customer\.region\.customers' is a to-many relation/, url)
  }
})

test('two callers share a filter\'s check, yet each reads only their own rows on the related side', async () => {
  const { filters } = runtimeOf(app).services.checks
  const filter = encodeURIComponent('customer.country = "DE"')
  const before = filters.size
  const retailOrders = (await retail('GET', `/api/v1/orders?fields=title&order_by=id&filter=${filter}`)).body.items.map((o: { title: string }) => o.title)
  const wholesaleOrders = (await wholesale('GET', `/api/v1/orders?fields=title&order_by=id&filter=${filter}`)).body.items.map((o: { title: string }) => o.title)
  // Alpha (retail, DE) has order one; Gamma (wholesale, DE) order three; Delta is another tenant's, Epsilon deleted.
  assert.deepEqual(retailOrders, ['one'])
  assert.deepEqual(wholesaleOrders, ['three'])
  assert.equal(filters.size, before + 1, 'one check for both callers')
})
