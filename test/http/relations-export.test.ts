// :export with `fields` paths (docs/relations.md, "Export"): a CSV column per embedded to-one field
// named by its path (`customer.name`), empty where the customer is null or not the caller's to
// read; in NDJSON the embedded record as a get embeds it, without etag as exported records have
// none, or null, and a to-many as a get's `{ items, next_page_token }` without etags, its token
// continuing on the child's list. One statement; a path the caller may not take is refused as on
// a list, and a to-many path is refused in CSV (no column holds many records).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { runSql } from '../helpers/db.js'
import { bearer, usersOf } from '../helpers/app.js'
import { kinds, statementsOf } from '../helpers/statements.js'
import { relationsApp } from '../fixtures/relations.js'

const { databaseUrl, app } = await relationsApp()
const clerkId = (await usersOf(app).findByEmail('clerk@example.com'))!.id
// Customers: 1 and 4 live in t1, 2 deleted, 3 t2's. Orders 1-4 are the clerk's, 5 the admin's;
// 6 is t2's and 7 deleted: neither is exported.
await runSql(databaseUrl, `
  INSERT INTO customers (id, tenant_id, name, country, credit_limit, deleted_at) VALUES
    (1, 't1', 'Ann', 'DE', 100.00, NULL),
    (2, 't1', 'Gone', 'FR', NULL, now()),
    (3, 't2', 'Other', 'DE', NULL, NULL),
    (4, 't1', 'Bob "B", Jr.', NULL, 5.00, NULL);
  INSERT INTO orders (id, tenant_id, title, customer_id, owner_id, deleted_at) VALUES
    (1, 't1', 'a', 1, '${clerkId}', NULL),
    (2, 't1', 'b', NULL, '${clerkId}', NULL),
    (3, 't1', 'c', 2, '${clerkId}', NULL),
    (4, 't1', 'd', 3, '${clerkId}', NULL),
    (5, 't1', 'e', 4, 'someone', NULL),
    (6, 't2', 'f', 3, '${clerkId}', NULL),
    (7, 't1', 'g', 1, '${clerkId}', now());
  -- Order 1: twelve live lines of t1 (a page of ten and a token), one deleted, one t2's; order 2's
  -- two in position order, not the key's.
  INSERT INTO order_lines (id, tenant_id, order_id, position, sku, cost, deleted_at)
    SELECT n, 't1', 1, n, 'A-' || n, n, NULL FROM generate_series(1, 12) AS n;
  INSERT INTO order_lines (id, tenant_id, order_id, position, sku, cost, deleted_at) VALUES
    (13, 't1', 1, 0, 'A-gone', NULL, now()),
    (14, 't2', 1, 0, 'A-t2', NULL, NULL),
    (15, 't1', 2, 2, 'B-2', NULL, NULL),
    (16, 't1', 2, 1, 'B-1', 7.50, NULL),
    (17, 't1', 5, 1, 'E-1', NULL, NULL),
    (18, 't2', 6, 1, 'F-1', NULL, NULL),
    (19, 't1', 7, 1, 'G-1', NULL, NULL);
`)
const auth = {
  admin: await bearer(app, 'admin@example.com'),
  clerk: await bearer(app, 'clerk@example.com'),
  courier: await bearer(app, 'courier@example.com'),
  auditor: await bearer(app, 'auditor@example.com'),
  packer: await bearer(app, 'packer@example.com'),
}
type Role = keyof typeof auth

async function exported (role: Role, query: string, resource = 'orders'): Promise<{ status: number, type: unknown, text: string }> {
  const response = await app.inject({ method: 'GET', url: `/api/v1/${resource}:export?order_by=id&${query}`, headers: auth[role] })
  return { status: response.statusCode, type: response.headers['content-type'], text: response.body }
}

/** An NDJSON export's records. */
function records (got: { status: number, text: string }): any[] {
  return ok(got).split('\n').slice(0, -1).map((line) => JSON.parse(line))
}

function ok (got: { status: number, text: string }): string {
  assert.equal(got.status, 200, got.text)
  return got.text
}

/** A refusal's problem without `instance` (the request's own URL). */
function refusal (got: { status: number, text: string }): unknown {
  assert.equal(got.status, 400, got.text)
  const { instance, ...problem } = JSON.parse(got.text)
  return problem
}

test('CSV: customer.name is a column, empty where the customer is null, deleted or another tenant\'s', async () => {
  const got = await exported('admin', 'format=csv&fields=id,title,customer.name')
  assert.equal(got.type, 'text/csv; charset=utf-8')
  assert.equal(ok(got), [
    'id,title,customer.name',
    '1,a,Ann',
    '2,b,',
    '3,c,',
    '4,d,',
    '5,e,"Bob ""B"", Jr."',
    '',
  ].join('\r\n'))
})

test('CSV: fields=customer is a column per field the caller may read there, in the target\'s order', async () => {
  assert.equal(ok(await exported('clerk', 'format=csv&fields=title,customer')), [
    'title,customer.id,customer.name,customer.country,customer.deleted_at',
    'a,1,Ann,DE,',
    'b,,,,',
    'c,,,,',
    'd,,,,',
    '',
  ].join('\r\n'))
  assert.equal(ok(await exported('admin', 'format=csv&fields=customer,id&filter=id%3E4')), [
    'id,customer.id,customer.name,customer.country,customer.credit_limit,customer.deleted_at',
    '5,4,"Bob ""B"", Jr.",,5.00,',
    '',
  ].join('\r\n'))
})

test('NDJSON: the customer as a get embeds it, without its etag, or null', async () => {
  assert.equal(ok(await exported('admin', 'fields=id,customer.name')), [
    '{"id":"1","customer":{"name":"Ann"}}',
    '{"id":"2","customer":null}',
    '{"id":"3","customer":null}',
    '{"id":"4","customer":null}',
    '{"id":"5","customer":{"name":"Bob \\"B\\", Jr."}}',
    '',
  ].join('\n'))
  const lines = ok(await exported('clerk', 'format=ndjson&fields=title,customer')).trimEnd().split('\n').map((line) => JSON.parse(line))
  assert.deepEqual(lines[0], { title: 'a', customer: { id: '1', name: 'Ann', country: 'DE', deleted_at: null } })
  const page = await app.inject({ method: 'GET', url: '/api/v1/orders?order_by=id&fields=title,customer', headers: auth.clerk })
  const items = JSON.parse(page.body).items.map(({ etag, permissions, customer, ...item }: any) => ({ ...item, customer: customer === null ? null : { ...customer, etag: undefined } }))
  assert.deepEqual(JSON.parse(JSON.stringify(items)), lines)
})

test('an export with embeds is one statement in its read-only transaction', async () => {
  const statements = await statementsOf(async () => { ok(await exported('clerk', 'format=csv&fields=id,customer.name')) })
  assert.deepEqual(kinds(statements), ['BEGIN', 'SELECT', 'COMMIT'])
  assert.match(statements[1]!, /LEFT JOIN LATERAL/)
})

test('a path to a hidden field or through a relation the caller may not follow is refused as on a list', async () => {
  const cases: Array<[Role, string]> = [
    ['clerk', 'customer.credit_limit'],
    ['clerk', 'customer.nope'],
    ['courier', 'customer.name'],
    ['courier', 'customer'],
    ['auditor', 'customer.name'],
    ['packer', 'lines.sku'],
  ]
  for (const [role, fields] of cases) {
    for (const format of ['csv', 'ndjson']) {
      const listed = await app.inject({ method: 'GET', url: `/api/v1/orders?order_by=id&fields=id,${fields}`, headers: auth[role] })
      assert.deepEqual(refusal(await exported(role, `format=${format}&fields=id,${fields}`)), refusal({ status: listed.statusCode, text: listed.body }), `${role} ${fields}`)
    }
  }
  assert.equal((refusal(await exported('courier', 'fields=customer.name')) as any).detail, "fields: 'customer.name' is not a field.")
})

test('a to-many path is refused in CSV: no column holds many records', async () => {
  const csv = refusal(await exported('clerk', 'format=csv&fields=id,lines.sku')) as any
  assert.equal(csv.type, 'urn:service:problem:invalid-parameter')
  assert.equal(csv.detail, "fields: 'lines.sku': lines is a to-many relation, which cannot be a CSV column: a column holds one value a record.")
  assert.deepEqual(csv.errors, [{ parameter: 'fields', message: csv.detail }])
  const deeper = refusal(await exported('admin', 'format=csv&fields=customer.orders')) as any
  assert.equal(deeper.detail, "fields: 'customer.orders': customer.orders is a to-many relation, which cannot be a CSV column: a column holds one value a record.")
})

test('fields must name a field to export: a path to an embed\'s etag alone names none', async () => {
  const refused = refusal(await exported('admin', 'format=csv&fields=customer.etag')) as any
  assert.equal(refused.detail, 'fields must name at least one field to export.')
  assert.equal(ok(await exported('admin', 'format=csv&fields=customer.name&filter=id%3D1')), 'customer.name\r\nAnn\r\n')
})

/** A record of a get as an export writes it: no etag at any depth, and a token as whether there is one (each is sealed anew). */
function exportedForm (value: unknown): unknown {
  if (Array.isArray(value)) return value.map(exportedForm)
  if (value === null || typeof value !== 'object') return value
  const form: Record<string, unknown> = {}
  for (const [name, field] of Object.entries(value)) {
    if (name !== 'etag') form[name] = name === 'next_page_token' ? field !== '' : exportedForm(field)
  }
  return form
}

test('NDJSON: each line is the record a get with the same fields gives, to-manys and their embeds included, without etags', async () => {
  const cases: Array<[Role, string, string]> = [
    ['admin', 'orders', 'id,title,lines.sku'],
    ['admin', 'orders', 'title,lines'],
    ['clerk', 'orders', 'id,lines,customer.name'],
    ['courier', 'orders', 'lines.sku,lines.position'],
    ['auditor', 'orders', 'id,lines.cost'],
    ['admin', 'orders', 'id,customer.orders.title'],
    ['admin', 'customers', 'id,orders.title,orders.lines.sku'],
    ['clerk', 'customers', 'name,orders.customer.name,orders.lines'],
  ]
  for (const [role, resource, fields] of cases) {
    const ids = records(await exported(role, 'fields=id', resource)).map((record) => record.id)
    const lines = records(await exported(role, `format=ndjson&fields=${fields}`, resource))
    const gets = []
    for (const id of ids) {
      const got = await app.inject({ method: 'GET', url: `/api/v1/${resource}/${id}?fields=${fields}`, headers: auth[role] })
      assert.equal(got.statusCode, 200, got.body)
      const { permissions, ...record } = JSON.parse(got.body)
      gets.push(exportedForm(record))
    }
    assert.deepEqual(lines.map(exportedForm), gets, `${role} ${resource} ${fields}`)
    assert.ok(lines.length > 0 && lines.every((line) => !JSON.stringify(line).includes('"etag"')), `${role} ${resource} ${fields}`)
  }
})

test('NDJSON: a to-many holds the children the caller may read, in the relation\'s order, with the fields they read', async () => {
  const admin = records(await exported('admin', 'fields=id,lines.sku&filter=id%3C%3D3'))
  // Order 1's deleted line and t2's are not its lines; order 2's come by position.
  assert.deepEqual(admin.map((record) => [record.id, record.lines.items.map((line: any) => line.sku), record.lines.next_page_token !== '']), [
    ['1', Array.from({ length: 10 }, (_, i) => `A-${i + 1}`), true],
    ['2', ['B-1', 'B-2'], false],
    ['3', [], false],
  ])
  assert.deepEqual(admin[2], { id: '3', lines: { items: [], next_page_token: '' } })
  // The clerk reads no cost; the admin does, as the get gives it.
  assert.deepEqual(records(await exported('clerk', 'fields=lines&filter=id%3D2')), [{ lines: { items: [
    { id: '16', order_id: '2', position: 1, sku: 'B-1', deleted_at: null },
    { id: '15', order_id: '2', position: 2, sku: 'B-2', deleted_at: null },
  ], next_page_token: '' } }])
  assert.deepEqual(records(await exported('admin', 'fields=lines.cost&filter=id%3D2')), [{ lines: { items: [{ cost: '7.50' }, { cost: null }], next_page_token: '' } }])
  // The clerk's row rule on orders holds below a customer: Bob's order 5 is someone else's, order 7 deleted.
  assert.deepEqual(records(await exported('clerk', 'fields=name,orders.title', 'customers')), [
    { name: 'Ann', orders: { items: [{ title: 'a' }], next_page_token: '' } },
    { name: 'Bob "B", Jr.', orders: { items: [], next_page_token: '' } },
  ])
  assert.deepEqual(records(await exported('admin', 'fields=name,orders.title', 'customers'))[1], { name: 'Bob "B", Jr.', orders: { items: [{ title: 'e' }], next_page_token: '' } })
})

test('NDJSON: a to-many\'s token continues its children on the child\'s list, though fields names no key', async () => {
  const [order] = records(await exported('courier', 'fields=title,lines.sku&filter=id%3D1'))
  assert.deepEqual(Object.keys(order), ['title', 'lines'])
  assert.equal(order.lines.items.length, 10)
  const rest = await app.inject({ method: 'GET', url: `/api/v1/order_lines?fields=sku&page_token=${encodeURIComponent(order.lines.next_page_token)}`, headers: auth.courier })
  assert.equal(rest.statusCode, 200, rest.body)
  assert.deepEqual(JSON.parse(rest.body).items.map((line: any) => line.sku), ['A-11', 'A-12'])
  assert.equal(JSON.parse(rest.body).next_page_token, '')
  // Under another to-many, the token names the order it belongs to, which fields does not name either.
  const [customer] = records(await exported('admin', 'fields=orders.lines.sku&filter=id%3D1', 'customers'))
  assert.deepEqual(customer.orders.items[0], { lines: { items: order.lines.items, next_page_token: customer.orders.items[0].lines.next_page_token } })
  const next = await app.inject({ method: 'GET', url: `/api/v1/order_lines?fields=sku&page_size=1&page_token=${encodeURIComponent(customer.orders.items[0].lines.next_page_token)}`, headers: auth.admin })
  assert.deepEqual(JSON.parse(next.body).items.map((line: any) => line.sku), ['A-11'])
  assert.notEqual(JSON.parse(next.body).next_page_token, '')
})

test('NDJSON: a hidden child field, or a to-many the caller may not follow, is refused as an unknown field', async () => {
  const cases: Array<[Role, string]> = [['clerk', 'lines.cost'], ['clerk', 'lines.cos'], ['courier', 'lines.customer'], ['packer', 'lines.sku'], ['packer', 'lines'], ['clerk', 'customer.orders.lines.cost']]
  for (const [role, fields] of cases) {
    const listed = await app.inject({ method: 'GET', url: `/api/v1/orders?order_by=id&fields=id,${fields}`, headers: auth[role] })
    assert.deepEqual(refusal(await exported(role, `format=ndjson&fields=id,${fields}`)), refusal({ status: listed.statusCode, text: listed.body }), `${role} ${fields}`)
  }
  assert.equal((refusal(await exported('clerk', 'fields=lines.cost')) as any).detail, "fields: 'lines.cost' is not a field.")
})

test('an NDJSON export with to-many embeds is one statement in its read-only transaction', async () => {
  const statements = (await statementsOf(async () => { records(await exported('clerk', 'fields=title,lines.sku,customer.orders.title')) }))
    .filter((text) => /^(BEGIN|COMMIT|ROLLBACK)/.test(text) || text.includes('"orders"'))
  assert.deepEqual(kinds(statements), ['BEGIN', 'SELECT', 'COMMIT'])
  assert.match(statements[1]!, /ARRAY\(SELECT ROW\(/)
  assert.match(statements[1]!, /LEFT JOIN LATERAL/)
})
