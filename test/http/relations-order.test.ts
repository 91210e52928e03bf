// order_by on to-one paths (docs/relations.md, "Ordering"), over HTTP: the related value as the
// caller reads it (a missing reference, another tenant's or a deleted customer all sort as NULL),
// keyset pages through ties and NULLs forward and backward on every route that takes order_by,
// page tokens bound to the path, and paths the caller may not take refused exactly as an unknown
// field. Each order is checked against plain SQL over the caller's visible rows.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { bearer, buildApp, caller, createUser, type CallResult } from '../helpers/app.js'
import { freshDatabase, runSql } from '../helpers/db.js'
import { relationsApp, ordersSeed, relationsCallers } from '../fixtures/relations.js'
import { statementsOf } from '../helpers/statements.js'
import { EMBED_RESOURCES, EMBED_ROLES, EMBED_ROWS, EMBED_SCHEMA } from '../fixtures/relations-embed.js'

const { databaseUrl, app } = await relationsApp()
const { db, clerkId, adminId, asAdmin, asClerk, asAuditor, asCourier } = await relationsCallers(app, databaseUrl)

// Customers 1 and 3 tie on name; 4 is tenant t2's and 5 is deleted: neither is anyone's to read.
// Order 10 is the admin's (not the clerk's: their row rule), 11 is deleted, 12 is tenant t2's.
await db.query(`
  INSERT INTO customers (id, tenant_id, name, country, credit_limit, deleted_at) VALUES
    (1, 't1', 'Ann', 'DE', 100, NULL), (2, 't1', 'Bob', NULL, 200, NULL), (3, 't1', 'Ann', 'FR', 300, NULL),
    (4, 't2', 'Aaron', 'DE', 50, NULL), (5, 't1', 'Abe', 'DE', 10, now()), (6, 't1', 'Cy', 'US', NULL, NULL);
`)
await db.query(ordersSeed(clerkId, adminId))

type Caller = typeof asAdmin
const q = encodeURIComponent

/** The orders each caller reads, and the customers they read, as the fixture's rules say, written out by hand. */
const VISIBLE = {
  admin: { orders: `o.tenant_id = 't1' AND o.deleted_at IS NULL`, customers: `tenant_id = 't1' AND deleted_at IS NULL` },
  clerk: { orders: `o.tenant_id = 't1' AND o.deleted_at IS NULL AND o.owner_id = '${clerkId}'`, customers: `tenant_id = 't1' AND deleted_at IS NULL` },
}

/** The order ids plain SQL gives for `orderSql` (over `o` and its visible customer `c`). */
async function expected (who: keyof typeof VISIBLE, orderSql: string): Promise<string[]> {
  const { orders, customers } = VISIBLE[who]
  const found = await db.query<{ id: string }>(`SELECT o.id FROM orders o LEFT JOIN (SELECT * FROM customers WHERE ${customers}) c ON c.id = o.customer_id WHERE ${orders} ORDER BY ${orderSql}`)
  return found.rows.map((r) => r.id)
}

const idsOf = (found: CallResult): string[] => found.body.items.map((o: { id: string }) => o.id)

/** Every page of a list (or a seek from position 0) forward, by its next_page_token, `size` rows a page. */
async function walkForward (as: Caller, path: string, size: number): Promise<string[]> {
  const seen: string[] = []
  let token = ''
  for (let pages = 0; pages < 50; pages++) {
    const found = await as('GET', `${path}&page_size=${size}${token === '' ? (path.includes(':seek') ? '&position=0' : '') : `&page_token=${q(token)}`}`)
    assert.equal(found.status, 200, JSON.stringify(found.body))
    seen.push(...idsOf(found))
    token = found.body.next_page_token
    if (token === '') return seen
  }
  throw new Error('more than 50 pages')
}

/** Every page of a seek from the one at `position` back to the first, by prev_page_token, in order. */
async function walkBackward (as: Caller, path: string, size: number, position: number): Promise<string[]> {
  let found = await as('GET', `${path}&page_size=${size}&position=${position}`)
  assert.equal(found.status, 200, JSON.stringify(found.body))
  const seen = idsOf(found)
  for (let pages = 0; found.body.prev_page_token !== '' && pages < 50; pages++) {
    found = await as('GET', `${path}&page_size=${size}&page_token=${q(found.body.prev_page_token)}`)
    assert.equal(found.status, 200, JSON.stringify(found.body))
    seen.unshift(...idsOf(found))
  }
  return seen
}

test('order_by customer.name: the value the caller reads, NULL for a missing, another tenant\'s or a deleted customer', async () => {
  const asc = await asClerk('GET', `/api/v1/orders?page_size=100&fields=id&order_by=${q('customer.name, id')}`)
  assert.equal(asc.status, 200, JSON.stringify(asc.body))
  // Ann (orders 1, 2, 7, 9), Bob, Cy, then NULLs last ascending: no customer, t2's, a deleted one.
  assert.deepEqual(idsOf(asc), ['1', '2', '7', '9', '6', '8', '3', '4', '5'])
  assert.deepEqual(idsOf(asc), await expected('clerk', 'c.name ASC, o.id ASC'))
  // Descending, NULLs come first, and the key follows the last term's direction.
  const desc = await asClerk('GET', `/api/v1/orders?page_size=100&fields=id&order_by=${q('customer.name desc')}`)
  assert.deepEqual(idsOf(desc), ['5', '4', '3', '8', '6', '9', '7', '2', '1'])
  assert.deepEqual(idsOf(desc), await expected('clerk', 'c.name DESC, o.id DESC'))
  // Two related terms, mixed directions, with the record's own field between them.
  const mixed = await asAdmin('GET', `/api/v1/orders?page_size=100&fields=id&order_by=${q('customer.country desc, title, customer.name')}`)
  assert.equal(mixed.status, 200, JSON.stringify(mixed.body))
  assert.deepEqual(idsOf(mixed), await expected('admin', 'c.country DESC, o.title ASC, c.name ASC, o.id ASC'))
  // The answer is the list it always was: no order column, no embed unless asked.
  assert.deepEqual(Object.keys(asc.body.items[0]).sort(), ['etag', 'id', 'permissions'])
  // The admin may order by a field the clerk may not read.
  const limit = await asAdmin('GET', `/api/v1/orders?page_size=100&fields=id&order_by=${q('customer.credit_limit desc')}`)
  assert.deepEqual(idsOf(limit), await expected('admin', 'c.credit_limit DESC, o.id DESC'))
})

test('keyset pages through ties and NULLs: every page size, forward and backward, on list, :search and :seek', async () => {
  for (const [order, orderSql] of [['customer.name', 'c.name ASC, o.id ASC'], ['customer.name desc', 'c.name DESC, o.id DESC'], ['customer.country desc, customer.name', 'c.country DESC, c.name ASC, o.id ASC'], ['customer.country, id desc', 'c.country ASC, o.id DESC']] as const) {
    for (const who of ['admin', 'clerk'] as const) {
      const as = who === 'admin' ? asAdmin : asClerk
      const all = await expected(who, orderSql)
      for (const size of [1, 2, 3, 4]) {
        assert.deepEqual(await walkForward(as, `/api/v1/orders?fields=id&order_by=${q(order)}`, size), all, `${who} ${order} ${size}`)
        assert.deepEqual(await walkForward(as, `/api/v1/orders:seek?fields=id&order_by=${q(order)}`, size), all, `seek ${who} ${order} ${size}`)
        const last = Math.floor((all.length - 1) / size) * size
        assert.deepEqual(await walkBackward(as, `/api/v1/orders:seek?fields=id&order_by=${q(order)}`, size, last), all, `back ${who} ${order} ${size}`)
      }
      const searched = await as('POST', '/api/v1/orders:search', { payload: { order_by: order, fields: ['id'], page_size: 100 } })
      assert.equal(searched.status, 200, JSON.stringify(searched.body))
      assert.deepEqual(idsOf(searched), all)
    }
  }
  // A seek's position counts the related order too.
  const third = await asClerk('GET', `/api/v1/orders:seek?fields=id&order_by=${q('customer.name')}&position=6&page_size=2`)
  assert.deepEqual(idsOf(third), ['3', '4'])
})

test('a page token is bound to the path: the same token with another order is refused', async () => {
  const first = await asClerk('GET', `/api/v1/orders?page_size=2&fields=id&order_by=${q('customer.name')}`)
  const token = q(first.body.next_page_token)
  for (const order of ['customer.country', 'title', 'customer.name desc']) {
    const replayed = await asClerk('GET', `/api/v1/orders?page_size=2&fields=id&order_by=${q(order)}&page_token=${token}`)
    assert.equal(replayed.status, 400, order)
    assert.equal(replayed.body.type, 'urn:service:problem:invalid-parameter')
  }
  const next = await asClerk('GET', `/api/v1/orders?page_size=2&fields=id&order_by=${q('customer.name')}&page_token=${token}`)
  assert.deepEqual(idsOf(next), ['7', '9'])
})

test('an order by a path, with the same path embedded, is one statement a page like any order', async () => {
  const first = await asClerk('GET', `/api/v1/orders?page_size=3&fields=id,customer.name&order_by=${q('customer.name desc')}`)
  assert.equal(first.status, 200, JSON.stringify(first.body))
  // The embed and the order read the same row under the same scope: both say NULL for order 5's deleted customer.
  assert.deepEqual(first.body.items.map((o: { id: string, customer: { name: string } | null }) => [o.id, o.customer?.name ?? null]), [['5', null], ['4', null], ['3', null]])
  const token = q(first.body.next_page_token)
  let next: CallResult | undefined
  const ordered = await statementsOf(async () => { next = await asClerk('GET', `/api/v1/orders?page_size=3&fields=id,customer.name&order_by=${q('customer.name desc')}&page_token=${token}`) })
  assert.deepEqual(next!.body.items.map((o: { id: string, customer: { name: string } }) => [o.id, o.customer.name]), [['8', 'Cy'], ['6', 'Bob'], ['9', 'Ann']])
  const plainFirst = await asClerk('GET', '/api/v1/orders?page_size=3&fields=id&order_by=title')
  const plain = await statementsOf(async () => await asClerk('GET', `/api/v1/orders?page_size=3&fields=id&order_by=title&page_token=${q(plainFirst.body.next_page_token)}`))
  assert.equal(ordered.length, plain.length)
  assert.match(ordered.find((text) => text.includes('ORDER BY'))!, /LEFT JOIN LATERAL \(SELECT "__path_1"."name" AS "__value" FROM "customers" AS "__path_1" WHERE .*ORDER BY "__o0"."__value" DESC, "orders"."id" DESC/)
})

test(':export orders by a path too', async () => {
  const exported = await app.inject({ method: 'GET', url: `/api/v1/orders:export?fields=id,title&format=csv&order_by=${q('customer.name desc, title')}`, headers: await bearer(app, 'clerk@example.com') })
  assert.equal(exported.statusCode, 200, exported.body)
  const ids = exported.body.trim().split('\n').slice(1).map((line) => line.split(',')[0])
  assert.deepEqual(ids, await expected('clerk', 'c.name DESC, o.title ASC, o.id ASC'))
})

/** The 400 invalid-order-by problem, without `instance` (the request's own URL). */
async function refused (as: Caller, order: string): Promise<Record<string, unknown>> {
  const found = await as('GET', `/api/v1/orders?order_by=${q(order)}`)
  assert.equal(found.status, 400, JSON.stringify(found.body))
  assert.equal(found.body.type, 'urn:service:problem:invalid-order-by')
  const { instance, ...problem } = found.body
  assert.equal(typeof instance, 'string')
  return problem
}

test('a hidden related field is refused exactly as an unknown one, and never suggested', async () => {
  const hidden = await refused(asClerk, 'customer.credit_limit desc')
  const unknown = await refused(asClerk, 'customer.credit_limix desc')
  assert.deepEqual(JSON.parse(JSON.stringify(hidden).replaceAll('credit_limit', 'credit_limix')), unknown)
  assert.deepEqual(hidden, {
    type: 'urn:service:problem:invalid-order-by',
    title: hidden.title,
    status: 400,
    detail: "There is no field 'customer.credit_limit' to order by.",
    parameter: 'order_by',
    errors: [{ code: 'unknown-field', message: "There is no field 'customer.credit_limit' to order by.", hint: 'Fields you can order by: customer.id, customer.name, customer.country, customer.deleted_at.', span: { start: 0, end: 21 } }],
  })
  // A near miss is suggested among what the caller may order by only.
  const near = await refused(asClerk, 'title, customer.nme')
  assert.deepEqual(near.errors, [{ code: 'unknown-field', message: "There is no field 'customer.nme' to order by.", hint: "Did you mean 'customer.name'?", span: { start: 7, end: 19 } }])
  const misspelt = await refused(asClerk, 'custmer.name')
  assert.equal((misspelt.errors as Array<{ hint: string }>)[0]!.hint, "Did you mean 'customer.name'?")
})

test('a relation the caller may not follow is refused exactly as an unknown field', async () => {
  // The auditor reads customers but not orders.customer_id; the courier does not read customers.
  for (const as of [asAuditor, asCourier]) {
    const relation = await refused(as, 'customer.name')
    const unknown = await refused(as, 'customex.name')
    assert.deepEqual(JSON.parse(JSON.stringify(relation).replaceAll("'customer.name'", "'customex.name'")), unknown)
    assert.equal((relation.errors as Array<{ code: string }>)[0]!.code, 'unknown-field')
    assert.doesNotMatch((relation.errors as Array<{ hint: string }>)[0]!.hint, /customer\./)
  }
})

test('a relation alone and a to-many path are refused with their span', async () => {
  assert.deepEqual((await refused(asClerk, 'id, customer')).errors, [{ code: 'invalid-path', message: "'customer' is a relation: order by one of its fields.", hint: 'Name a field of it: customer.id.', span: { start: 4, end: 12 } }])
  assert.deepEqual((await refused(asClerk, 'lines.sku desc')).errors, [{
    code: 'invalid-path',
    message: "'lines' is a to-many relation: order_by follows to-one relations only.",
    hint: 'Order by a field of the record or of a to-one relation (customer.name); filter on the to-many one instead.',
    span: { start: 0, end: 9 },
  }])
  assert.deepEqual((await refused(asClerk, 'customer.orders.title')).errors, [{
    code: 'invalid-path',
    message: "'customer.orders' is a to-many relation: order_by follows to-one relations only.",
    hint: 'Order by a field of the record or of a to-one relation (customer.name); filter on the to-many one instead.',
    span: { start: 0, end: 21 },
  }])
  const twice = await refused(asClerk, 'customer.name, customer.name desc')
  assert.equal((twice.errors as Array<{ code: string }>)[0]!.code, 'duplicate-field')
})

test('a relation of a resource to itself orders by the related row\'s field, not its own; a third relation is refused', async () => {
  // Regions name a parent region: South's is North, North and East have none, West's is South.
  const url = await freshDatabase()
  await runSql(url, `${EMBED_SCHEMA}${EMBED_ROWS} INSERT INTO regions (id, name, parent_id) VALUES (3, 'East', NULL), (4, 'West', 2);`)
  const embedApp = await buildApp({ databaseUrl: url, tenant: 't1', roles: EMBED_ROLES, resources: EMBED_RESOURCES })
  await createUser(embedApp, 'admin@example.com', 'admin')
  const admin = caller(embedApp, await bearer(embedApp, 'admin@example.com'))
  // The region's own name is fetched too: the token must carry the parent's, which the walk proves.
  for (const size of [1, 2, 100]) {
    assert.deepEqual(await walkForward(admin, `/api/v1/regions?fields=id,name&order_by=${q('parent.name, name desc')}`, size), ['2', '4', '1', '3'])
    assert.deepEqual(await walkForward(admin, `/api/v1/regions?fields=id,name&order_by=${q('parent.parent.name desc, id')}`, size), ['1', '2', '3', '4'])
  }
  const deep = await admin('GET', `/api/v1/orders?order_by=${q('customer.region.parent.name')}`)
  assert.equal(deep.status, 400)
  assert.deepEqual(deep.body.errors, [{ code: 'invalid-path', message: 'A path in order_by follows at most 2 relations.', hint: 'Order by a field at most two relations away: customer.region.name.', span: { start: 0, end: 27 } }])
  const two = await admin('GET', `/api/v1/orders?fields=id&page_size=100&order_by=${q('customer.region.name desc')}`)
  assert.equal(two.status, 200, JSON.stringify(two.body))
})

test('the scan guard: an order by a related field reads every row of a large table, which no index of it serves', async () => {
  const url = await freshDatabase()
  await runSql(url, `
    CREATE TABLE accounts (id bigint PRIMARY KEY, country text NOT NULL);
    INSERT INTO accounts SELECT n, (ARRAY['DE', 'FR', 'US'])[1 + n % 3] FROM generate_series(1, 20000) AS n;
    CREATE TABLE bills (id bigint PRIMARY KEY, account_id bigint NOT NULL REFERENCES accounts (id), amount integer NOT NULL);
    INSERT INTO bills SELECT n, 1 + n % 20000, n % 100 FROM generate_series(1, 20000) AS n;
    CREATE INDEX ON bills (account_id);
    ANALYZE accounts; ANALYZE bills;
  `)
  const guarded = await buildApp({
    databaseUrl: url,
    resources: {
      accounts: { fields: { id: { type: 'bigint' }, country: { type: 'string' } } },
      bills: { fields: { id: { type: 'bigint' }, account_id: { type: 'bigint', references: 'accounts' }, amount: { type: 'integer' } }, relations: { account: { field: 'account_id' } } },
    },
  })
  await createUser(guarded, 'admin@example.com')
  const call = caller(guarded, await bearer(guarded, 'admin@example.com'))
  const unserved = await call('GET', `/api/v1/bills?page_size=5&order_by=${q('account.country')}`)
  assert.equal(unserved.status, 400)
  assert.equal(unserved.body.type, 'urn:service:problem:expensive-query')
  assert.equal(unserved.body.suggestion, undefined)
  assert.equal(unserved.body.detail, 'This list would read a table of more than 10000 rows row by row: its order starts with a related record\'s field, which no index of its table serves. Filter it on an indexed field, or order by a field of its own first.')
  // An own field first: its index serves the order up to the related term.
  const first = await call('GET', `/api/v1/bills?page_size=5&order_by=${q('amount, account.country')}`)
  assert.equal(first.body.suggestion, 'CREATE INDEX ON "bills" ("amount")')
  // A filter an index serves leaves few rows to order: the list runs, each related value read by the target's key.
  const served = await call('GET', `/api/v1/bills?page_size=5&order_by=${q('account.country desc')}&filter=${q('account_id = 7')}`)
  assert.equal(served.status, 200, JSON.stringify(served.body))
  assert.deepEqual(idsOf(served), ['6'])
})
