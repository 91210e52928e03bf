// To-many relations embedded through `fields` paths (docs/relations.md, "Embedding"): `{ items,
// next_page_token }` with the first pageSize children the caller may read, in the relation's
// order, each as a get of it gives it; the token continues those children on the child's own list.
// Uses the relations fixture's callers: the clerk reads its own orders, the courier may follow
// `lines` only, the auditor not `customer` nor `customers.orders`, the packer not `lines`.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { runSql, withClient } from '../helpers/db.js'
import { bearer, caller, type CallResult } from '../helpers/app.js'
import { assertUnknownField, refusalShape } from '../helpers/refusals.js'
import { statementsOf } from '../helpers/statements.js'
import { tamperedPageToken } from '../helpers/page-tokens.js'
import { RELATIONS_RESOURCES, relationsApp } from '../fixtures/relations.js'

// order_lines gain a to-one back to their order, so paths can go to-one under to-many.
const { databaseUrl, app } = await relationsApp({ logger: { level: 'error' },
  resources: { ...RELATIONS_RESOURCES, order_lines: { ...RELATIONS_RESOURCES.order_lines, relations: { order: { field: 'order_id' } } } },
})
const admin = caller(app, await bearer(app, 'admin@example.com'))
const clerk = caller(app, await bearer(app, 'clerk@example.com'))
const courier = caller(app, await bearer(app, 'courier@example.com'))
const auditor = caller(app, await bearer(app, 'auditor@example.com'))
const packer = caller(app, await bearer(app, 'packer@example.com'))
type Call = typeof admin

function ok (response: CallResult): any {
  assert.equal(response.status, 200, JSON.stringify(response.body))
  return response.body
}

// The clerk's own order gives its owner id, which the other rows take.
const created = await clerk('POST', '/api/v1/orders', { payload: { title: 'mine' } })
assert.equal(created.status, 201)
const clerkId = created.body.owner_id as string
// Order 1 has 28 lines: 25 the callers read, one of tenant t2 and two soft-deleted, their ids
// running against their positions. Order 2's two lines share a position (the key breaks the tie).
await runSql(databaseUrl, `
  DELETE FROM orders;
  INSERT INTO customers (id, tenant_id, name, credit_limit, deleted_at) VALUES
    (1, 't1', 'Ann', 100.50, NULL), (2, 't1', 'Bob', NULL, NULL), (3, 't1', 'Gone', NULL, now()), (4, 't2', 'Other', NULL, NULL);
  INSERT INTO orders (id, tenant_id, title, customer_id, owner_id, deleted_at) VALUES
    (1, 't1', 'big', 1, '${clerkId}', NULL), (2, 't1', 'small', 1, '${clerkId}', NULL), (3, 't1', 'theirs', 1, 'someone', NULL),
    (4, 't1', 'bob', 2, '${clerkId}', NULL), (5, 't1', 'deleted', 1, '${clerkId}', now()), (6, 't2', 'other', 4, '${clerkId}', NULL),
    (7, 't1', 'empty', 2, '${clerkId}', NULL);
  INSERT INTO order_lines (id, tenant_id, order_id, position, sku, cost, deleted_at)
    SELECT 100 - p, CASE WHEN p = 9 THEN 't2' ELSE 't1' END, 1, p, 'S-' || p, p * 1.25, CASE WHEN p IN (4, 15) THEN now() END
    FROM generate_series(1, 28) AS p;
  INSERT INTO order_lines (id, tenant_id, order_id, position, sku, cost) VALUES
    (201, 't1', 2, 1, 'TIE-B', 2.50), (200, 't1', 2, 1, 'TIE-A', 1), (202, 't1', 3, 1, 'THEIRS', 1),
    (203, 't1', 4, 2, 'BOB-2', NULL), (204, 't1', 4, 1, 'BOB-1', NULL), (205, 't1', 5, 1, 'DEL', NULL), (206, 't2', 6, 1, 'OTHER', NULL);
  SELECT setval('orders_id_seq', 100), setval('order_lines_id_seq', 1000), setval('customers_id_seq', 100);
`)

/** The ids of order 1's lines a caller of tenant t1 reads, in the relation's order: plain SQL. */
async function visibleLines (orderId: number): Promise<string[]> {
  return await withClient(databaseUrl, async (client) => (await client.query(
    "SELECT id::text AS id FROM order_lines AS l WHERE order_id = $1 AND tenant_id = 't1' AND deleted_at IS NULL ORDER BY l.position, l.id", [orderId])).rows.map((r) => r.id as string))
}

/** A record as a get of it answers (without `permissions`: an embedded record has none), and its ETag header. */
async function got (call: Call, url: string): Promise<{ record: any, etag: unknown }> {
  const response = await call('GET', url)
  const { permissions, ...record } = ok(response)
  return { record, etag: response.headers.etag }
}

/** A list's items by title. */
async function byTitle (call: Call, url: string): Promise<Record<string, any>> {
  return Object.fromEntries(ok(await call('GET', url)).items.map((item: any) => [item.title ?? item.name, item]))
}

/** Every child a to-many embed's token leads to, page after page, on the child's own list. */
async function walk (call: Call, resource: string, token: string, pageSize?: number): Promise<{ ids: string[], pages: number }> {
  const ids: string[] = []
  let pages = 0
  while (token !== '') {
    const page = ok(await call('GET', `/api/v1/${resource}?fields=id${pageSize === undefined ? '' : `&page_size=${pageSize}`}&page_token=${encodeURIComponent(token)}`))
    ids.push(...page.items.map((item: any) => item.id))
    token = page.next_page_token
    pages++
  }
  return { ids, pages }
}

test('fields=id,lines.sku embeds the first pageSize lines the caller reads, each with the etag of a get of it', async () => {
  const orders = await byTitle(admin, '/api/v1/orders?fields=id,title,lines.sku')
  const big = orders.big
  assert.deepEqual(Object.keys(big), ['id', 'title', 'lines', 'etag', 'permissions'])
  assert.deepEqual(Object.keys(big.lines), ['items', 'next_page_token'])
  const visible = await visibleLines(1)
  assert.equal(visible.length, 25)
  assert.deepEqual(big.lines.items.map((line: any) => line.sku), ['S-1', 'S-2', 'S-3', 'S-5', 'S-6', 'S-7', 'S-8', 'S-10', 'S-11', 'S-12'])
  for (const [i, line] of big.lines.items.entries()) {
    assert.deepEqual(Object.keys(line), ['sku', 'etag'])
    assert.equal(line.etag, (await got(admin, `/api/v1/order_lines/${visible[i]!}`)).etag)
  }
  assert.notEqual(big.lines.next_page_token, '')
  // All given: no token. A tie in position goes by the key; no lines at all is an empty page.
  assert.deepEqual(orders.small.lines.items.map((line: any) => line.sku), ['TIE-A', 'TIE-B'])
  assert.equal(orders.small.lines.next_page_token, '')
  assert.deepEqual(orders.empty.lines, { items: [], next_page_token: '' })
  // Soft-deleted lines, and those of another tenant, are never items.
  assert.doesNotMatch(JSON.stringify(orders), /"S-4"|"S-9"|"S-15"|OTHER/)
})

test('fields=lines embeds every field the caller may read there, exactly as a get of each line gives it', async () => {
  for (const call of [admin, clerk, courier]) {
    const { lines } = ok(await call('GET', '/api/v1/orders/2?fields=lines'))
    assert.deepEqual(lines.items, [(await got(call, '/api/v1/order_lines/200')).record, (await got(call, '/api/v1/order_lines/201')).record])
  }
  const { lines } = ok(await admin('GET', '/api/v1/orders/2?fields=lines'))
  assert.deepEqual(lines.items[1], { id: '201', order_id: '2', position: 1, sku: 'TIE-B', cost: '2.50', deleted_at: null, etag: lines.items[1].etag })
  // The clerk may not read cost: no such key. lines.etag gives each line's etag alone.
  assert.deepEqual(Object.keys(ok(await clerk('GET', '/api/v1/orders/2?fields=lines')).lines.items[0]), ['id', 'order_id', 'position', 'sku', 'deleted_at', 'etag'])
  const etags = ok(await clerk('GET', '/api/v1/orders/2?fields=lines.etag')).lines.items
  assert.deepEqual(etags, [{ etag: (await got(clerk, '/api/v1/order_lines/200')).etag }, { etag: (await got(clerk, '/api/v1/order_lines/201')).etag }])
})

test('a line\'s embedded etag (no version column) moves when a field its reader reads changes, and not when only a hidden one does', async () => {
  const embedded = async (call: Call): Promise<string> => ok(await call('GET', '/api/v1/orders/4?fields=lines')).lines.items[0].etag
  const unchangedFor = async (call: Call, etag: string): Promise<number> => (await call('GET', '/api/v1/order_lines/204', { headers: { 'if-none-match': etag } })).status
  const clerkBefore = await embedded(clerk)
  const adminBefore = await embedded(admin)
  assert.equal(clerkBefore, (await got(clerk, '/api/v1/order_lines/204')).etag)
  assert.equal(adminBefore, (await got(admin, '/api/v1/order_lines/204')).etag)
  assert.notEqual(clerkBefore, adminBefore)
  // cost is hidden from the clerk: their ETag stays (a get of the line is still 304 for them); the admin's moves.
  const costed = await admin('PATCH', '/api/v1/order_lines/204', { payload: { cost: '9.99' }, headers: { 'if-match': adminBefore } })
  assert.equal(costed.status, 200, JSON.stringify(costed.body))
  assert.equal(await embedded(clerk), clerkBefore)
  assert.equal(await unchangedFor(clerk, clerkBefore), 304)
  const adminAfter = await embedded(admin)
  assert.notEqual(adminAfter, adminBefore)
  assert.equal(adminAfter, costed.body.etag)
  // sku is the clerk's to read: their ETag moves, to what a get of the line gives.
  const renamed = await admin('PATCH', '/api/v1/order_lines/204', { payload: { sku: 'BOB-1b' }, headers: { 'if-match': adminAfter } })
  assert.equal(renamed.status, 200, JSON.stringify(renamed.body))
  const clerkAfter = await embedded(clerk)
  assert.notEqual(clerkAfter, clerkBefore)
  assert.equal(clerkAfter, (await got(clerk, '/api/v1/order_lines/204')).etag)
  assert.equal(await unchangedFor(clerk, clerkBefore), 200)
  assert.equal(await embedded(admin), renamed.body.etag)
  await runSql(databaseUrl, "UPDATE order_lines SET sku = 'BOB-1', cost = NULL WHERE id = 204")
})

test('a child\'s record holds each value once: its order values come from its fields, its order_id from the parent\'s key', async () => {
  ok(await admin('GET', '/api/v1/orders/2?fields=lines'))
  let body: any
  const [text] = await statementsOf(async () => { body = ok(await admin('GET', '/api/v1/orders/2?fields=lines')) })
  // position (int4) and id (int8) are fetched fields: the token reads them there.
  assert.doesNotMatch(text!, /ROW\([^)]*"__e0_o\d+"/, text)
  // order_id is the link to orders.id (both int8): read from the parent, never selected.
  assert.doesNotMatch(text!, /"__t0"\."order_id" AS/, text)
  // id, position, sku, cost and deleted_at, each as PostgreSQL's own text of it: no cast, no JSON.
  assert.match(text!, /ARRAY\(SELECT ROW\("__s0"\."__e0_\d+"(, "__s0"\."__e0_\d+"){4}\) FROM/, text)
  assert.doesNotMatch(text!, /json|::text/, text)
  assert.deepEqual(body.lines.items.map((line: any) => line.order_id), ['2', '2'])
})

test('next_page_token walks the rest of the children on the child\'s own list, as plain SQL finds them', async () => {
  const { lines } = ok(await admin('GET', '/api/v1/orders/1?fields=lines.id'))
  const visible = await visibleLines(1)
  const rest = await walk(admin, 'order_lines', lines.next_page_token, 10)
  assert.deepEqual([...lines.items.map((line: any) => line.id), ...rest.ids], visible)
  assert.equal(rest.pages, 2)
  assert.deepEqual((await walk(admin, 'order_lines', lines.next_page_token)).ids, visible.slice(10))
  // page_size works as on any list, and the pages it gives go on with the same children.
  const small = await walk(admin, 'order_lines', lines.next_page_token, 4)
  assert.deepEqual(small.ids, visible.slice(10))
  assert.equal(small.pages, 4)
  // :search takes it in the body, with fields as an array; :seek takes it too.
  const searched = ok(await admin('POST', '/api/v1/order_lines:search', { payload: { page_token: lines.next_page_token, fields: ['id', 'sku'], page_size: 10 } }))
  assert.deepEqual(searched.items.map((item: any) => item.id), visible.slice(10, 20))
  assert.deepEqual(Object.keys(searched.items[0]), ['id', 'sku', 'etag', 'permissions'])
  const sought = ok(await admin('GET', `/api/v1/order_lines:seek?fields=id&page_size=3&page_token=${encodeURIComponent(lines.next_page_token)}`))
  assert.deepEqual(sought.items.map((item: any) => item.id), visible.slice(10, 13))
  const back = ok(await admin('GET', `/api/v1/order_lines:seek?fields=id&page_size=3&page_token=${encodeURIComponent(sought.prev_page_token)}`))
  assert.deepEqual(back.items.map((item: any) => item.id), visible.slice(7, 10))
  // count=exact counts that parent's children the caller reads.
  assert.equal(ok(await admin('GET', `/api/v1/order_lines?fields=id&count=exact&page_token=${encodeURIComponent(lines.next_page_token)}`)).total_size, 25)
})

test('the token continues under the reader\'s own access, and only where they may still follow the relation', async () => {
  const { lines } = ok(await admin('GET', '/api/v1/orders/1?fields=lines.id'))
  // The courier follows lines: their own token continues the children as the courier reads them.
  const courierLines = ok(await courier('GET', '/api/v1/orders/1?fields=lines.id')).lines
  const courierPage = ok(await courier('GET', `/api/v1/order_lines?page_size=10&page_token=${encodeURIComponent(courierLines.next_page_token)}`))
  assert.deepEqual(courierPage.items.map((item: any) => item.id), (await visibleLines(1)).slice(10, 20))
  assert.equal(courierPage.items[0].cost, undefined)
  // A token belongs to the caller it was made for: the admin's is not one for the courier, nor for
  // the packer, who may not follow lines anyway (order_id is hidden from them).
  const refused = await packer('GET', `/api/v1/order_lines?page_token=${encodeURIComponent(lines.next_page_token)}`)
  assert.equal(refused.status, 400)
  assert.deepEqual(refused.body.errors, [{ parameter: 'page_token', message: 'page_token is not a token this server issued.' }])
  assert.deepEqual((await courier('GET', `/api/v1/order_lines?page_token=${encodeURIComponent(lines.next_page_token)}`)).body.errors, refused.body.errors)
  const tampered = await admin('GET', `/api/v1/order_lines?page_token=${encodeURIComponent(tamperedPageToken(lines.next_page_token))}`)
  assert.deepEqual(tampered.body.errors, refused.body.errors)
  // Sent to another resource's list, it is no token of that list either.
  assert.deepEqual((await admin('GET', `/api/v1/orders?page_token=${encodeURIComponent(lines.next_page_token)}`)).body.errors, refused.body.errors)
})

test('a children token is taken alone: a filter, order_by or show_deleted with it is refused', async () => {
  const { lines } = ok(await admin('GET', '/api/v1/orders/1?fields=lines.id'))
  const token = encodeURIComponent(lines.next_page_token)
  const message = 'This page_token continues the children of a to-many embed, in its relation\'s order: send it without filter, order_by or show_deleted (page_size, fields and count apply as usual).'
  for (const extra of ['filter=sku%20%3D%20%22S-1%22', 'order_by=sku', 'show_deleted=true']) {
    const refused = await admin('GET', `/api/v1/order_lines?${extra}&page_token=${token}`)
    assert.equal(refused.status, 400, extra)
    assert.equal(refused.body.type, 'urn:service:problem:invalid-parameter')
    assert.deepEqual(refused.body.errors, [{ parameter: 'page_token', message }])
  }
  const searched = await admin('POST', '/api/v1/order_lines:search', { payload: { page_token: lines.next_page_token, filter: 'sku = "S-1"' } })
  assert.deepEqual(searched.body.errors, [{ parameter: 'page_token', message }])
  // A list token does not turn into a children token, nor the other way round.
  const plain = ok(await admin('GET', '/api/v1/order_lines?page_size=2'))
  const continued = ok(await admin('GET', `/api/v1/order_lines?page_size=2&page_token=${encodeURIComponent(plain.next_page_token)}`))
  assert.equal(continued.items.length, 2)
})

test('children outside the caller\'s row rule, tenant or soft delete are never items', async () => {
  // The clerk reads its own orders: Ann's are big and small (theirs is someone else's, deleted is deleted).
  const forClerk = await byTitle(clerk, '/api/v1/customers?fields=name,orders.title')
  assert.deepEqual(forClerk.Ann.orders.items.map((o: any) => o.title), ['big', 'small'])
  assert.deepEqual(forClerk.Bob.orders.items.map((o: any) => o.title), ['bob', 'empty'])
  const forAdmin = await byTitle(admin, '/api/v1/customers?fields=name,orders.title')
  assert.deepEqual(forAdmin.Ann.orders.items.map((o: any) => o.title), ['big', 'small', 'theirs'])
  // show_deleted is the top level's: Gone is there, with none of its (deleted) orders.
  const withDeleted = await byTitle(admin, '/api/v1/customers?show_deleted=true&fields=name,orders.title')
  assert.deepEqual(withDeleted.Gone.orders, { items: [], next_page_token: '' })
  assert.deepEqual(withDeleted.Ann.orders.items.map((o: any) => o.title), ['big', 'small', 'theirs'])
  const deletedOrder = ok(await admin('GET', '/api/v1/orders/5?show_deleted=true&fields=title,lines.sku'))
  assert.deepEqual(deletedOrder.lines.items.map((line: any) => line.sku), ['DEL'])
  assert.equal(Object.keys(forAdmin).includes('Other'), false)
})

test('a hidden child field, or a relation the caller may not follow, is refused exactly as an unknown field', async () => {
  assert.equal(ok(await admin('GET', '/api/v1/orders/2?fields=lines.cost')).lines.items[0].cost, '1.00')
  const hidden = await clerk('GET', '/api/v1/orders?fields=lines.cost')
  const unknown = await clerk('GET', '/api/v1/orders?fields=lines.cosx')
  assertUnknownField(hidden, 'lines.cost')
  assertUnknownField(unknown, 'lines.cosx')
  assert.deepEqual(refusalShape(hidden, 'strip'), refusalShape(unknown, 'strip'))
  assert.doesNotMatch(JSON.stringify(hidden.body), /lines\.cost'\?/)
  assert.equal((await clerk('GET', '/api/v1/orders?fields=lines.skuu')).body.errors[0].message, "fields: 'lines.skuu' is not a field (did you mean 'lines.sku'?).")
  assert.equal((await clerk('GET', '/api/v1/orders?fields=line')).body.errors[0].message, "fields: 'line' is not a field (did you mean 'lines'?).")
  // The packer may not follow lines, the auditor not customers.orders: to them there is no such relation.
  for (const [call, url, path] of [[packer, '/api/v1/orders', 'lines'], [auditor, '/api/v1/customers', 'orders']] as const) {
    for (const asked of [path, `${path}.id`]) {
      const refused = await call('GET', `${url}?fields=${asked}`)
      assertUnknownField(refused, asked)
      assert.deepEqual(refusalShape(refused, 'strip'), refusalShape(await call('GET', `${url}?fields=${asked.replace(path, 'nothing')}`), 'strip'))
    }
    assert.doesNotMatch((await call('GET', `${url}?fields=${path.slice(0, -1)}`)).body.detail, new RegExp(`did you mean '${path}'`))
  }
})

test('two levels across both kinds: to-many under to-many, to-many under to-one, to-one under to-many; not three', async () => {
  const visible = await visibleLines(1)
  const customers = await byTitle(admin, '/api/v1/customers?fields=name,orders.title,orders.lines.sku')
  const big = customers.Ann.orders.items[0]
  assert.equal(big.title, 'big')
  assert.equal(big.lines.items.length, 10)
  assert.deepEqual((await walk(admin, 'order_lines', big.lines.next_page_token)).ids, visible.slice(10))
  const tieA = await got(admin, '/api/v1/order_lines/200')
  const tieB = await got(admin, '/api/v1/order_lines/201')
  assert.deepEqual(customers.Ann.orders.items[1].lines, { items: [{ sku: 'TIE-A', etag: tieA.etag }, { sku: 'TIE-B', etag: tieB.etag }], next_page_token: '' })
  const orders = await byTitle(clerk, '/api/v1/orders?fields=title,customer.name,customer.orders.title')
  assert.deepEqual(orders.bob.customer.orders.items.map((o: any) => o.title), ['bob', 'empty'])
  assert.equal(orders.bob.customer.etag, (await got(clerk, '/api/v1/customers/2')).etag)
  const lines = ok(await courier('GET', '/api/v1/orders/2?fields=lines.sku,lines.order.title')).lines.items
  const order2 = await got(courier, '/api/v1/orders/2')
  assert.deepEqual(lines.map((line: any) => line.order), [{ title: 'small', etag: order2.etag }, { title: 'small', etag: order2.etag }])
  const whole = ok(await admin('GET', '/api/v1/orders/2?fields=lines.order')).lines.items[0].order
  assert.deepEqual(whole, (await got(admin, '/api/v1/orders/2')).record)
  const deep = await admin('GET', '/api/v1/customers?fields=orders.lines.order.title')
  assert.equal(deep.status, 400)
  assert.deepEqual(deep.body.errors, [{ parameter: 'fields', message: "fields: 'orders.lines.order.title' goes through more than 2 relations: an embed is at most two levels deep (customer.region.name)." }])
})

test('get, :search and :seek embed to-many as the list does; embedding changes nothing about the parent page', async () => {
  const listed = (await byTitle(clerk, '/api/v1/orders?fields=title,lines.sku')).small.lines
  assert.deepEqual(ok(await clerk('GET', '/api/v1/orders/2?fields=title,lines.sku')).lines, listed)
  const searched = ok(await clerk('POST', '/api/v1/orders:search', { payload: { fields: ['title', 'lines.sku'], filter: 'title = "small"' } }))
  assert.deepEqual(searched.items[0].lines, listed)
  const sought = ok(await clerk('GET', '/api/v1/orders:seek?position=1&page_size=1&fields=title,lines.sku'))
  assert.deepEqual(sought.items[0].lines, listed)
  const plain = ok(await clerk('GET', '/api/v1/orders?page_size=2&fields=title'))
  const embedded = ok(await clerk('GET', '/api/v1/orders?page_size=2&fields=title,lines,customer.orders'))
  assert.deepEqual(embedded.items.map((item: any) => item.title), plain.items.map((item: any) => item.title))
  assert.equal(embedded.next_page_token, plain.next_page_token)
  assert.equal(embedded.total_size_estimate, plain.total_size_estimate)
  assert.equal(ok(await clerk('GET', '/api/v1/orders?count=exact&fields=lines.sku')).total_size, 4)
})

/** The plan nodes of an EXPLAIN (FORMAT JSON), flattened. */
function nodesOf (node: any): any[] {
  return [node, ...(node.Plans ?? []).flatMap(nodesOf)]
}

test('a page with to-many embeds is one statement whatever its size, and reads at most pageSize + 1 children per parent', async () => {
  await runSql(databaseUrl, `
    INSERT INTO orders (id, tenant_id, title, customer_id, owner_id) SELECT 1000 + n, 't1', 'bulk-' || n, 1, 'x' FROM generate_series(1, 60) AS n;
    INSERT INTO order_lines (tenant_id, order_id, position, sku) SELECT 't1', 1000 + n, p, 'B-' || p FROM generate_series(1, 60) AS n, generate_series(1, 100) AS p;
    -- The index that serves the relation's whole order (order_id, then position, id): each parent's
    -- children are read in order and the scan stops at the limit.
    CREATE INDEX order_lines_by_order ON order_lines (order_id, position, id);
    ANALYZE order_lines; ANALYZE orders;
  `)
  for (const size of [5, 50]) {
    // The scan guard explains a list's shape the first time it meets it (and remembers it).
    const url = `/api/v1/orders?page_size=${size}&fields=title,lines.sku,customer.orders.title`
    ok(await admin('GET', url))
    let page: any
    const statements = await statementsOf(async () => { page = ok(await admin('GET', url)) })
    assert.equal(page.items.length, size)
    assert.equal(statements.length, 1, statements.join('\n'))
    assert.match(statements[0]!, /LIMIT 11\) AS "__s2" ORDER BY [^)]*\) AS "__e2"/)
  }
  // The statement again, under EXPLAIN ANALYZE: every parameter of an admin's page is the tenant.
  ok(await admin('GET', '/api/v1/orders?page_size=50&fields=title,lines.sku'))
  const statements = await statementsOf(async () => ok(await admin('GET', '/api/v1/orders?page_size=50&fields=title,lines.sku')))
  assert.equal(statements.length, 1)
  const text = statements[0]!
  const parameters = Math.max(...[...text.matchAll(/\$(\d+)/g)].map((m) => Number(m[1])))
  const plan = await withClient(databaseUrl, async (client) =>
    (await client.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${text}`, Array.from({ length: parameters }, () => 't1'))).rows[0]['QUERY PLAN'][0].Plan)
  const children = nodesOf(plan).filter((node) => node['Relation Name'] === 'order_lines')
  assert.equal(children.length, 1)
  // Run once for each of the 51 rows the page reads, each time giving at most 11 rows.
  assert.equal(children[0]['Actual Loops'], 51)
  const limits = nodesOf(plan).filter((node) => node['Node Type'] === 'Limit' && node['Actual Loops'] === 51)
  assert.equal(limits.length, 1)
  assert.ok(limits[0]['Actual Rows'] <= 11, JSON.stringify(limits[0]))
  assert.equal(children[0]['Index Name'], 'order_lines_by_order', JSON.stringify(plan))
  // The children come in the relation's order from the index: the array's ORDER BY sorts nothing.
  const subplans = nodesOf(plan).filter((node) => node['Parent Relationship'] === 'SubPlan')
  assert.equal(subplans.length, 1)
  assert.deepEqual(nodesOf(subplans[0]).map((node) => node['Node Type']), ['Subquery Scan', 'Limit', 'Index Scan'])
  assert.ok(children[0]['Actual Rows'] <= 11, `the children's scan reads ${String(children[0]['Actual Rows'])} rows a parent`)
})

test('a to-many under a to-one gives a token that walks that record\'s children', async () => {
  // After the bulk orders above, Ann has 63 orders the admin reads.
  const { customer } = ok(await admin('GET', '/api/v1/orders/2?fields=customer.orders.id'))
  const all = await withClient(databaseUrl, async (client) => (await client.query(
    "SELECT id::text AS id FROM orders AS o WHERE customer_id = 1 AND tenant_id = 't1' AND deleted_at IS NULL ORDER BY o.id")).rows.map((r) => r.id as string))
  assert.ok(all.length > 20)
  assert.equal(customer.orders.items.length, 10)
  const rest = await walk(admin, 'orders', customer.orders.next_page_token, 20)
  assert.deepEqual([...customer.orders.items.map((order: any) => order.id), ...rest.ids], all)
  // The admin's token is not the clerk's to send.
  assert.equal((await clerk('GET', `/api/v1/orders?page_token=${encodeURIComponent(customer.orders.next_page_token)}`)).status, 400)
})
