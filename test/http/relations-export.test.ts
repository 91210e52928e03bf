// :export with to-one `fields` paths (docs/relations.md, "Export"): a CSV column per embedded field
// named by its path (`customer.name`), empty where the customer is null or not the caller's to
// read; in NDJSON the embedded record as a get embeds it, without etag as exported records have
// none, or null. One statement; a path the caller may not take is refused as on a list, and a
// to-many path is refused (no CSV column holds many records; NDJSON does not embed them yet).
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
`)
const auth = {
  admin: await bearer(app, 'admin@example.com'),
  clerk: await bearer(app, 'clerk@example.com'),
  courier: await bearer(app, 'courier@example.com'),
  auditor: await bearer(app, 'auditor@example.com'),
  packer: await bearer(app, 'packer@example.com'),
}
type Role = keyof typeof auth

async function exported (role: Role, query: string): Promise<{ status: number, type: unknown, text: string }> {
  const response = await app.inject({ method: 'GET', url: `/api/v1/orders:export?order_by=id&${query}`, headers: auth[role] })
  return { status: response.statusCode, type: response.headers['content-type'], text: response.body }
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
  // The app's revocation poll may run beside it: only statements of orders and the transaction count.
  const statements = (await statementsOf(async () => { ok(await exported('clerk', 'format=csv&fields=id,customer.name')) }))
    .filter((text) => /^(BEGIN|COMMIT|ROLLBACK)/.test(text) || text.includes('"orders"'))
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

test('a to-many path is refused: no CSV column holds many records, and NDJSON does not embed them yet', async () => {
  const csv = refusal(await exported('clerk', 'format=csv&fields=id,lines.sku')) as any
  assert.equal(csv.type, 'urn:service:problem:invalid-parameter')
  assert.equal(csv.detail, "fields: 'lines.sku': lines is a to-many relation, which cannot be a CSV column: a column holds one value a record.")
  assert.deepEqual(csv.errors, [{ parameter: 'fields', message: csv.detail }])
  const deeper = refusal(await exported('admin', 'format=csv&fields=customer.orders')) as any
  assert.equal(deeper.detail, "fields: 'customer.orders': customer.orders is a to-many relation, which cannot be a CSV column: a column holds one value a record.")
  const ndjson = refusal(await exported('clerk', 'format=ndjson&fields=lines')) as any
  assert.equal(ndjson.detail, "fields: 'lines': lines is a to-many relation, and an NDJSON export does not embed one yet.")
})

test('fields must name a field to export: a path to an embed\'s etag alone names none', async () => {
  const refused = refusal(await exported('admin', 'format=csv&fields=customer.etag')) as any
  assert.equal(refused.detail, 'fields must name at least one field to export.')
  assert.equal(ok(await exported('admin', 'format=csv&fields=customer.name&filter=id%3D1')), 'customer.name\r\nAnn\r\n')
})
