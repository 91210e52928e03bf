// A property of filters that traverse relations (fast-check): for random filters over an order's own
// field, its customer, the customer's region and its lines, combined with AND, OR and NOT, the
// orders listed over HTTP are exactly those plain SQL finds when asked the same question over the
// rows the caller may read on each side, written independently (IN over visible rows, not EXISTS).
import { after, test } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import pg from 'pg'
import { freshDatabase, runSql } from '../helpers/db.js'
import { bearer, buildApp, caller, createUser } from '../helpers/app.js'
import { RELATIONS_FILTER_CONFIG, RELATIONS_FILTER_SCHEMA } from '../fixtures/relations-filter.js'

const databaseUrl = await freshDatabase()
await runSql(databaseUrl, RELATIONS_FILTER_SCHEMA)
const app = await buildApp({ databaseUrl, ...RELATIONS_FILTER_CONFIG })
await createUser(app, 'admin@example.com', 'admin')
await createUser(app, 'clerk@example.com', 'clerk')
const db = new pg.Pool({ connectionString: databaseUrl, max: 2 })
// The database is dropped (WITH FORCE) after the file, possibly before this pool ends.
db.on('error', () => {})
after(async () => { await db.end() })

/** Each caller's rows, as the fixture's rules say, written out by hand. */
const CALLERS = {
  admin: {
    call: caller(app, await bearer(app, 'admin@example.com')),
    visible: `WITH vc AS (SELECT * FROM customers WHERE tenant_id = 't1' AND deleted_at IS NULL),
      vl AS (SELECT * FROM order_lines WHERE deleted_at IS NULL)`,
  },
  clerk: {
    call: caller(app, await bearer(app, 'clerk@example.com')),
    visible: `WITH vc AS (SELECT * FROM customers WHERE tenant_id = 't1' AND deleted_at IS NULL AND segment = 'retail'),
      vl AS (SELECT * FROM order_lines WHERE deleted_at IS NULL AND NOT internal)`,
  },
}

/** A condition as filter text and as SQL over the caller's visible rows; the SQL is never NULL. */
interface Condition { readonly text: string, readonly sql: string }

const OPS = [['=', '='], ['!=', '<>'], ['<', '<'], ['<=', '<='], ['>', '>'], ['>=', '>=']] as const
const viaCustomer = (where: string): string => `COALESCE(o.customer_id IN (SELECT id FROM vc WHERE ${where}), false)`
const viaLines = (where: string): string => `o.id IN (SELECT order_id FROM vl WHERE ${where})`

const atom: fc.Arbitrary<Condition> = fc.oneof(
  fc.tuple(fc.constantFrom('one', 'two', 'six', 'seven'), fc.constantFrom(OPS[0], OPS[1]))
    .map(([title, [op, sqlOp]]) => ({ text: `title ${op} "${title}"`, sql: `o.title ${sqlOp} '${title}'` })),
  fc.tuple(fc.constantFrom('DE', 'FR', 'XX'), fc.constantFrom(OPS[0], OPS[1]))
    .map(([country, [op, sqlOp]]) => ({ text: `customer.country ${op} "${country}"`, sql: viaCustomer(`country ${sqlOp} '${country}'`) })),
  fc.constantFrom('al', 'TA', 'e').map((part) => ({ text: `customer.name:"${part}"`, sql: viaCustomer(`name ILIKE '%${part}%'`) })),
  fc.constant({ text: 'isNull(customer.country)', sql: viaCustomer('country IS NULL') }),
  fc.constantFrom('EU', 'US').map((region) => ({
    text: `customer.region.name = "${region}"`,
    sql: viaCustomer(`region_id IN (SELECT id FROM regions WHERE name = '${region}')`),
  })),
  fc.tuple(fc.constantFrom('A', 'B', 'C', 'Z'), fc.constantFrom(OPS[0], OPS[1]))
    .map(([sku, [op, sqlOp]]) => ({ text: `lines.sku ${op} "${sku}"`, sql: viaLines(`sku ${sqlOp} '${sku}'`) })),
  fc.tuple(fc.integer({ min: 0, max: 11 }), fc.constantFrom(...OPS))
    .map(([n, [op, sqlOp]]) => ({ text: `lines.quantity ${op} ${n}`, sql: viaLines(`quantity ${sqlOp} ${n}`) })),
  fc.subarray(['A', 'B', 'C', 'Z'], { minLength: 1 })
    .map((skus) => ({ text: `in(lines.sku, ${skus.join(', ')})`, sql: viaLines(`sku IN (${skus.map((s) => `'${s}'`).join(', ')})`) })),
)

const filter: fc.Arbitrary<Condition> = fc.letrec<{ node: Condition }>((tie) => ({
  node: fc.oneof({ maxDepth: 3, depthIdentifier: 'filter' },
    atom,
    fc.tuple(tie('node'), fc.constantFrom('AND', 'OR'), tie('node')).map(([a, join, b]) => ({ text: `(${a.text} ${join} ${b.text})`, sql: `(${a.sql} ${join} ${b.sql})` })),
    tie('node').map((a) => ({ text: `NOT ${a.text.startsWith('(') ? a.text : `(${a.text})`}`, sql: `NOT (${a.sql})` })),
  ),
})).node

test('a traversed filter lists exactly the orders plain SQL finds over the caller\'s visible rows', async () => {
  await fc.assert(fc.asyncProperty(filter, fc.constantFrom('admin', 'clerk' as const), async (condition, who) => {
    const { call, visible } = CALLERS[who as keyof typeof CALLERS]
    const listed = await call('GET', `/api/v1/orders?page_size=100&order_by=id&fields=id&filter=${encodeURIComponent(condition.text)}`)
    assert.equal(listed.status, 200, `${condition.text}: ${JSON.stringify(listed.body)}`)
    const expected = await db.query<{ id: string }>(`${visible} SELECT o.id FROM orders o WHERE o.deleted_at IS NULL AND ${condition.sql} ORDER BY o.id`)
    assert.deepEqual(listed.body.items.map((o: { id: string }) => o.id), expected.rows.map((r) => r.id), `${who}: ${condition.text}`)
  }), { numRuns: 300 })
})
