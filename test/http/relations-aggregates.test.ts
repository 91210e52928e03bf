// :facets, :histogram and :series by a related record's field through a to-one path
// (docs/relations.md, "Aggregates"), over HTTP: an order whose customer is missing, another
// tenant's or deleted counts in the null bucket, never in its customer's value's; only orders
// the caller reads count; a path they may not take is refused exactly as an unknown field; and
// each caller's OpenAPI document lists the paths they may use, and offers an aggregate that only
// such a path makes possible.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { freshDatabase, runSql } from '../helpers/db.js'
import { buildApp, createUser, type CallResult } from '../helpers/app.js'
import { RELATIONS_CONFIG, RELATIONS_RESOURCES, RELATIONS_SCHEMA, RELATIONS_USERS, ordersSeed, relationsCallers } from '../fixtures/relations.js'

// The relations fixture, with a timestamp on customers for :series, and tags: a resource with no
// timestamp of its own but a customer, which the courier reads without being able to follow.
const databaseUrl = await freshDatabase()
await runSql(databaseUrl, `${RELATIONS_SCHEMA} ALTER TABLE customers ADD COLUMN since timestamptz;
  CREATE TABLE tags (label text PRIMARY KEY, customer_id bigint REFERENCES customers (id));
  CREATE INDEX ON tags (customer_id);`)
const customers = RELATIONS_RESOURCES.customers
const app = await buildApp({
  databaseUrl,
  ...RELATIONS_CONFIG,
  roles: { ...RELATIONS_CONFIG.roles, courier: [...RELATIONS_CONFIG.roles.courier, 'tags.read'] },
  resources: {
    ...RELATIONS_RESOURCES,
    customers: { ...customers, fields: { ...customers.fields, since: { type: 'timestamp' } } },
    tags: {
      key: ['label'],
      fields: { label: { type: 'string', required: true }, customer_id: { type: 'bigint', references: 'customers' } },
      relations: { customer: { field: 'customer_id' } },
    },
  },
})
for (const role of RELATIONS_USERS) await createUser(app, `${role}@example.com`, role === 'admin' ? undefined : role)
const { db, clerkId, adminId, asAdmin, asClerk, asAuditor, asCourier } = await relationsCallers(app, databaseUrl)

// As in relations-order.test.ts: customer 4 is tenant t2's and 5 is deleted, both from DE and of
// January, so an order of theirs that counted as DE or in January would show. Order 10 is the
// admin's (the clerk's row rule leaves it out), 11 is deleted, 12 is tenant t2's.
await db.query(`
  INSERT INTO customers (id, tenant_id, name, country, credit_limit, since, deleted_at) VALUES
    (1, 't1', 'Ann', 'DE', 100, '2026-01-05T10:00:00Z', NULL), (2, 't1', 'Bob', NULL, 200, '2026-02-10T10:00:00Z', NULL),
    (3, 't1', 'Ann', 'FR', 300, '2026-01-20T10:00:00Z', NULL), (4, 't2', 'Aaron', 'DE', 50, '2026-01-07T10:00:00Z', NULL),
    (5, 't1', 'Abe', 'DE', 10, '2026-01-08T10:00:00Z', now()), (6, 't1', 'Cy', 'US', NULL, NULL, NULL);
  INSERT INTO tags (label, customer_id) VALUES ('vip', 1), ('new', 2), ('none', NULL);
`)
await db.query(ordersSeed(clerkId, adminId))

type Caller = typeof asAdmin
const q = encodeURIComponent

async function ok (found: Promise<CallResult>): Promise<any> {
  const answer = await found
  assert.equal(answer.status, 200, JSON.stringify(answer.body))
  return answer.body
}

test(':facets by customer.country: an invisible or missing customer is the null bucket, as a null country is', async () => {
  // DE would be 4 if the t2 customer's or the deleted one's orders counted there.
  assert.deepEqual(await ok(asClerk('GET', '/api/v1/orders:facets?field=customer.country')), {
    field: 'customer.country',
    facets: [{ value: null, count: 4 }, { value: 'DE', count: 2 }, { value: 'FR', count: 2 }, { value: 'US', count: 1 }],
  })
  // The admin reads order 10 too (Bob's, no country); deleted and t2 orders never count.
  assert.deepEqual((await ok(asAdmin('GET', '/api/v1/orders:facets?field=customer.country'))).facets,
    [{ value: null, count: 5 }, { value: 'DE', count: 2 }, { value: 'FR', count: 2 }, { value: 'US', count: 1 }])
  // Ties on the related value count together; with a filter, and a limit, as any facet.
  assert.deepEqual((await ok(asClerk('GET', `/api/v1/orders:facets?field=customer.name&limit=2&filter=${q('title != "o1"')}`))).facets,
    [{ value: 'Ann', count: 3 }, { value: null, count: 3 }])
  // The same counts plain SQL finds over the clerk's visible rows.
  const expected = await db.query(`SELECT c.country AS value, count(*)::int AS count FROM orders o
    LEFT JOIN (SELECT * FROM customers WHERE tenant_id = 't1' AND deleted_at IS NULL) c ON c.id = o.customer_id
    WHERE o.tenant_id = 't1' AND o.deleted_at IS NULL AND o.owner_id = $1 GROUP BY 1 ORDER BY 2 DESC, 1 ASC`, [clerkId])
  assert.deepEqual((await ok(asClerk('GET', '/api/v1/orders:facets?field=customer.country'))).facets, expected.rows)
})

test(':histogram of customer.credit_limit (the admin\'s) and :series of customer.since', async () => {
  // Orders 3, 4, 5 (no customer, t2's, deleted) and 8 (Cy: no limit) have no value.
  assert.deepEqual(await ok(asAdmin('GET', '/api/v1/orders:histogram?field=customer.credit_limit&buckets=2')), {
    field: 'customer.credit_limit',
    min: '100.00',
    max: '300.00',
    buckets: [{ start: '100', end: '200', count: 2 }, { start: '200', end: '300', count: 4 }],
    nulls: 4,
  })
  // January would be 6 if the t2 customer's or the deleted one's orders counted.
  const series = await ok(asClerk('GET', '/api/v1/orders:series?field=customer.since&from=2026-01-01T00:00:00Z&to=2026-03-01T00:00:00Z&granularity=month'))
  assert.equal(series.field, 'customer.since')
  assert.deepEqual(series.buckets.map((b: { count: number }) => b.count), [4, 1])
  const all = await ok(asClerk('GET', '/api/v1/orders:series?field=customer.since&range=all&granularity=month'))
  assert.deepEqual(all.buckets.map((b: { count: number }) => b.count), [4, 1])
  assert.equal(all.from, '2026-01-01T00:00:00.000000Z')
})

/** The 400 invalid-parameter problem of an aggregate, without `instance`. */
async function refused (as: Caller, url: string): Promise<Record<string, unknown>> {
  const found = await as('GET', url)
  assert.equal(found.status, 400, JSON.stringify(found.body))
  assert.equal(found.body.type, 'urn:service:problem:invalid-parameter')
  const { instance, ...problem } = found.body
  assert.equal(typeof instance, 'string')
  return problem
}

test('a hidden related field, or a relation the caller may not follow, is refused exactly as an unknown field', async () => {
  for (const route of ['facets', 'histogram']) {
    const hidden = await refused(asClerk, `/api/v1/orders:${route}?field=customer.credit_limit`)
    const unknown = await refused(asClerk, `/api/v1/orders:${route}?field=customer.credit_limix`)
    assert.deepEqual(JSON.parse(JSON.stringify(hidden).replaceAll('credit_limit', 'credit_limix')), unknown)
    assert.match(String(hidden.detail), /^There is no field 'customer\.credit_limit' to /)
  }
  // The auditor reads customers, but not orders.customer_id: no customer relation for them.
  const relation = await refused(asAuditor, '/api/v1/orders:facets?field=customer.country')
  const unknown = await refused(asAuditor, '/api/v1/orders:facets?field=customex.country')
  assert.deepEqual(JSON.parse(JSON.stringify(relation).replaceAll('customer.', 'customex.')), unknown)
  // A near miss is suggested among the paths of the right type only.
  assert.equal((await refused(asClerk, '/api/v1/orders:facets?field=customer.contry')).detail, "There is no field 'customer.contry' to count values of (did you mean 'customer.country'?).")
})

test('a relation alone, a to-many path or a field of another type: refused, saying why', async () => {
  assert.equal((await refused(asClerk, '/api/v1/orders:facets?field=customer')).detail, "'customer' is a relation: :facets takes one of its fields (customer.id).")
  assert.equal((await refused(asClerk, '/api/v1/orders:facets?field=lines.sku')).detail, "'lines' is a to-many relation: :facets follows to-one relations only.")
  assert.equal((await refused(asClerk, '/api/v1/orders:histogram?field=customer.name')).detail,
    "'customer.name' is of type string: :histogram takes a field of type integer, bigint, number or decimal.")
})

test('each caller\'s OpenAPI document lists the paths they may aggregate by', async () => {
  const fieldEnum = async (as: Caller, route: string): Promise<string[]> => {
    const document = await ok(as('GET', '/api/openapi.json'))
    return document.paths[`/api/v1/orders:${route}`].get.parameters.find((p: { name: string }) => p.name === 'field').schema.enum
  }
  const clerkFacets = await fieldEnum(asClerk, 'facets')
  assert.ok(clerkFacets.includes('title') && clerkFacets.includes('customer.country') && clerkFacets.includes('customer.name'), clerkFacets.join())
  assert.ok(!clerkFacets.includes('customer.credit_limit'))
  assert.ok((await fieldEnum(asAdmin, 'histogram')).includes('customer.credit_limit'))
  assert.ok((await fieldEnum(asClerk, 'series')).includes('customer.since'))
  assert.ok(!(await fieldEnum(asAuditor, 'facets')).some((name) => name.startsWith('customer.')))
})

test('an aggregate is offered where only a to-one path reaches a field of its types, to callers who may follow it', async () => {
  const routes = async (as: Caller): Promise<string[]> => Object.keys((await ok(as('GET', '/api/openapi.json'))).paths).filter((path) => path.startsWith('/api/v1/tags:'))
  // Tags have no timestamp of their own: :series is there through customer.since alone.
  assert.ok((await routes(asAdmin)).includes('/api/v1/tags:series'))
  const document = await ok(asAdmin('GET', '/api/openapi.json'))
  assert.deepEqual(document.paths['/api/v1/tags:series'].get.parameters.find((p: { name: string }) => p.name === 'field').schema.enum, ['customer.since', 'customer.deleted_at'])
  const series = await ok(asAdmin('GET', '/api/v1/tags:series?field=customer.since&from=2026-01-01T00:00:00Z&to=2026-03-01T00:00:00Z&granularity=month'))
  assert.deepEqual(series.buckets.map((b: { count: number }) => b.count), [1, 1])
  // The courier reads tags but not customers: no path reaches a timestamp, so no :series.
  assert.ok(!(await routes(asCourier)).includes('/api/v1/tags:series'))
  assert.ok((await routes(asCourier)).includes('/api/v1/tags:facets'))
})
