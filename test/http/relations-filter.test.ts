// Filters that traverse relations (docs/relations.md, Filters), over HTTP: to-one, to-many (some
// child; none with NOT), two levels, on every route that takes a filter, and always under the
// caller's access on the related side: tenant, row rule, soft delete (live rows only), readable
// fields, relations they may follow. A path they may not take is refused exactly as an unknown field.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { freshDatabase, runSql } from '../helpers/db.js'
import { bearer, buildApp, caller, createUser, type CallResult } from '../helpers/app.js'
import { RELATIONS_FILTER_CONFIG, RELATIONS_FILTER_SCHEMA } from '../fixtures/relations-filter.js'
import { statementsOf } from '../helpers/statements.js'

const databaseUrl = await freshDatabase()
await runSql(databaseUrl, RELATIONS_FILTER_SCHEMA)
const app = await buildApp({ databaseUrl, ...RELATIONS_FILTER_CONFIG })
await createUser(app, 'admin@example.com', 'admin')
await createUser(app, 'clerk@example.com', 'clerk')
await createUser(app, 'auditor@example.com', 'auditor')
const asAdmin = caller(app, await bearer(app, 'admin@example.com'))
const asClerk = caller(app, await bearer(app, 'clerk@example.com'))
const asAuditor = caller(app, await bearer(app, 'auditor@example.com'))
type Caller = typeof asAdmin

const q = encodeURIComponent

async function ids (as: Caller, filter: string, extra = ''): Promise<number[]> {
  const found = await as('GET', `/api/v1/orders?page_size=100&order_by=id&fields=id&filter=${q(filter)}${extra}`)
  assert.equal(found.status, 200, `${filter}: ${JSON.stringify(found.body)}`)
  return found.body.items.map((item: { id: string }) => Number(item.id))
}

/** A 400 invalid-filter problem, without `instance` (the request's own URL). */
function refused (found: CallResult): Record<string, unknown> {
  assert.equal(found.status, 400, JSON.stringify(found.body))
  assert.equal(found.body.type.endsWith(':invalid-filter'), true, found.body.type)
  const { instance, ...problem } = found.body
  assert.equal(typeof instance, 'string')
  return problem
}

test('to-one: the related row exists, the caller may read it (tenant, row rule, live), and it matches', async () => {
  // Customer 3 is wholesale (not the clerk's), 4 is another tenant's, 5 is deleted: none ever matches.
  assert.deepEqual(await ids(asAdmin, 'customer.country = "DE"'), [1, 3])
  assert.deepEqual(await ids(asClerk, 'customer.country = "DE"'), [1])
  assert.deepEqual(await ids(asClerk, 'customer.country != "DE"'), [2])
  assert.deepEqual(await ids(asClerk, 'customer.name:alp OR title = six'), [1, 6])
  assert.deepEqual(await ids(asClerk, 'isNull(customer.country)'), [7])
  assert.deepEqual(await ids(asClerk, 'in(customer.country, DE, FR) AND title != two'), [1])
  // show_deleted is the top level's: a deleted order shows, its customer must still be live and visible.
  assert.deepEqual(await ids(asAdmin, 'customer.country = "DE"', '&show_deleted=true'), [1, 3, 8])
  // NOT: no visible related row matches (an order whose customer the clerk cannot see included).
  assert.deepEqual(await ids(asClerk, 'NOT customer.country = "DE"'), [2, 3, 4, 5, 6, 7])
})

test('to-many: SOME child the caller may read matches; NOT: none does', async () => {
  // Line 3 (order 2, sku A) is internal: not the clerk's. Line 6 (order 6, sku Z) is deleted.
  assert.deepEqual(await ids(asAdmin, 'lines.sku = "A"'), [1, 2, 7])
  assert.deepEqual(await ids(asClerk, 'lines.sku = "A"'), [1, 7])
  assert.deepEqual(await ids(asClerk, 'lines.sku:"a"'), [1, 7])
  assert.deepEqual(await ids(asAdmin, 'lines.quantity > 3'), [1, 2, 6])
  assert.deepEqual(await ids(asClerk, 'lines.quantity > 3'), [1, 6])
  assert.deepEqual(await ids(asAdmin, 'lines.sku = "Z"'), [])
  assert.deepEqual(await ids(asClerk, 'NOT lines.sku = "A"'), [2, 3, 4, 5, 6])
  // Each condition asks of some child: these two may be met by different lines of one order.
  assert.deepEqual(await ids(asClerk, 'lines.sku = "A" AND lines.quantity > 3'), [1])
  assert.deepEqual(await ids(asClerk, 'lines.sku = "B" AND customer.country = "DE"'), [1])
})

test('two levels: the customer\'s region, each level under the caller\'s own rows', async () => {
  assert.deepEqual(await ids(asAdmin, 'customer.region.name = "EU"'), [1, 3])
  assert.deepEqual(await ids(asClerk, 'customer.region.name = "EU"'), [1])
  assert.deepEqual(await ids(asClerk, 'NOT customer.region.name = "EU"'), [2, 3, 4, 5, 6, 7])
})

test('every route that takes a filter counts only what the caller may read on both sides', async () => {
  const filter = q('customer.country = "DE" OR lines.sku = "A"')
  // The admin asks first, so anything shared between the two would show in the clerk's answers.
  const adminList = await asAdmin('GET', `/api/v1/orders?count=exact&filter=${filter}`)
  assert.equal(adminList.body.total_size, 4)
  const clerkList = await asClerk('GET', `/api/v1/orders?count=exact&filter=${filter}`)
  assert.equal(clerkList.status, 200)
  assert.equal(clerkList.body.total_size, 2)
  assert.deepEqual(clerkList.body.items.map((o: { title: string }) => o.title).sort(), ['one', 'seven'])
  // One row a page: the estimate is counted and kept (30 s), the admin's first.
  assert.equal((await asAdmin('GET', `/api/v1/orders?page_size=1&filter=${filter}`)).body.total_size_estimate, 4)
  assert.equal((await asClerk('GET', `/api/v1/orders?page_size=1&filter=${filter}`)).body.total_size_estimate, 2)
  const searched = await asClerk('POST', '/api/v1/orders:search', { payload: { filter: 'customer.country = "DE" OR lines.sku = "A"', count: 'exact' } })
  assert.equal(searched.status, 200)
  assert.equal(searched.body.total_size, 2)
  const seek = await asClerk('GET', `/api/v1/orders:seek?position=0&filter=${q('customer.country = "DE"')}`)
  assert.equal(seek.status, 200, JSON.stringify(seek.body))
  assert.deepEqual(seek.body.items.map((o: { id: string }) => o.id), ['1'])
  assert.deepEqual((await asAdmin('GET', `/api/v1/orders:facets?field=title&filter=${filter}`)).body.facets,
    [{ value: 'one', count: 1 }, { value: 'seven', count: 1 }, { value: 'three', count: 1 }, { value: 'two', count: 1 }])
  assert.deepEqual((await asClerk('GET', `/api/v1/orders:facets?field=title&filter=${filter}`)).body.facets,
    [{ value: 'one', count: 1 }, { value: 'seven', count: 1 }])
  const exported = await app.inject({ method: 'GET', url: `/api/v1/orders:export?fields=id&format=ndjson&filter=${filter}`, headers: await bearer(app, 'clerk@example.com') })
  assert.equal(exported.statusCode, 200)
  assert.deepEqual(exported.body.trim().split('\n').map((line) => JSON.parse(line)), [{ id: '1' }, { id: '7' }])
})

test('a hidden related field is refused exactly as an unknown one, and never suggested', async () => {
  const hidden = refused(await asClerk('GET', `/api/v1/orders?filter=${q('customer.credit_limit > 0')}`))
  const unknown = refused(await asClerk('GET', `/api/v1/orders?filter=${q('customer.credit_limitx > 0')}`))
  assert.deepEqual(JSON.parse(JSON.stringify(hidden).replaceAll('credit_limit', 'credit_limitx')), { ...unknown, errors: [{ ...(unknown.errors as object[])[0], span: { start: 9, end: 21 } }] })
  assert.deepEqual(hidden.errors, [{ code: 'unknown-field', message: "There is no field 'customer.credit_limit' to filter on.", hint: "Fields you can filter on: customer.id, customer.name, customer.country, customer.segment, customer.region_id, customer.deleted_at.", span: { start: 9, end: 21 } }])
  // The admin reads it, and so may filter by it.
  assert.deepEqual(await ids(asAdmin, 'customer.credit_limit > 2000'), [2, 3])
  // A hidden field of a to-many's target, in a function too.
  const cost = refused(await asClerk('GET', `/api/v1/orders?filter=${q('isNull(lines.cost)')}`))
  assert.equal((cost.errors as Array<{ code: string }>)[0]!.code, 'unknown-field')
  assert.equal((cost.errors as Array<{ message: string }>)[0]!.message, "There is no field 'lines.cost' to filter on.")
})

test('a relation the caller may not follow is refused exactly as an unknown field', async () => {
  // The auditor reads orders but not customer_id, nor customers, nor order lines.
  for (const [relation, stranger] of [['customer', 'customex'], ['lines', 'linex']] as const) {
    const text = `${relation}.country = "DE"`
    const refusedRelation = refused(await asAuditor('GET', `/api/v1/orders?filter=${q(text)}`))
    const unknown = refused(await asAuditor('GET', `/api/v1/orders?filter=${q(text.replace(relation, stranger))}`))
    assert.deepEqual(JSON.parse(JSON.stringify(refusedRelation).replaceAll(`'${relation}'`, `'${stranger}'`)), unknown)
    assert.deepEqual((refusedRelation.errors as object[])[0], {
      code: 'unknown-field',
      message: `There is no field '${relation}' to filter on.`,
      hint: 'Fields you can filter on: id, title, deleted_at.',
      span: { start: 0, end: relation.length },
    })
  }
  // The same over :facets and :export: the same problem, before any row is read.
  const facets = refused(await asAuditor('GET', `/api/v1/orders:facets?field=title&filter=${q('customer.country = "DE"')}`))
  assert.equal((facets.errors as Array<{ code: string }>)[0]!.code, 'unknown-field')
})

test('a relation alone, a path ending on one, or more than two relations: refused with a span', async () => {
  const alone = refused(await asClerk('GET', `/api/v1/orders?filter=${q('customer = 1')}`))
  assert.deepEqual(alone.errors, [{ code: 'invalid-path', message: "'customer' is a relation: a filter compares one of its fields.", hint: 'Name a field of it: customer.id.', span: { start: 0, end: 8 } }])
  const ending = refused(await asClerk('GET', `/api/v1/orders?filter=${q('title = x AND customer.region = 1')}`))
  assert.deepEqual(ending.errors, [{ code: 'invalid-path', message: "'customer.region' is a relation: a filter compares one of its fields.", hint: 'Name a field of it: customer.region.id.', span: { start: 23, end: 29 } }])
  const deep = refused(await asClerk('GET', `/api/v1/orders?filter=${q('customer.region.customers.name = x')}`))
  assert.deepEqual(deep.errors, [{ code: 'invalid-path', message: 'A filter follows at most 2 relations.', hint: 'Filter on a field of customer.region.', span: { start: 0, end: 25 } }])
  const bare = refused(await asClerk('GET', `/api/v1/orders?filter=${q('lines.sku')}`))
  assert.equal((bare.errors as Array<{ code: string }>)[0]!.code, 'missing-comparison')
  const scalar = refused(await asClerk('GET', `/api/v1/orders?filter=${q('customer.name.first = x')}`))
  assert.deepEqual(scalar.errors, [{ code: 'invalid-path', message: "Field 'customer.name' is a string: it has no keys to traverse.", hint: 'Only json fields have keys: meta.color = "red".', span: { start: 14, end: 19 } }])
})

test('a page token of a traversed filter pages on, and is bound to that filter', async () => {
  const first = await asAdmin('GET', `/api/v1/orders?page_size=1&order_by=id&fields=id&filter=${q('customer.country = "DE"')}`)
  assert.deepEqual(first.body.items.map((o: { id: string }) => o.id), ['1'])
  const second = await asAdmin('GET', `/api/v1/orders?page_size=1&order_by=id&fields=id&filter=${q('customer.country = "DE"')}&page_token=${q(first.body.next_page_token)}`)
  assert.deepEqual(second.body.items.map((o: { id: string }) => o.id), ['3'])
  const replayed = await asAdmin('GET', `/api/v1/orders?page_size=1&order_by=id&fields=id&filter=${q('customer.country = "FR"')}&page_token=${q(first.body.next_page_token)}`)
  assert.equal(replayed.status, 400)
})

test('a page whose filter traverses, with a value new on every request, is one statement, embeds and all', async () => {
  // The scan guard judges a list's shape once (its EXPLAINs); values after the first share the verdict.
  const url = (filter: string): string => `/api/v1/orders?order_by=id&fields=id,customer.name&filter=${q(filter)}`
  assert.equal((await asClerk('GET', url('customer.country = "US"'))).status, 200)
  assert.equal((await asClerk('GET', url('lines.sku:"Y"'))).status, 200)
  for (const filter of ['customer.country = "DE"', 'customer.country = "FR"', 'lines.sku:"A"', 'lines.sku:"B"']) {
    let found: CallResult | undefined
    const statements = await statementsOf(async () => { found = await asClerk('GET', url(filter)) })
    assert.equal(found!.status, 200, JSON.stringify(found!.body))
    assert.equal(statements.length, 1, statements.join('\n'))
    assert.match(statements[0]!, / LEFT JOIN LATERAL .* WHERE .*EXISTS \(SELECT 1 FROM "(customers|order_lines)" AS "__related_1"/)
    assert.deepEqual(found!.body.items.map((o: { id: string }) => Number(o.id)), await ids(asClerk, filter))
    assert.equal(found!.body.items.every((o: { customer: unknown }) => o.customer === null || typeof (o.customer as { name: unknown }).name === 'string'), true)
  }
})

test('the scan guard judges a traversed filter on large tables: served by indexes (the key, the link), it passes', async () => {
  const url = await freshDatabase()
  await runSql(url, `
    CREATE TABLE accounts (id bigint PRIMARY KEY, country text NOT NULL, name text NOT NULL);
    INSERT INTO accounts SELECT n, (ARRAY['DE', 'FR', 'US'])[1 + n % 3], 'account ' || n FROM generate_series(1, 20000) AS n;
    CREATE INDEX ON accounts (country);
    CREATE TABLE bills (id bigint PRIMARY KEY, account_id bigint NOT NULL REFERENCES accounts (id), amount integer NOT NULL);
    INSERT INTO bills SELECT n, 1 + n % 20000, n % 100 FROM generate_series(1, 20000) AS n;
    CREATE INDEX ON bills (account_id);
    ANALYZE accounts; ANALYZE bills;
  `)
  const guarded = await buildApp({
    databaseUrl: url,
    resources: {
      accounts: { fields: { id: { type: 'bigint' }, country: { type: 'string' }, name: { type: 'string' } }, relations: { bills: { resource: 'bills', by: 'account_id' } } },
      bills: { fields: { id: { type: 'bigint' }, account_id: { type: 'bigint', references: 'accounts' }, amount: { type: 'integer' } }, relations: { account: { field: 'account_id' } } },
    },
  })
  await createUser(guarded, 'admin@example.com')
  const call = caller(guarded, await bearer(guarded, 'admin@example.com'))
  const served = await call('GET', `/api/v1/bills?page_size=5&filter=${q('account.country = "DE"')}`)
  assert.equal(served.status, 200, JSON.stringify(served.body))
  assert.equal(served.headers['x-service-warning'], undefined)
  const children = await call('GET', `/api/v1/accounts?page_size=5&count=exact&filter=${q('bills.amount = 7 AND NOT bills.amount = 8')}`)
  assert.equal(children.status, 200, JSON.stringify(children.body))
  assert.equal(children.body.total_size, 200)
})
