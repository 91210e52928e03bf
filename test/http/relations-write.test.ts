// The records writes answer with embed to-one relations through `fields` paths (docs/relations.md,
// "Embedding"): create, update and :undelete give the embed a get with the same `fields` gives
// right after the write, read on the write's transaction and under the caller's read access on
// the target. Without a path a write sends what it always did, with the statements it always
// ran; a path a get would refuse is refused the same way, before anything is written.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { freshDatabase, runSql, withClient } from '../helpers/db.js'
import { bearer, buildApp, caller, createUser, type CallResult } from '../helpers/app.js'
import { kinds, statementsOf } from '../helpers/statements.js'
import { responseChecker } from '../helpers/openapi.js'
import { relationsApp } from '../fixtures/relations.js'

const { databaseUrl, app } = await relationsApp()
// 1 and 4 are live customers of t1, 2 is deleted, 3 is t2's.
await runSql(databaseUrl, `
  INSERT INTO customers (id, tenant_id, name, country, credit_limit, deleted_at) VALUES
    (1, 't1', 'Ann', 'DE', 100.00, NULL),
    (2, 't1', 'Gone', 'FR', NULL, now()),
    (3, 't2', 'Other', 'DE', NULL, NULL),
    (4, 't1', 'Bob', NULL, 5.00, NULL);
  SELECT setval('customers_id_seq', 10);
`)
const admin = caller(app, await bearer(app, 'admin@example.com'))
const clerk = caller(app, await bearer(app, 'clerk@example.com'))
type Call = typeof admin

function answered (response: CallResult, status = 200): any {
  assert.equal(response.status, status, JSON.stringify(response.body))
  return response.body
}

/** A get's answer without `permissions` (a write's answer has none), with its ETag header. */
async function got (call: Call, url: string): Promise<{ record: any, etag: unknown }> {
  const response = await call('GET', url)
  const { permissions, ...record } = answered(response)
  return { record, etag: response.headers.etag }
}

async function orderCount (): Promise<number> {
  return await withClient(databaseUrl, async (client) => Number((await client.query('SELECT count(*) AS n FROM orders')).rows[0].n))
}

test('a create with fields=id,title,customer.name answers with the customer a get embeds, and the record\'s own ETag', async () => {
  const created = await clerk('POST', '/api/v1/orders?fields=id,title,customer.name', { payload: { title: 'first', customer_id: '1' } })
  const body = answered(created, 201)
  const ann = await got(clerk, '/api/v1/customers/1')
  assert.deepEqual(body, { id: body.id, title: 'first', customer: { name: 'Ann', etag: ann.etag }, etag: body.etag })
  const after = await got(clerk, `/api/v1/orders/${body.id}?fields=id,title,customer.name`)
  assert.deepEqual(body, after.record)
  // The ETag is the record's, as a get of it without fields gives it: the embed does not move it.
  const plain = await got(clerk, `/api/v1/orders/${body.id}`)
  assert.equal(created.headers.etag, plain.etag)
  assert.equal(body.etag, plain.etag)
  assert.equal(created.headers.location, `/api/v1/orders/${body.id}`)
})

test('fields=customer embeds every field the caller may read there, as a get of the customer gives it', async () => {
  const byClerk = answered(await clerk('POST', '/api/v1/orders?fields=title,customer', { payload: { title: 'whole', customer_id: '4' } }), 201)
  assert.deepEqual(byClerk.customer, (await got(clerk, '/api/v1/customers/4')).record)
  assert.deepEqual(Object.keys(byClerk.customer), ['id', 'name', 'country', 'deleted_at', 'etag'])
  const byAdmin = answered(await admin('POST', '/api/v1/orders?fields=title,customer', { payload: { title: 'whole', customer_id: '4' } }), 201)
  const bob = await got(admin, '/api/v1/customers/4')
  assert.deepEqual(byAdmin.customer, bob.record)
  assert.deepEqual(byAdmin.customer, { id: '4', name: 'Bob', country: null, credit_limit: '5.00', deleted_at: null, etag: bob.etag })
  assert.deepEqual(Object.keys(byAdmin), ['title', 'customer', 'etag'])
})

test('an update embeds the customer it now names: the embed is read after the write, on its transaction', async () => {
  const order = answered(await clerk('POST', '/api/v1/orders', { payload: { title: 'moving', customer_id: '1' } }), 201)
  const url = `/api/v1/orders/${order.id}?fields=title,customer.name,customer.country`
  const statements = await statementsOf(async () => {
    const updated = await clerk('PATCH', url, { payload: { customer_id: '4' }, headers: { 'if-match': order.etag } })
    const body = answered(updated)
    assert.deepEqual(body, (await got(clerk, url)).record)
    assert.deepEqual(body.customer, { name: 'Bob', country: null, etag: (await got(clerk, '/api/v1/customers/4')).etag })
    assert.equal(updated.headers.etag, (await got(clerk, `/api/v1/orders/${order.id}`)).etag)
  })
  // The write's statements, then the embeds' read, then the commit: one transaction.
  assert.deepEqual(kinds(statements).slice(0, 5), ['BEGIN', 'SELECT FOR UPDATE', 'UPDATE', 'SELECT', 'COMMIT'])
})

test('a customer outside the caller\'s read access embeds as null, as no customer does, in the write and in a get', async () => {
  const order = answered(await clerk('POST', '/api/v1/orders', { payload: { title: 'elsewhere', customer_id: '1' } }), 201)
  const url = `/api/v1/orders/${order.id}?fields=title,customer`
  // The write refuses a reference the caller cannot read; one already stored stays as it is.
  for (const [customer, title] of [['2', 'deleted'], ['3', 'another tenant\'s'], [null, 'none']] as const) {
    await runSql(databaseUrl, `UPDATE orders SET customer_id = ${customer ?? 'NULL'} WHERE id = ${Number(order.id)}`)
    const { etag } = await got(clerk, `/api/v1/orders/${order.id}`)
    const body = answered(await clerk('PATCH', url, { payload: { title }, headers: { 'if-match': etag as string } }))
    assert.deepEqual(body, { title, customer: null, etag: body.etag })
    assert.deepEqual(body, (await got(clerk, url)).record)
  }
})

test(':undelete embeds as a get does; a delete answers as before', async () => {
  const order = answered(await clerk('POST', '/api/v1/orders', { payload: { title: 'back', customer_id: '1' } }), 201)
  assert.equal((await clerk('DELETE', `/api/v1/orders/${order.id}`, { headers: { 'if-match': order.etag } })).status, 204)
  const restored = await clerk('POST', `/api/v1/orders/${order.id}:undelete?fields=id,customer.name`)
  const body = answered(restored)
  assert.deepEqual(body, (await got(clerk, `/api/v1/orders/${order.id}?fields=id,customer.name`)).record)
  assert.deepEqual(body.customer, { name: 'Ann', etag: (await got(clerk, '/api/v1/customers/1')).etag })
  assert.equal(restored.headers.etag, body.etag)
  const deleted = await clerk('DELETE', `/api/v1/orders/${order.id}?fields=customer`, { headers: { 'if-match': body.etag } })
  assert.equal(deleted.status, 400)
  assert.match(deleted.body.detail, /Unknown parameter 'fields'/)
})

test('without a path a write sends the record it always did, with the same statements; a path adds one read in a transaction', async () => {
  const plain = await statementsOf(async () => {
    const body = answered(await admin('POST', '/api/v1/orders', { payload: { title: 'fast', customer_id: '1' } }), 201)
    assert.deepEqual(body, { id: body.id, title: 'fast', customer_id: '1', owner_id: null, deleted_at: null, etag: body.etag })
  })
  assert.deepEqual(kinds(plain), ['INSERT'])
  const fieldsOnly = await statementsOf(async () => {
    const body = answered(await admin('POST', '/api/v1/orders?fields=id,title', { payload: { title: 'fast', customer_id: '1' } }), 201)
    assert.deepEqual(Object.keys(body), ['id', 'title', 'etag'])
  })
  assert.deepEqual(kinds(fieldsOnly), ['INSERT'])
  const embedded = await statementsOf(async () => {
    answered(await admin('POST', '/api/v1/orders?fields=id,customer.name', { payload: { title: 'fast', customer_id: '1' } }), 201)
  })
  assert.deepEqual(kinds(embedded), ['BEGIN', 'INSERT', 'SELECT', 'COMMIT'])
  assert.match(embedded[2]!, /LEFT JOIN LATERAL/)
})

test('Prefer: return=minimal sends no body and reads no embed; the ETag is the record\'s', async () => {
  let response: CallResult | undefined
  const statements = await statementsOf(async () => {
    response = await admin('POST', '/api/v1/orders?fields=customer.name', { payload: { title: 'minimal', customer_id: '1' }, headers: { prefer: 'return=minimal' } })
  })
  assert.equal(response!.status, 201)
  assert.equal(response!.body, undefined)
  assert.deepEqual(kinds(statements), ['INSERT'])
  const id = String(response!.headers.location).split('/').at(-1)!
  assert.equal(response!.headers.etag, (await got(admin, `/api/v1/orders/${id}`)).etag)
})

test('a fields path a get refuses is refused the same way, before anything is written', async () => {
  const created = answered(await clerk('POST', '/api/v1/orders', { payload: { title: 'target' } }), 201)
  const before = await orderCount()
  // A hidden field, a misspelt one, a hidden field of a to-many's records and three levels.
  for (const fields of ['customer.credit_limit', 'customer.nope', 'custome.name', 'lines.cost', 'customer.orders.customer.name']) {
    const read = await clerk('GET', `/api/v1/orders/${created.id}?fields=${fields}`)
    assert.equal(read.status, 400, fields)
    const writes = [
      await clerk('POST', `/api/v1/orders?fields=${fields}`, { payload: { title: 'never' } }),
      await clerk('PATCH', `/api/v1/orders/${created.id}?fields=${fields}`, { payload: { title: 'never' }, headers: { 'if-match': created.etag } }),
      await clerk('POST', `/api/v1/orders/${created.id}:undelete?fields=${fields}`),
    ]
    for (const written of writes) {
      assert.equal(written.status, 400, fields)
      assert.equal(written.body.type, 'urn:service:problem:invalid-parameter')
      assert.deepEqual({ ...written.body, instance: undefined }, { ...read.body, instance: undefined })
    }
  }
  // The hidden field reads as a misspelt one would.
  const hidden = await clerk('POST', '/api/v1/orders?fields=customer.credit_limit', { payload: { title: 'never' } })
  assert.equal(hidden.body.detail, "fields: 'customer.credit_limit' is not a field.")
  assert.equal(await orderCount(), before)
  assert.equal((await got(clerk, `/api/v1/orders/${created.id}`)).record.title, 'target')
})

test('an update and an :undelete embed the order\'s lines as a get does, with the token that continues them', async () => {
  const order = answered(await clerk('POST', '/api/v1/orders', { payload: { title: 'lined', customer_id: '1' } }), 201)
  await runSql(databaseUrl, `INSERT INTO order_lines (tenant_id, order_id, position, sku, cost, deleted_at)
    SELECT 't1', ${Number(order.id)}, n, 'sku-' || n, n, CASE WHEN n = 3 THEN now() END FROM generate_series(1, 12) AS n`)
  const url = `/api/v1/orders/${order.id}?fields=title,lines.sku,lines.position`
  const updated = answered(await clerk('PATCH', url, { payload: { title: 'relined' }, headers: { 'if-match': order.etag } }))
  // Tokens are encrypted afresh: two of the same place differ as text, not in what they give.
  const tokenless = (record: any): unknown => ({ ...record, lines: { ...record.lines, next_page_token: record.lines.next_page_token !== '' } })
  assert.deepEqual(tokenless(updated), tokenless((await got(clerk, url)).record))
  // Ten live lines of eleven (the third is deleted), and the token that gives the last.
  assert.deepEqual(updated.lines.items.map((line: { position: number }) => line.position), [1, 2, 4, 5, 6, 7, 8, 9, 10, 11])
  const rest = answered(await clerk('GET', `/api/v1/order_lines?fields=position&page_token=${encodeURIComponent(updated.lines.next_page_token)}`))
  assert.deepEqual(rest.items.map((line: { position: number }) => line.position), [12])

  answered(await clerk('DELETE', `/api/v1/orders/${order.id}`, { headers: { 'if-match': updated.etag } }), 204)
  const restored = answered(await clerk('POST', `/api/v1/orders/${order.id}:undelete?fields=title,lines.sku,lines.position`))
  assert.deepEqual(tokenless(restored), tokenless((await got(clerk, url)).record))
})

test(':batchWrite takes no fields: its records stay whole, without embeds', async () => {
  const response = await admin('POST', '/api/v1:batchWrite?fields=customer.name', { payload: { operations: [{ op: 'create', resource: 'orders', data: { title: 'batched' } }] } })
  assert.equal(response.status, 400)
  assert.match(response.body.detail, /Unknown parameter 'fields'/)
})

test('the OpenAPI document: create, update and :undelete take fields, and their answers with embeds are the record schema', async () => {
  const document = answered(await clerk('GET', '/api/openapi.json'))
  const names = (op: any): string[] => op.parameters.map((p: any) => p.$ref === undefined ? p.name : document.components.parameters[p.$ref.split('/').at(-1)].name)
  const record = document.paths['/api/v1/orders/{key}']
  const undelete = document.paths['/api/v1/orders/{key}:undelete'].post
  for (const op of [document.paths['/api/v1/orders'].post, record.patch, undelete]) assert.ok(names(op).includes('fields'))
  assert.ok(!names(record.delete).includes('fields'))
  assert.match(document.paths['/api/v1/orders'].post.responses['201'].description, /#\/components\/schemas\/orders\), with the relations fields embeds/)
  const check = responseChecker(document)
  const order = answered(await clerk('POST', '/api/v1/orders?fields=id,customer', { payload: { title: 'typed', customer_id: '1' } }), 201)
  check('/api/v1/orders/{key}', 'get', order)
  const updated = answered(await clerk('PATCH', `/api/v1/orders/${order.id}?fields=title,customer.name`, { payload: { customer_id: null }, headers: { 'if-match': order.etag } }))
  assert.equal(updated.customer, null)
  check('/api/v1/orders/{key}', 'patch', updated)
  assert.equal((await clerk('DELETE', `/api/v1/orders/${order.id}`, { headers: { 'if-match': updated.etag } })).status, 204)
  check('/api/v1/orders/{key}:undelete', 'post', answered(await clerk('POST', `/api/v1/orders/${order.id}:undelete?fields=customer.name`)))
})

test('the embed sees the write itself: a relation of a resource to itself, after a one-statement update', async () => {
  const url = await freshDatabase()
  await runSql(url, `
    CREATE TABLE people (id bigserial PRIMARY KEY, name text NOT NULL, lead_id bigint REFERENCES people (id), version integer NOT NULL DEFAULT 1);
    CREATE INDEX ON people (lead_id);
    INSERT INTO people (name) VALUES ('Ada');
    UPDATE people SET lead_id = id;
  `)
  const own = await buildApp({
    databaseUrl: url,
    resources: {
      people: {
        version: 'version',
        fields: { id: { type: 'bigint', readOnly: true, dbDefault: true }, name: { type: 'string', required: true }, lead_id: { type: 'bigint', references: 'people' } },
        relations: { lead: { field: 'lead_id' } },
      },
    },
  })
  await createUser(own, 'lead@example.com')
  const call = caller(own, await bearer(own, 'lead@example.com'))
  const before = await got(call, '/api/v1/people/1')
  let updated: CallResult | undefined
  const statements = (await statementsOf(async () => {
    updated = await call('PATCH', '/api/v1/people/1?fields=name,lead', { payload: { name: 'Ada L.' }, headers: { 'if-match': before.etag as string } })
  })).filter((text) => /^(BEGIN|COMMIT|ROLLBACK)/.test(text) || text.includes('"people"'))
  const body = answered(updated!)
  // The update that needs no lock (an If-Match with the version) stays one statement, in the transaction the embed is read on.
  assert.deepEqual(kinds(statements), ['BEGIN', 'UPDATE', 'SELECT', 'COMMIT'])
  const after = await got(call, '/api/v1/people/1')
  assert.deepEqual(body, { name: 'Ada L.', lead: after.record, etag: after.etag })
  assert.deepEqual(body, (await got(call, '/api/v1/people/1?fields=name,lead')).record)
  assert.equal(updated!.headers.etag, after.etag)
})
