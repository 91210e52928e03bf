// To-one relations embedded through `fields` paths (docs/relations.md, "Embedding"), on get, list,
// :search and :seek: the target record as the caller reads it with its own ETag, or null where
// the reference is null or the row is outside the caller's access on the target (a row rule, a
// tenant, soft delete): the two read the same. A path the caller may not take is refused exactly
// as an unknown field, and a page with embeds is one statement.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { freshDatabase, runSql } from '../helpers/db.js'
import { buildApp, createUser, bearer, caller, type CallResult } from '../helpers/app.js'
import { assertUnknownField, refusalShape } from '../helpers/refusals.js'
import { statementsOf } from '../helpers/statements.js'
import { EMBED_RESOURCES, EMBED_ROLES, EMBED_ROWS, EMBED_SCHEMA } from '../fixtures/relations-embed.js'

const databaseUrl = await freshDatabase()
await runSql(databaseUrl, EMBED_SCHEMA + EMBED_ROWS)
const app = await buildApp({ databaseUrl, tenant: 't1', roles: EMBED_ROLES, resources: EMBED_RESOURCES })
// The first user is an admin whatever its role.
for (const role of ['admin', 'clerk', 'outsider', 'linkless']) await createUser(app, `${role}@example.com`, role)
const admin = caller(app, await bearer(app, 'admin@example.com'))
const clerk = caller(app, await bearer(app, 'clerk@example.com'))
const outsider = caller(app, await bearer(app, 'outsider@example.com'))
const linkless = caller(app, await bearer(app, 'linkless@example.com'))

type Call = typeof admin

function ok (response: CallResult): any {
  assert.equal(response.status, 200, JSON.stringify(response.body))
  return response.body
}

/** The list's items by title, each with what `pick` takes of it. */
async function byTitle (call: Call, url: string, pick: (item: any) => unknown = (item) => item.customer): Promise<Record<string, unknown>> {
  const body = ok(await call('GET', url))
  return Object.fromEntries(body.items.map((item: any) => [item.title, pick(item)]))
}

/** A record as a get of it answers, with its ETag header, without `permissions` (an embed has none). */
async function got (call: Call, url: string): Promise<{ record: any, etag: unknown }> {
  const response = await call('GET', url)
  const { permissions, ...record } = ok(response)
  return { record, etag: response.headers.etag }
}

test('fields=id,title,customer.name embeds the customer\'s name and its etag, the ETag of a get of it', async () => {
  const items = await byTitle(admin, '/api/v1/orders?fields=id,title,customer.name', (item) => item)
  const ann = await got(admin, '/api/v1/customers/1')
  const vip = await got(admin, '/api/v1/customers/2')
  const { etag, permissions } = items['o-ann'] as any
  assert.deepEqual(items['o-ann'], { id: '1', title: 'o-ann', customer: { name: 'Ann', etag: ann.etag }, etag, permissions })
  assert.deepEqual((items['o-vip'] as any).customer, { name: 'Vip Co', etag: vip.etag })
  assert.equal(ann.record.etag, ann.etag)
  // Soft-deleted, another tenant's, and no customer at all: the same null.
  assert.equal((items['o-gone'] as any).customer, null)
  assert.equal((items['o-other'] as any).customer, null)
  assert.equal((items['o-none'] as any).customer, null)
})

test('fields=customer embeds every field the caller may read there, exactly as a get of the customer gives it', async () => {
  for (const call of [admin, clerk]) {
    const customers = await byTitle(call, '/api/v1/orders?fields=title,customer')
    const ann = await got(call, '/api/v1/customers/1')
    assert.deepEqual(customers['o-ann'], ann.record)
    assert.equal((customers['o-ann'] as any).etag, ann.etag)
  }
  const forAdmin = await byTitle(admin, '/api/v1/orders?fields=title,customer')
  assert.deepEqual(forAdmin['o-ann'], {
    id: '1', name: 'Ann', vip: false, region_id: '2', credit_limit: '1000.50', since: '2026-01-02T03:04:05.123400Z', deleted_at: null, version: 1, etag: (forAdmin['o-ann'] as any).etag,
  })
  // customer.etag: the customer with its etag alone.
  assert.deepEqual((await byTitle(clerk, '/api/v1/orders?fields=title,customer.etag'))['o-ann'], { etag: (await got(clerk, '/api/v1/customers/1')).etag })
  // The clerk may not read credit_limit: the embed has no such key.
  const forClerk = await byTitle(clerk, '/api/v1/orders?fields=title,customer')
  assert.deepEqual(Object.keys(forClerk['o-ann'] as object), ['id', 'name', 'vip', 'region_id', 'since', 'version', 'deleted_at', 'etag'])
})

test('a customer outside the clerk\'s row rule is null, exactly as a null reference', async () => {
  const customers = await byTitle(clerk, '/api/v1/orders?fields=title,customer.name')
  assert.deepEqual(customers, { 'o-ann': { name: 'Ann', etag: (customers['o-ann'] as any).etag }, 'o-vip': null, 'o-gone': null, 'o-other': null, 'o-none': null, 'o-nowhere': { name: 'Nowhere', etag: (customers['o-nowhere'] as any).etag } })
  // The whole record of an order whose customer is hidden reads as that of one with none.
  const hidden = ok(await clerk('GET', '/api/v1/orders/2?fields=customer'))
  const none = ok(await clerk('GET', '/api/v1/orders/5?fields=customer'))
  assert.deepEqual(Object.keys(hidden), Object.keys(none))
  assert.equal(hidden.customer, null)
  assert.equal(none.customer, null)
  // The admin sees Vip Co where the clerk sees null, through the very same mask.
  assert.equal((ok(await admin('GET', '/api/v1/orders/2?fields=customer.name'))).customer.name, 'Vip Co')
  assert.equal(((await byTitle(admin, '/api/v1/orders?fields=title,customer.name'))['o-vip'] as any).name, 'Vip Co')
  assert.equal((await byTitle(clerk, '/api/v1/orders?fields=title,customer.name'))['o-vip'], null)
})

test('two levels: customer.region.name, each level with its own etag; a third level is refused', async () => {
  const items = await byTitle(clerk, '/api/v1/orders?fields=id,title,customer.name,customer.region.name')
  const south = await got(clerk, '/api/v1/regions/2')
  const ann = items['o-ann'] as any
  assert.deepEqual(ann, { name: 'Ann', region: { name: 'South', etag: south.etag }, etag: ann.etag })
  assert.equal(ann.etag, (await got(clerk, '/api/v1/customers/1')).etag)
  assert.deepEqual(items['o-nowhere'], { name: 'Nowhere', region: null, etag: (items['o-nowhere'] as any).etag })
  assert.equal(items['o-vip'], null)
  // customer.region embeds the whole region; customer as well as customer.region.name the whole customer.
  const whole = await byTitle(clerk, '/api/v1/orders?fields=title,customer.region')
  assert.deepEqual(whole['o-ann'], { region: south.record, etag: ann.etag })
  const both = await byTitle(clerk, '/api/v1/orders?fields=title,customer,customer.region.name')
  assert.deepEqual(Object.keys(both['o-ann'] as object), ['id', 'name', 'vip', 'region_id', 'since', 'version', 'deleted_at', 'region', 'etag'])
  const deep = await clerk('GET', '/api/v1/orders?fields=customer.region.parent.name')
  assert.equal(deep.status, 400)
  assert.equal(deep.body.type, 'urn:service:problem:invalid-parameter')
  assert.deepEqual(deep.body.errors, [{ parameter: 'fields', message: "fields: 'customer.region.parent.name' goes through more than 2 relations: an embed is at most two levels deep (customer.region.name)." }])
})

test('a relation of a resource to itself joins two rows of the same table', async () => {
  const regions = ok(await clerk('GET', '/api/v1/regions?fields=name,parent.name')).items
  const north = await got(clerk, '/api/v1/regions/1')
  assert.deepEqual(regions.map((r: any) => [r.name, r.parent]), [['North', null], ['South', { name: 'North', etag: north.etag }]])
})

test('a hidden field of the target is refused exactly as an unknown one, and never suggested', async () => {
  assert.equal(ok(await admin('GET', '/api/v1/orders/1?fields=customer.credit_limit')).customer.credit_limit, '1000.50')
  const hidden = await clerk('GET', '/api/v1/orders?fields=customer.credit_limit')
  const unknown = await clerk('GET', '/api/v1/orders?fields=customer.credit_limix')
  assertUnknownField(hidden, 'customer.credit_limit')
  assertUnknownField(unknown, 'customer.credit_limix')
  assert.deepEqual(refusalShape(hidden), refusalShape(unknown))
  assert.doesNotMatch(JSON.stringify(hidden.body) + JSON.stringify(unknown.body), /credit_limit'\?/)
  // A misspelt readable one is suggested with its path.
  const misspelt = await clerk('GET', '/api/v1/orders?fields=customer.nmae')
  assert.equal(misspelt.body.errors[0].message, "fields: 'customer.nmae' is not a field (did you mean 'customer.name'?).")
})

test('a relation the caller may not follow is refused exactly as an unknown field, and never suggested', async () => {
  // The clerk may follow customer, so a near miss is offered it.
  assert.equal((await clerk('GET', '/api/v1/orders?fields=custome')).body.errors[0].message, "fields: 'custome' is not a field (did you mean 'customer'?).")
  // The outsider may not read customers; the linkless caller may not read the order's customer_id.
  for (const call of [outsider, linkless]) {
    for (const path of ['customer', 'customer.name']) {
      const refused = await call('GET', `/api/v1/orders?fields=${path}`)
      const unknown = await call('GET', `/api/v1/orders?fields=${path.replace('customer', 'buyer')}`)
      assertUnknownField(refused, path)
      assert.deepEqual(refusalShape(refused), refusalShape(unknown))
      assert.deepEqual(refusalShape(await call('GET', `/api/v1/orders/1?fields=${path}`)), refusalShape(unknown))
    }
    const near = await call('GET', '/api/v1/orders?fields=custome')
    assertUnknownField(near, 'custome')
    assert.doesNotMatch(near.body.detail, /did you mean 'customer'/)
  }
  // Each still reads its orders.
  assert.equal(ok(await linkless('GET', '/api/v1/orders?fields=title')).items.length, 6)
})

test('get, :search and :seek embed as the list does', async () => {
  const ann = await got(clerk, '/api/v1/customers/1')
  const expected = { name: 'Ann', etag: ann.etag }
  const fetched = await clerk('GET', '/api/v1/orders/1?fields=title,customer.name')
  assert.deepEqual(ok(fetched), { title: 'o-ann', customer: expected, etag: fetched.headers.etag, permissions: fetched.body.permissions })
  const searched = ok(await clerk('POST', '/api/v1/orders:search', { payload: { fields: ['title', 'customer.name'], filter: 'title = "o-ann"' } }))
  assert.deepEqual(searched.items.map((item: any) => item.customer), [expected])
  const hidden = await clerk('POST', '/api/v1/orders:search', { payload: { fields: ['title', 'customer.credit_limit'] } })
  assertUnknownField(hidden, 'customer.credit_limit')
  const sought = ok(await clerk('GET', '/api/v1/orders:seek?position=0&page_size=2&fields=title,customer.name'))
  assert.deepEqual(sought.items.map((item: any) => [item.title, item.customer]), [['o-ann', expected], ['o-vip', null]])
  // A seek's token turns pages with the embed as they are without it.
  const next = ok(await clerk('GET', `/api/v1/orders:seek?page_token=${encodeURIComponent(sought.next_page_token)}&page_size=2&fields=title,customer.name`))
  assert.deepEqual(next.items.map((item: any) => item.title), ['o-gone', 'o-other'])
})

test('embedding changes neither which rows a page has, nor its tokens and estimate', async () => {
  const plain = ok(await clerk('GET', '/api/v1/orders?page_size=2&fields=title'))
  const embedded = ok(await clerk('GET', '/api/v1/orders?page_size=2&fields=title,customer.region.name'))
  assert.deepEqual(embedded.items.map((item: any) => item.title), plain.items.map((item: any) => item.title))
  // A token is bound to the filter, order and show_deleted, not to the fields: either turns to the same page.
  const turn = async (token: string): Promise<string[]> => ok(await clerk('GET', `/api/v1/orders?page_size=2&fields=title&page_token=${encodeURIComponent(token)}`)).items.map((item: any) => item.title)
  assert.deepEqual(await turn(embedded.next_page_token), await turn(plain.next_page_token))
  assert.equal(embedded.total_size_estimate, plain.total_size_estimate)
  const counted = ok(await clerk('GET', '/api/v1/orders?count=exact&fields=customer.name'))
  assert.equal(counted.total_size, 6)
})

test('show_deleted applies to the top level only: an embedded customer is always a live one', async () => {
  const customers = await byTitle(admin, '/api/v1/orders?show_deleted=true&fields=title,customer.name', (item) => item.customer?.name ?? null)
  assert.equal(customers['o-deleted'], 'Ann')
  assert.equal(customers['o-gone'], null)
  assert.equal(ok(await admin('GET', '/api/v1/orders/3?show_deleted=true&fields=customer')).customer, null)
})

test('a page of 50 orders embedding customer and customer.region is one statement', async () => {
  await runSql(databaseUrl, "INSERT INTO orders (title, customer_id) SELECT 'bulk-' || n, 1 + n % 5 FROM generate_series(1, 60) AS n")
  const plain = await statementsOf(async () => ok(await clerk('GET', '/api/v1/orders?page_size=50&fields=title')))
  let page: any
  const statements = await statementsOf(async () => { page = ok(await clerk('GET', '/api/v1/orders?page_size=50&fields=title,customer.name,customer.region.name')) })
  assert.equal(page.items.length, 50)
  assert.equal(page.items.filter((item: any) => item.customer?.region?.name === 'South').length > 0, true)
  assert.equal(plain.length, 1)
  assert.equal(statements.length, 1)
  assert.match(statements[0]!, /FROM "orders" LEFT JOIN LATERAL \(SELECT "__t0"\."id" AS "__e0_0".* FROM "customers" AS "__t0" LEFT JOIN LATERAL \(SELECT "__t1"\."id" AS "__e1_0".* FROM "regions" AS "__t1" /)
})

test('relation and field names past PostgreSQL\'s 63-byte identifiers embed all the same', async () => {
  const relation = 'the_customer_who_placed_this_order_and_pays_for_it'
  const field = 'the_name_the_customer_gave_when_they_first_signed_up'
  const url = await freshDatabase()
  await runSql(url, `
    CREATE TABLE buyers (id bigserial PRIMARY KEY, ${field} text NOT NULL);
    CREATE TABLE purchases (id bigserial PRIMARY KEY, buyer_id bigint REFERENCES buyers (id));
    INSERT INTO buyers (${field}) VALUES ('Ann');
    INSERT INTO purchases (buyer_id) VALUES (1);
  `)
  const long = await buildApp({
    databaseUrl: url,
    resources: {
      buyers: { fields: { id: { type: 'bigint', readOnly: true, dbDefault: true }, [field]: { type: 'string', required: true } } },
      purchases: {
        fields: { id: { type: 'bigint', readOnly: true, dbDefault: true }, buyer_id: { type: 'bigint', references: 'buyers' } },
        relations: { [relation]: { field: 'buyer_id' } },
      },
    },
  })
  await createUser(long, 'admin@example.com', 'admin')
  const call = caller(long, await bearer(long, 'admin@example.com'))
  const buyer = await got(call, '/api/v1/buyers/1')
  const [purchase] = ok(await call('GET', `/api/v1/purchases?fields=id,${relation}.${field}`)).items
  assert.deepEqual(purchase[relation], { [field]: 'Ann', etag: buyer.etag })
})
