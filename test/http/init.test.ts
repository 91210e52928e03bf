// `initConfig` (docs/init.md) on a schema covering each rule, then the config it writes served as
// it is: every resource listed by an admin over HTTP, and values refused as the database refuses them.
import { after, test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { databasePool, freshDatabase, runSql } from '../helpers/db.js'
import { bearer, buildApp, caller, createUser } from '../helpers/app.js'
import { initConfig } from '../../lib/init/index.js'
import type { Config } from '../../lib/config/schema.js'
import { INIT_ROWS, INIT_SCHEMA } from '../fixtures/init.js'

const root = fileURLToPath(new URL('../../../', import.meta.url))
const databaseUrl = await freshDatabase()
await runSql(databaseUrl, INIT_SCHEMA + INIT_ROWS)
const pool = databasePool(databaseUrl, 1)
// The database is dropped after the file, perhaps before the pool ends: its idle connection is cut then.
pool.on('error', () => {})
const dir = mkdtempSync(join(tmpdir(), 'tablegate-init-'))
after(() => { rmSync(dir, { recursive: true, force: true }) })

const text = await initConfig(pool)

/** The generated file as the module it is, its `'tablegate'` import pointed at this build. */
async function load (source: string, name: string): Promise<Config> {
  const file = join(dir, `${name}.mjs`)
  writeFileSync(file, source.replace("from 'tablegate'", `from '${pathToFileURL(join(root, 'dist', 'lib', 'index.js')).href}'`))
  return (await import(pathToFileURL(file).href)).default as Config
}

const config = await load(text, 'tables')

function fieldLine (name: string): string {
  const line = text.split('\n').find((l) => l.trimStart().startsWith(`${name}: {`))
  assert.ok(line !== undefined, `no line for ${name} in\n${text}`)
  return line.trim()
}

test('one resource per table with a primary key; partitions, keyless tables, views and unservable keys left out with why', () => {
  assert.deepEqual(Object.keys(config.resources!), ['customers', 'employees', 'measurements', 'order_lines', 'orders', 'product_tags', 'products', 'regions', 'shipments', 'tags'])
  assert.match(text, /\/\/ left out: logbook, no primary key/)
  assert.match(text, /\/\/ left out: Audit Trail, its name is not a resource name/)
  assert.match(text, /\/\/ left out: measurements_2025, a partition of measurements: served through it/)
  assert.match(text, /\/\/ left out: customer_names, a view \(pass --views/)
  assert.match(text, /\/\/ left out: stamps, its primary key column at cannot be a field \(timestamp without time zone/)
  assert.equal(config.defaultAccess, 'deny')
  assert.deepEqual(config.rateLimits, { read: '600/min', write: '120/min', export: '10/min', aggregate: '60/min', anonymous: '300/min' })
  assert.deepEqual(config.resources!.orders!.access, { read: ['admin'], create: ['admin'], update: ['admin'], delete: ['admin'] })
  assert.equal(text.match(/\/\/ TODO: decide who besides admin/g)?.length, 10)
  assert.match(text, /^import \{ defineConfig \} from 'tablegate'$/m)
})

test('keys from primary keys, composite included', () => {
  const r = config.resources!
  assert.equal(r.customers!.key, 'id')
  assert.deepEqual(r.order_lines!.key, ['order_id', 'line'])
  assert.deepEqual(r.product_tags!.key, ['product_id', 'tag_id'])
  assert.deepEqual(r.measurements!.key, ['id', 'taken_on'])
})

test('field types, required, defaults, identity and serial, lengths, enums, domains and CHECK forms', () => {
  const customers = config.resources!.customers!.fields
  assert.deepEqual(customers.id, { type: 'bigint', readOnly: true, dbDefault: true })
  assert.deepEqual(customers.name, { type: 'string', required: true, maxLength: 100 })
  assert.deepEqual(customers.contact, { type: 'string', maxLength: 200 })
  assert.deepEqual(customers.status, { type: 'string', dbDefault: true, enum: ['active', 'blocked'] })
  assert.deepEqual(customers.tier, { type: 'string', maxLength: 10, enum: ['gold', 'silver'] })
  assert.deepEqual(customers.mood, { type: 'string', enum: ['sad', 'ok', 'happy'] })
  // An enum type and a CHECK: the values both allow; none in common is a comment, never an empty enum.
  assert.deepEqual(customers.calm, { type: 'string', enum: ['ok', 'happy'] })
  assert.deepEqual(customers.never, { type: 'string', enum: ['sad', 'ok', 'happy'] })
  assert.match(text, /\/\/ check customers_never_check not \(all\) turned into options.*no value of never is in both \(sad, ok, happy\) and \(angry, mad\)/)
  assert.deepEqual(customers.created_at, { type: 'timestamp', dbDefault: true })
  const products = config.resources!.products!.fields
  assert.deepEqual(products.id, { type: 'integer', readOnly: true, dbDefault: true })
  assert.deepEqual(products.sku, { type: 'string', required: true, maxLength: 8 })
  assert.deepEqual(products.price, { type: 'decimal', required: true })
  // char(n) reads its values padded: 'A ' is no value of an enum ['A', 'B'].
  assert.deepEqual(products.grade, { type: 'string', maxLength: 2 })
  assert.match(text, /\/\/ check products_grade_check not \(all\) turned into options.*values of grade are read padded/)
  assert.deepEqual(products.qty, { type: 'integer', minimum: 0, maximum: 1000 })
  assert.deepEqual(products.rating, { type: 'integer', minimum: 1, maximum: 5 })
  assert.deepEqual(products.weight, { type: 'number' })
  // 5.4 rounds to 5, so the database takes it: a maximum of 5 would be a wrong option.
  assert.deepEqual(products.approx, { type: 'number' })
  assert.match(text, /\/\/ check products_approx_check not \(all\) turned into options.*it compares approx rounded to a whole number, which a number field is not/)
  assert.deepEqual(products.priority, { type: 'integer', enum: [1, 2, 3] })
  // A domain over a domain: both checks, the exclusive `> 0` of an integer as minimum 1.
  assert.deepEqual(products.stock, { type: 'integer', minimum: 1, maximum: 10 })
  assert.deepEqual(products.double_price, { type: 'decimal', readOnly: true })
  assert.match(text, /\/\/ generated column: the database computes it\n\s+double_price:/)
  assert.match(text, /\/\/ domain small_positive over positive_int over integer\n\s+stock:/)
  assert.match(text, /\/\/ domain check not turned into options: CHECK \(\(\(VALUE\)::text ~ '@'::text\)\)/)
  // What is not read in full stays a comment, and is never half-applied as a wrong option.
  assert.match(text, /\/\/ check products_code_check not \(all\) turned into options, the database still enforces it: CHECK/)
  assert.match(text, /\/\/ check products_weight_check not \(all\) turned into options.*an exclusive minimum \(0\) on a number field/)
  assert.equal(products.code!.enum, undefined)
  assert.deepEqual(config.resources!.tags!.fields.etag_column, { type: 'string', column: 'etag' })
})

test('columns no field type holds are left out, each saying why', () => {
  assert.match(text, /\/\/ left out: search, a text-search vector/)
  assert.match(text, /\/\/ left out: photo, binary data/)
  assert.match(text, /\/\/ left out: legacy_at, timestamp without time zone: the timestamp field type needs timestamptz/)
  assert.match(text, /\/\/ left out: labels, an array \(text\[\]\)/)
  assert.equal(config.resources!.customers!.fields.search, undefined)
})

test('foreign keys become references and relations both ways, named clear of fields', () => {
  const r = config.resources!
  assert.equal(r.orders!.fields.customer_id!.references, 'customers')
  assert.deepEqual(r.orders!.relations, { customer: { field: 'customer_id' }, order_lines: { resource: 'order_lines', by: 'order_id' } })
  assert.deepEqual(r.customers!.relations, { orders: { resource: 'orders', by: 'customer_id' } })
  assert.deepEqual(r.employees!.relations, { manager: { field: 'manager_id' }, employees_by_manager: { resource: 'employees', by: 'manager_id' } })
  assert.deepEqual(r.product_tags!.relations, { product: { field: 'product_id' }, tag: { field: 'tag_id' } })
  assert.deepEqual(r.products!.relations, { order_lines: { resource: 'order_lines', by: 'product_id' }, product_tags: { resource: 'product_tags', by: 'product_id' } })
  assert.deepEqual(r.tags!.relations, { product_tags: { resource: 'product_tags', by: 'tag_id' } })
  // order_lines has a composite key, so nothing references it; it references orders.
  assert.deepEqual(r.order_lines!.relations, { order: { field: 'order_id' }, product: { field: 'product_id' } })
  // A to-many whose link leads no index says so where it is written (product_tags' key leads with product_id).
  assert.match(text, /\/\/ no index of orders starts with customer_id: following orders scans the table\. CREATE INDEX ON orders \(customer_id\)\n\s+orders: \{ resource: 'orders', by: 'customer_id' \},/)
  assert.doesNotMatch(text, /no index of product_tags starts with product_id/)
  assert.match(text, /no index of product_tags starts with tag_id/)
  assert.match(text, /\/\/ foreign key shipments_region_code_region_number_fkey \(region_code, region_number\) → regions: a reference is one field/)
})

test('soft delete, version, owner and tenant are suggested in comments, never switched on', () => {
  assert.match(fieldLine('customers'), /^customers: \{$/)
  assert.match(text, /\/\/ softDelete: 'deleted_at', \/\/ suggested/)
  assert.match(text, /\/\/ version: 'version', \/\/ suggested/)
  assert.match(text, /\/\/ tenant: 'tenant_id', \/\/ suggested/)
  assert.match(text, /\/\/ owner: 'owner_id', \/\/ suggested/)
  assert.equal(config.resources!.customers!.softDelete, undefined)
  assert.equal(config.resources!.customers!.version, undefined)
  assert.equal(config.resources!.orders!.owner, undefined)
})

test('a rerun on the same database writes the same bytes', async () => {
  assert.equal(await initConfig(pool), text)
})

test('--tables narrows the resources; a reference to a table left out is a comment; --views serves a view read-only', async () => {
  const narrow = await initConfig(pool, { tables: ['orders'] })
  const only = await load(narrow, 'narrow')
  assert.deepEqual(Object.keys(only.resources!), ['orders'])
  assert.equal(only.resources!.orders!.fields.customer_id!.references, undefined)
  assert.match(narrow, /\/\/ foreign key orders_customer_id_fkey \(customer_id\) → customers: not a reference, customers is not served/)
  await assert.rejects(initConfig(pool, { tables: ['orders', 'nope'] }), /not in schema public: nope/)
  const withViews = await load(await initConfig(pool, { tables: ['customer_names'], views: true }), 'views')
  assert.deepEqual(withViews.resources!.customer_names, { key: 'id', fields: { id: { type: 'bigint' }, name: { type: 'string', maxLength: 100 } }, access: { read: ['admin'] } })
  const app = await buildApp({ ...withViews, databaseUrl })
  await createUser(app, 'viewer@example.com', 'admin')
  const viewer = caller(app, await bearer(app, 'viewer@example.com'))
  const listed = await viewer('GET', '/api/v1/customer_names')
  assert.equal(listed.status, 200, JSON.stringify(listed.body))
  assert.deepEqual(listed.body.items.map((i: { name: string }) => i.name), ['Ada'])
  const created = await viewer('POST', '/api/v1/customer_names', { payload: { id: '9', name: 'Cy' } })
  assert.equal(created.status, 403, JSON.stringify(created.body))
})

test('another schema: its tables keep their schema, and a foreign key into another schema is a comment', async () => {
  const sales = await initConfig(pool, { schema: 'sales' })
  const loaded = await load(sales, 'sales')
  assert.deepEqual(loaded.resources!.invoices, {
    table: 'sales.invoices',
    key: 'id',
    fields: { id: { type: 'integer', required: true }, customer_id: { type: 'bigint' }, total: { type: 'decimal', required: true } },
    relations: { payments: { resource: 'payments', by: 'Invoice' } },
    access: { read: ['admin'], create: ['admin'], update: ['admin'], delete: ['admin'] },
  })
  // The index to create names the table as SQL must, in its schema.
  assert.match(sales, /\/\/ no index of sales\.payments starts with Invoice: following payments scans the table\. CREATE INDEX ON sales\.payments \("Invoice"\)\n\s+payments: \{ resource: 'payments', by: 'Invoice' \},/)
  assert.match(sales, /\/\/ foreign key invoices_customer_id_fkey \(customer_id\) → a table of another schema: not a reference, a table of another schema is not served/)
  const app = await buildApp({ ...loaded, databaseUrl })
  await createUser(app, 'sales@example.com', 'admin')
  const listed = await caller(app, await bearer(app, 'sales@example.com'))('GET', '/api/v1/invoices')
  assert.equal(listed.status, 200, JSON.stringify(listed.body))
  assert.deepEqual(listed.body.items.map((i: { total: string }) => i.total), ['9.50'])
  assert.equal((await caller(app, await bearer(app, 'sales@example.com'))('GET', '/api/v1/payments')).status, 200)
  // The suggested index is SQL that runs as it is, and then init suggests it no more.
  await pool.query(/CREATE INDEX ON sales\.payments \("Invoice"\)/.exec(sales)![0])
  assert.doesNotMatch(await initConfig(pool, { schema: 'sales' }), /CREATE INDEX/)
})

test('a schema and a table whose names SQL quotes: table quotes them, and the config is served as it is', async () => {
  await pool.query('CREATE SCHEMA "Odd Schema"; CREATE TABLE "Odd Schema"."Items" (id integer PRIMARY KEY, "Label" text NOT NULL); INSERT INTO "Odd Schema"."Items" VALUES (1, \'one\')')
  const odd = await initConfig(pool, { schema: 'Odd Schema' })
  const loaded = await load(odd, 'odd')
  assert.equal(loaded.resources!.Items!.table, '"Odd Schema"."Items"')
  const app = await buildApp({ ...loaded, databaseUrl })
  await createUser(app, 'odd@example.com', 'admin')
  const odder = caller(app, await bearer(app, 'odd@example.com'))
  const listed = await odder('GET', '/api/v1/Items')
  assert.equal(listed.status, 200, JSON.stringify(listed.body))
  assert.deepEqual(listed.body.items.map((i: { Label: string }) => i.Label), ['one'])
  assert.equal((await odder('POST', '/api/v1/Items', { payload: { id: 2, Label: 'two' } })).status, 201)
})

test('the written config is served as it is: an admin lists every resource, and values outside an enum or bound are refused as the database refuses them', async () => {
  const app = await buildApp({ ...config, databaseUrl })
  await createUser(app, 'admin@example.com', 'admin')
  const admin = caller(app, await bearer(app, 'admin@example.com'))
  for (const name of Object.keys(config.resources!)) {
    const listed = await admin('GET', `/api/v1/${name}`)
    assert.equal(listed.status, 200, `${name}: ${JSON.stringify(listed.body)}`)
    assert.equal(listed.headers['ratelimit-policy'], '"read";q=600;w=60')
    assert.ok(listed.body.items.length >= (name === 'orders' || name === 'order_lines' ? 0 : 1), name)
  }
  const embedded = await admin('GET', '/api/v1/employees/2?fields=name,manager.name')
  assert.equal(embedded.status, 200, JSON.stringify(embedded.body))
  assert.equal(embedded.body.manager.name, 'Boss')
  for (const [resource, body, field] of [
    ['customers', { name: 'Bo', status: 'gone' }, 'status'],
    ['customers', { name: 'Bo', mood: 'angry' }, 'mood'],
    ['products', { sku: 'SKU00002', price: '1', rating: 6 }, 'rating'],
    ['products', { sku: 'SKU00002', price: '1', stock: 11 }, 'stock'],
  ] as const) {
    const refused = await admin('POST', `/api/v1/${resource}`, { payload: body })
    assert.equal(refused.status, 400, `${resource}.${field}: ${JSON.stringify(refused.body)}`)
    assert.equal(refused.body.type, 'urn:service:problem:invalid-record')
    assert.deepEqual(refused.body.errors.map((e: { field: string }) => e.field), [field])
    const columns = Object.keys(body)
    await assert.rejects(pool.query(`INSERT INTO ${resource} (${columns.join(', ')}) VALUES (${columns.map((_, i) => `$${i + 1}`).join(', ')})`, Object.values(body)),
      (err: { code?: string }) => ['23514', '22P02'].includes(err.code ?? ''), `the database refuses ${resource}.${field} too`)
  }
  const created = await admin('POST', '/api/v1/customers', { payload: { name: 'Bo', status: 'blocked', mood: 'ok' } })
  assert.equal(created.status, 201, JSON.stringify(created.body))
  assert.equal(created.body.status, 'blocked')
})

test('the login store\'s tables are left out, each with a comment saying why, wherever the store lives', async () => {
  // The apps above made the store where a new database keeps it (tablegate_auth); this one makes
  // it in a schema the config names. Read either way, none of its tables is served.
  await buildApp({ databaseUrl, authSchema: 'logins' })
  const store = ['auth_account', 'auth_invitation', 'auth_key', 'auth_member', 'auth_organization', 'auth_rate_limit', 'auth_revocation', 'auth_session', 'auth_user']
  const why = "never a resource: it is a table of tablegate's own login store, which holds password hashes, session tokens and signing keys and is kept by the login routes and the CLI under rules of their own"
  for (const schema of ['tablegate_auth', 'logins']) {
    const written = await initConfig(pool, { schema })
    const resources = Object.keys((await load(written, `store-${schema}`)).resources ?? {})
    assert.deepEqual(resources.filter((name) => name.startsWith('auth_')), [], schema)
    for (const table of store) assert.ok(written.includes(`// left out: ${table}, ${why}\n`), `${schema}.${table} in\n${written}`)
  }
  assert.deepEqual(Object.keys((await load(await initConfig(pool), 'store-again')).resources!), Object.keys(config.resources!))
})
