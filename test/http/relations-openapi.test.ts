// The embeds in each caller's OpenAPI document (docs/relations.md, "In the OpenAPI document"): a
// record schema has a property for every relation the caller may follow (a to-one: the target's
// record schema or null; a to-many: `{ items, next_page_token }` of them), and none for one they
// may not; answers with embeds validate against the caller's own document.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { freshDatabase, runSql } from '../helpers/db.js'
import { buildApp, createUser, bearer, caller } from '../helpers/app.js'
import { assertValidOpenApi, responseChecker } from '../helpers/openapi.js'
import { startPrismProxy, violationsOf } from '../helpers/prism.js'
import { EMBED_RESOURCES, EMBED_ROLES, EMBED_ROWS, EMBED_SCHEMA } from '../fixtures/relations-embed.js'

const run = promisify(execFile)
const root = fileURLToPath(new URL('../../../', import.meta.url))
const databaseUrl = await freshDatabase()
await runSql(databaseUrl, EMBED_SCHEMA + EMBED_ROWS)
const app = await buildApp({ databaseUrl, tenant: 't1', roles: EMBED_ROLES, resources: EMBED_RESOURCES })
const ROLES = ['admin', 'clerk', 'outsider', 'linkless'] as const
for (const role of ROLES) await createUser(app, `${role}@example.com`, role)
const callers = Object.fromEntries(await Promise.all(ROLES.map(async (role) => [role, caller(app, await bearer(app, `${role}@example.com`))])))
const documents = Object.fromEntries(await Promise.all(ROLES.map(async (role) => {
  const response = await callers[role]!('GET', '/api/openapi.json')
  assert.equal(response.status, 200)
  return [role, response.body]
}))) as Record<typeof ROLES[number], any>

async function okBody (role: typeof ROLES[number], method: string, url: string, body?: unknown): Promise<any> {
  const response = await callers[role]!(method, url, body)
  assert.equal(response.status, 200, JSON.stringify(response.body))
  return response.body
}

const embedOf = (target: string, field: string, relation: string) => ({
  anyOf: [{ $ref: `#/components/schemas/${target}` }, { type: 'null' }],
  description: `The ${target} record that ${field} names, embedded when fields names it (fields=${relation} or ${relation}.<field>); null when ${field} is null or that record is not one the caller may read.`,
})

const manyOf = (target: string, by: string, relation: string, pageSize: number) => ({
  type: 'object',
  properties: {
    items: { type: 'array', items: { $ref: `#/components/schemas/${target}` }, maxItems: pageSize },
    next_page_token: { type: 'string', description: `Continues these ${target} records: send it as page_token to the ${target} list (alone, without filter, order_by or show_deleted); "" when all were given.` },
  },
  required: ['items', 'next_page_token'],
  additionalProperties: false,
  description: `The first ${pageSize} ${target} records whose ${by} names this record and that the caller may read, in the relation's order, embedded when fields names it (fields=${relation} or ${relation}.<field>).`,
})

test('every caller\'s document is valid OpenAPI 3.1', async () => {
  for (const document of Object.values(documents)) await assertValidOpenApi(document)
})

test('a record schema types each relation the caller may follow, optional, after the fields and before etag', () => {
  const schemas = documents.admin.components.schemas
  assert.deepEqual(schemas.orders.properties.customer, embedOf('customers', 'customer_id', 'customer'))
  assert.deepEqual(schemas.customers.properties.region, embedOf('regions', 'region_id', 'region'))
  // A relation of a resource to itself refers to its own schema.
  assert.deepEqual(schemas.regions.properties.parent, embedOf('regions', 'parent_id', 'parent'))
  assert.deepEqual(Object.keys(schemas.orders.properties), ['id', 'title', 'customer_id', 'placed_at', 'version', 'deleted_at', 'customer', 'lines', 'etag', 'permissions'])
  assert.deepEqual(schemas.orders.required, ['etag'])
  assert.deepEqual(schemas.orders.properties.lines, manyOf('order_lines', 'order_id', 'lines', 10))
  // The clerk follows customer (a row rule narrows which rows, not the relation); its customers
  // schema, the embed's type, lacks credit_limit as its embeds do.
  const clerk = documents.clerk.components.schemas
  assert.deepEqual(clerk.orders.properties.customer, embedOf('customers', 'customer_id', 'customer'))
  assert.equal(clerk.customers.properties.credit_limit, undefined)
})

test('a caller who may not follow a relation has no property for it, nor the target\'s schemas where they cannot read it', () => {
  // The outsider may not read customers: no relation, and nothing of customers anywhere.
  const outsider = documents.outsider
  assert.deepEqual(Object.keys(outsider.components.schemas.orders.properties), ['id', 'title', 'customer_id', 'placed_at', 'version', 'deleted_at', 'lines', 'etag', 'permissions'])
  assert.deepEqual(Object.keys(outsider.components.schemas).filter((name) => name.startsWith('customers')), [])
  assert.equal(JSON.stringify(outsider).includes('#/components/schemas/customers'), false)
  assert.deepEqual(outsider.components.schemas.regions.properties.parent, embedOf('regions', 'parent_id', 'parent'))
  // The linkless caller reads customers but not customer_id: no customer on orders, customers as before.
  const linkless = documents.linkless.components.schemas
  assert.deepEqual(Object.keys(linkless.orders.properties), ['id', 'title', 'placed_at', 'version', 'deleted_at', 'lines', 'etag', 'permissions'])
  assert.deepEqual(linkless.customers.properties.region, embedOf('regions', 'region_id', 'region'))
})

test('answers with embeds validate against the caller\'s own document: a subset of fields, two levels, a null embed', async () => {
  const admin = responseChecker(documents.admin)
  const list = await okBody('admin', 'GET', '/api/v1/orders?fields=id,customer.name')
  assert.deepEqual(list.items[0].customer, { name: 'Ann', etag: list.items[0].customer.etag })
  assert.ok(list.items.some((item: any) => item.customer === null))
  admin('/api/v1/orders', 'get', list)
  const got = await okBody('admin', 'GET', '/api/v1/orders/1?fields=customer,customer.region')
  assert.equal(got.customer.credit_limit, '1000.50')
  assert.equal(got.customer.region.name, 'South')
  admin('/api/v1/orders/{key}', 'get', got)
  const nowhere = await okBody('admin', 'GET', '/api/v1/orders/6?fields=title,customer.region.name')
  assert.deepEqual(nowhere.customer, { region: null, etag: nowhere.customer.etag })
  admin('/api/v1/orders/{key}', 'get', nowhere)
  const searched = await okBody('admin', 'POST', '/api/v1/orders:search', { fields: ['id', 'customer.region.name'] })
  responseChecker(documents.admin)('/api/v1/orders:search', 'post', searched)
  // The clerk's Vip Co is hidden by its row rule: the same null as no customer at all.
  const clerk = await okBody('clerk', 'GET', '/api/v1/orders?fields=title,customer')
  assert.deepEqual(clerk.items.filter((item: any) => item.customer === null).map((item: any) => item.title), ['o-vip', 'o-gone', 'o-other', 'o-none'])
  responseChecker(documents.clerk)('/api/v1/orders', 'get', clerk)
  // The same answer is not one the outsider's document allows: the embed is typed per caller.
  assert.throws(() => { responseChecker(documents.outsider)('/api/v1/orders', 'get', list) }, /additionalProperties/)
})

test('answers with to-many embeds validate against the caller\'s own document: every field, some, and under a to-one', async () => {
  for (const role of ['admin', 'clerk', 'outsider'] as const) {
    const check = responseChecker(documents[role])
    const list = await okBody(role, 'GET', '/api/v1/orders?fields=id,lines')
    assert.equal(list.items.find((item: any) => item.id === '1').lines.items.length, 2)
    check('/api/v1/orders', 'get', list)
    const got = await okBody(role, 'GET', '/api/v1/orders/1?fields=title,lines.sku')
    assert.deepEqual(got.lines.items.map((line: any) => line.sku), ['A-1', 'B-2'])
    check('/api/v1/orders/{key}', 'get', got)
    check('/api/v1/orders:search', 'post', await okBody(role, 'POST', '/api/v1/orders:search', { fields: ['lines.sku', 'lines.etag'] }))
  }
  const nested = await okBody('admin', 'GET', '/api/v1/orders/1?fields=customer.name,lines.cost')
  responseChecker(documents.admin)('/api/v1/orders/{key}', 'get', nested)
  // The admin's lines carry cost, which the clerk's schema of order_lines has not.
  assert.throws(() => { responseChecker(documents.clerk)('/api/v1/orders/{key}', 'get', nested) }, /additionalProperties/)
  // Not a record where its envelope belongs.
  assert.throws(() => { responseChecker(documents.admin)('/api/v1/orders/{key}', 'get', { ...nested, lines: nested.lines.items }) }, /type/)
})

test('Prism\'s validating proxy finds nothing amiss in embeds, each caller against its own document', async (t) => {
  const upstream = await app.listen({ port: 0, host: '127.0.0.1' })
  const dir = mkdtempSync(join(root, '.out-relations-prism-'))
  t.after(() => { rmSync(dir, { recursive: true, force: true }) })
  for (const role of ['admin', 'clerk'] as const) {
    writeFileSync(join(dir, `${role}.json`), JSON.stringify(documents[role]))
    const proxy = await startPrismProxy(t, join(dir, `${role}.json`), upstream)
    const auth = await bearer(app, `${role}@example.com`)
    for (const url of ['/api/v1/orders?fields=id,customer.name', '/api/v1/orders/1?fields=customer,customer.region', '/api/v1/orders/5?fields=title,customer', '/api/v1/orders/2?fields=customer.region', '/api/v1/orders?fields=title,lines', '/api/v1/orders/1?fields=lines.sku']) {
      const response = await fetch(proxy + url, { headers: auth })
      const text = await response.text()
      assert.equal(response.status, 200, `${role} ${url}: ${text}`)
      assert.deepEqual(violationsOf(response), [], `${role} ${url}`)
    }
  }
})

test('openapi-typescript types the embeds: the target\'s record, null, or absent', async (t) => {
  const dir = mkdtempSync(join(root, '.out-relations-client-'))
  t.after(() => { rmSync(dir, { recursive: true, force: true }) })
  writeFileSync(join(dir, 'openapi.json'), JSON.stringify(documents.admin))
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module' }))
  writeFileSync(join(dir, 'use.ts'), `import type { components } from './schema.js'
type Order = components['schemas']['orders']
export const regionOf = (order: Order): string | undefined => order.customer?.region?.name
export const skus = (order: Order): string[] => (order.lines?.items ?? []).map((line) => line.sku ?? '')
export const more = (order: Order): string | undefined => order.lines?.next_page_token
export const none: Order = { etag: '"1"', customer: null }
// @ts-expect-error a to-many embed is a page of records, not an array
export const flat: Order = { etag: '"1"', lines: [] }
// @ts-expect-error an embed is a customer record, not its key
export const wrong: Order = { etag: '"1"', customer: '1' }
`)
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({
    compilerOptions: { target: 'es2023', module: 'nodenext', moduleResolution: 'nodenext', strict: true, skipLibCheck: true, noEmit: true, types: [] },
    files: ['use.ts', 'schema.d.ts'],
  }))
  await run(process.execPath, [join(root, 'test/clients/node_modules/openapi-typescript/bin/cli.js'), 'openapi.json', '-o', 'schema.d.ts'], { cwd: dir })
  try {
    await run(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'], { cwd: dir })
  } catch (err) {
    assert.fail(`tsc refused the embeds' types: ${(err as { stdout: string }).stdout}`)
  }
})
