// A property of filters that traverse relations (fast-check): for random filters over an order's own
// field, its customer, the customer's region and its lines, combined with AND, OR and NOT, the
// orders listed over HTTP are exactly those plain SQL finds when asked the same question over the
// rows the caller may read on each side, written independently (IN over visible rows, not EXISTS).
// The same for random orders on to-one paths (order_by customer.region.name desc, ...), walked page
// by page forward and, through :seek, backward, and for facets by a path.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { databasePool, freshDatabase, runSql } from '../helpers/db.js'
import { bearer, buildApp, caller, createUser } from '../helpers/app.js'
import { RELATIONS_FILTER_CONFIG, RELATIONS_FILTER_SCHEMA } from '../fixtures/relations-filter.js'

const databaseUrl = await freshDatabase()
await runSql(databaseUrl, RELATIONS_FILTER_SCHEMA)
const app = await buildApp({ databaseUrl, ...RELATIONS_FILTER_CONFIG })
await createUser(app, 'admin@example.com', 'admin')
await createUser(app, 'clerk@example.com', 'clerk')
const db = databasePool(databaseUrl, 2)
// The database is dropped (WITH FORCE) after the file, possibly before this pool ends.
db.on('error', () => {})

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

/** An order_by term as text and as SQL over `o`, its visible customer `c` and that customer's region `r`. */
const TERMS = [
  ['id', 'o.id'], ['title', 'o.title'], ['customer.name', 'c.name'], ['customer.country', 'c.country'],
  ['customer.id', 'c.id'], ['customer.region.name', 'r.name'], ['customer.region.id', 'r.id'],
] as const

const order = fc.uniqueArray(fc.tuple(fc.constantFrom(...TERMS), fc.constantFrom('asc', 'desc')), { minLength: 1, maxLength: 3, selector: ([[name]]) => name })
  .map((terms) => {
    const sql = terms.map(([[, column], dir]) => `${column} ${dir.toUpperCase()}`)
    // The key ends every order, in the last term's direction, unless the order names it.
    if (!terms.some(([[name]]) => name === 'id')) sql.push(`o.id ${terms.at(-1)![1].toUpperCase()}`)
    return { text: terms.map(([[name], dir]) => `${name} ${dir}`).join(', '), sql: sql.join(', ') }
  })

const idsOf = (body: { items: Array<{ id: string }> }): string[] => body.items.map((o) => o.id)

test('an order on to-one paths pages through exactly the rows plain SQL orders so, forward and backward', async () => {
  await fc.assert(fc.asyncProperty(order, fc.option(filter, { freq: 3 }), fc.integer({ min: 1, max: 4 }), fc.constantFrom('admin', 'clerk' as const), async (ordered, condition, size, who) => {
    const { call, visible } = CALLERS[who as keyof typeof CALLERS]
    const expected = (await db.query<{ id: string }>(`${visible} SELECT o.id FROM orders o LEFT JOIN vc c ON c.id = o.customer_id LEFT JOIN regions r ON r.id = c.region_id
      WHERE o.deleted_at IS NULL AND ${condition?.sql ?? 'true'} ORDER BY ${ordered.sql}`)).rows.map((r) => r.id)
    const base = `/api/v1/orders?fields=id&order_by=${encodeURIComponent(ordered.text)}${condition === null ? '' : `&filter=${encodeURIComponent(condition.text)}`}`
    const label = `${who}: ${ordered.text} / ${condition?.text ?? ''} / ${size}`
    const seen: string[] = []
    let token = ''
    do {
      const page = await call('GET', `${base}&page_size=${size}${token === '' ? '' : `&page_token=${encodeURIComponent(token)}`}`)
      assert.equal(page.status, 200, `${label}: ${JSON.stringify(page.body)}`)
      seen.push(...idsOf(page.body))
      token = page.body.next_page_token
    } while (token !== '' && seen.length <= expected.length)
    assert.deepEqual(seen, expected, label)
    if (expected.length === 0) return
    // Backward from the last page of a seek, by its previous-page tokens.
    const seek = base.replace('/orders?', '/orders:seek?')
    let page = await call('GET', `${seek}&page_size=${size}&position=${Math.floor((expected.length - 1) / size) * size}`)
    const back = idsOf(page.body)
    while (page.body.prev_page_token !== '' && back.length <= expected.length) {
      page = await call('GET', `${seek}&page_size=${size}&page_token=${encodeURIComponent(page.body.prev_page_token)}`)
      assert.equal(page.status, 200, `${label}: ${JSON.stringify(page.body)}`)
      back.unshift(...idsOf(page.body))
    }
    assert.deepEqual(back, expected, `${label} (backward)`)
  }), { numRuns: 150 })
})

test('facets by a to-one path count exactly what plain SQL counts over the caller\'s visible rows', async () => {
  const FIELDS = [['customer.country', 'c.country'], ['customer.region.name', 'r.name'], ['customer.name', 'c.name']] as const
  await fc.assert(fc.asyncProperty(fc.constantFrom(...FIELDS), fc.option(filter, { freq: 3 }), fc.constantFrom('admin', 'clerk' as const), async ([field, column], condition, who) => {
    const { call, visible } = CALLERS[who as keyof typeof CALLERS]
    const expected = await db.query(`${visible} SELECT ${column} AS value, count(*)::int AS count FROM orders o LEFT JOIN vc c ON c.id = o.customer_id LEFT JOIN regions r ON r.id = c.region_id
      WHERE o.deleted_at IS NULL AND ${condition?.sql ?? 'true'} GROUP BY 1 ORDER BY 2 DESC, 1 ASC`)
    const found = await call('GET', `/api/v1/orders:facets?field=${field}${condition === null ? '' : `&filter=${encodeURIComponent(condition.text)}`}`)
    assert.equal(found.status, 200, JSON.stringify(found.body))
    assert.deepEqual(found.body.facets, expected.rows, `${who}: ${field} / ${condition?.text ?? ''}`)
  }), { numRuns: 100 })
})
