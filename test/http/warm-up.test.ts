// No warm-up tax (issue 45, docs/decisions.md "No warm-up tax"): the first page of a new list
// shape runs its page's statement, its estimate's count riding in it, and, where the scan guard
// has not judged the shape yet, the guard's EXPLAIN of each statement it judges; nothing else on
// its path. The planner's figure of an estimate counted to the cap is asked for once the page is
// answered (or taken from the guard's EXPLAIN of the filtered rows, where it just ran), and the
// pages after it say it. A later page of the shape runs its statement alone.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { setTimeout as sleep } from 'node:timers/promises'
import { freshDatabase, runSql, withClient } from '../helpers/db.js'
import { bearer, buildApp, caller, createUser, subjectOf } from '../helpers/app.js'
import { kinds, statementsOf } from '../helpers/statements.js'
import { settledPage } from '../helpers/estimates.js'

const databaseUrl = await freshDatabase()
// 12,000 orders: above the scan guard's 10,000 rows, so its verdict is the planner's to give.
await runSql(databaseUrl, `
  CREATE TABLE wu_customers (id bigserial PRIMARY KEY, country text NOT NULL);
  INSERT INTO wu_customers (country) SELECT chr(65 + n % 20) FROM generate_series(1, 400) AS n;
  CREATE TABLE wu_orders (id bigserial PRIMARY KEY, code integer NOT NULL, customer_id bigint NOT NULL REFERENCES wu_customers (id), owner_id text NOT NULL DEFAULT '');
  INSERT INTO wu_orders (code, customer_id) SELECT n % 1000, 1 + n % 400 FROM generate_series(1, 12000) AS n;
  CREATE INDEX ON wu_orders (code, id);
  CREATE INDEX ON wu_orders (customer_id);
  CREATE INDEX ON wu_orders (owner_id, id);
  CREATE TABLE wu_lines (id bigserial PRIMARY KEY, order_id bigint NOT NULL REFERENCES wu_orders (id), position integer NOT NULL);
  INSERT INTO wu_lines (order_id, position) SELECT o.id, p FROM wu_orders o, generate_series(1, 2) AS p;
  CREATE INDEX ON wu_lines (order_id, position, id);
`)
const orderFields = {
  id: { type: 'bigint', readOnly: true },
  code: { type: 'integer' },
  customer_id: { type: 'bigint', references: 'customers' },
  owner_id: { type: 'string' },
} as const
const app = await buildApp({
  databaseUrl,
  resources: {
    customers: { table: 'wu_customers', fields: { id: { type: 'bigint', readOnly: true }, country: { type: 'string' } } },
    orders: {
      table: 'wu_orders',
      fields: orderFields,
      relations: { customer: { field: 'customer_id' }, lines: { resource: 'lines', by: 'order_id', orderBy: 'position' } },
    },
    // The same rows, each caller reading only their own.
    own_orders: { table: 'wu_orders', fields: orderFields, access: { read: (ctx) => ({ filter: { owner_id: ctx.user.id } }) } },
    lines: { table: 'wu_lines', fields: { id: { type: 'bigint', readOnly: true }, order_id: { type: 'bigint', references: 'orders' }, position: { type: 'integer' } } },
  },
})
await createUser(app, 'ann@example.com')
const auth = await bearer(app, 'ann@example.com')
await runSql(databaseUrl, `UPDATE wu_orders SET owner_id = '${subjectOf(auth)}'; ANALYZE`)
const ann = caller(app, auth)
// The caller's first request reads the login's keys: not a list's doing. One row: no estimate to settle.
assert.equal((await ann('GET', `/api/v1/customers?filter=${encodeURIComponent('id = 1')}`)).status, 200)
const q = encodeURIComponent

/** The statements of one GET of `path`, and the page's answer. */
async function page (path: string): Promise<{ statements: string[], estimate: number }> {
  let estimate = -1
  const statements = await statementsOf(async () => {
    const found = await ann('GET', `/api/v1/${path}`)
    assert.equal(found.status, 200, `${path}: ${JSON.stringify(found.body)}`)
    estimate = found.body.total_size_estimate
  })
  return { statements, estimate }
}

/** The page's statement: the last one sent, a SELECT (nothing runs after it on the request's path), and whether the estimate's count rides in it. */
function pageStatement (statements: readonly string[]): { counts: boolean } {
  const last = statements.at(-1)!
  assert.equal(kinds([last])[0], 'SELECT', statements.join('\n'))
  return { counts: /AS "__estimate"/.test(last) }
}

/** The planner's figure of the orders `filter` keeps: what an estimate past the cap settles on for a caller who sees every row. */
async function plannerRows (filter: string): Promise<number> {
  return await withClient(databaseUrl, async (client) => {
    const { rows } = await client.query(`EXPLAIN (FORMAT JSON) SELECT 1 FROM wu_orders WHERE ${filter}`)
    return rows[0]['QUERY PLAN'][0].Plan['Plan Rows'] as number
  })
}

/** Pages of `path` until its estimate is `settled` (the planner's figure lands once a page is answered). */
async function settledEstimate (path: string, settled: number): Promise<void> {
  await settledPage(ann, `/api/v1/${path}`, settled)
}

test('a new shape\'s first page runs the guard\'s EXPLAIN of each statement it judges and its own statement, no more; its next pages their statement alone', async () => {
  // Each shape's first statements, its first estimate (its count, capped at 1,000), and its
  // estimate once settled: the planner's figure (12,000) where the count reached the cap and the
  // caller sees every row, else the count.
  const shapes: Array<[string, string[], number, number]> = [
    ['orders?page_size=20', ['EXPLAIN', 'SELECT'], 1000, 12000],
    [`orders?page_size=20&filter=${q('code < 50')}`, ['EXPLAIN', 'EXPLAIN', 'SELECT'], 600, 600],
    [`orders?page_size=20&order_by=${q('code desc')}`, ['EXPLAIN', 'SELECT'], 1000, 12000],
    ['own_orders?page_size=20', ['EXPLAIN', 'SELECT'], 1000, 1000],
  ]
  for (const [path, first, counted, settled] of shapes) {
    const { statements, estimate } = await page(path)
    // A plan that reads no table whole is judged as it is: one EXPLAIN a statement, no transaction.
    assert.deepEqual(kinds(statements), first, `${path}:\n${statements.join('\n')}`)
    assert.equal(pageStatement(statements).counts, true, path)
    assert.equal(estimate, counted, path)
    await settledEstimate(path, settled)
    for (let n = 0; n < 3; n++) {
      const later = await page(path)
      assert.deepEqual(kinds(later.statements), ['SELECT'], `${path}, a later page:\n${later.statements.join('\n')}`)
      assert.equal(pageStatement(later.statements).counts, false, path)
      assert.equal(later.estimate, settled, path)
    }
  }
  // Embeds are a shape of the guard's own; the estimate is the list's, settled above.
  const embedded = await page('orders?page_size=20&fields=id,code,customer.country,lines.position')
  assert.deepEqual(kinds(embedded.statements), ['EXPLAIN', 'SELECT'], embedded.statements.join('\n'))
  assert.equal(pageStatement(embedded.statements).counts, false)
  assert.equal(embedded.estimate, 12000)
})

test('past the cap, a new filtered shape\'s estimate takes the planner\'s figure from the guard\'s EXPLAIN of its filtered rows: no EXPLAIN of its own', async () => {
  const filter = 'code > 100'
  const path = `orders?page_size=20&filter=${q(filter)}`
  let first = { statements: [] as string[], estimate: -1 }
  // The page and what runs once it is answered: the estimate's work, if any, starts in the next turn.
  const statements = await statementsOf(async () => {
    first = await page(path)
    await sleep(200)
  })
  // Whatever the guard ran before it, nothing runs after the page's statement (with the estimate's count in it).
  assert.equal(pageStatement(statements).counts, true, statements.join('\n'))
  assert.equal(first.estimate, 1000)
  const planned = await plannerRows(filter)
  assert.ok(planned > 1000, String(planned))
  const next = await page(path)
  assert.deepEqual(kinds(next.statements), ['SELECT'], next.statements.join('\n'))
  assert.equal(next.estimate, planned)
  // A caller narrowed to their own rows keeps the count, the guard's figure at hand or not:
  // table-wide statistics are not theirs to learn.
  const own = `own_orders?page_size=20&filter=${q(filter)}`
  assert.equal((await page(own)).estimate, 1000)
  await sleep(50)
  assert.equal((await page(own)).estimate, 1000)
})

test('a judged shape with a new filter value runs its page\'s statement alone, the count riding in it', async () => {
  // 40 codes of 12 orders each; a country of 20 customers of 30 orders each.
  for (const [judged, fresh, counted] of [['code < 40', 'code < 41', 492], ['customer.country = "C"', 'customer.country = "D"', 600]] as const) {
    await page(`orders?page_size=5&filter=${q(judged)}`)
    const { statements, estimate } = await page(`orders?page_size=5&filter=${q(fresh)}`)
    assert.deepEqual(kinds(statements), ['SELECT'], `${fresh}:\n${statements.join('\n')}`)
    assert.equal(pageStatement(statements).counts, true, fresh)
    assert.equal(estimate, counted, fresh)
  }
})

test('the estimate converges to what it was: the planner\'s figure past the cap for a caller who sees every row, the count for a narrowed one', async () => {
  for (const low of [0, 200]) {
    const path = `orders?page_size=5&filter=${q(`code >= ${low}`)}`
    const first = await page(path)
    assert.equal(first.estimate, 1000, path)
    assert.equal(pageStatement(first.statements).counts, true, path)
    await settledEstimate(path, await plannerRows(`code >= ${low}`))
  }
  // A caller narrowed to their own rows keeps the count: table-wide statistics are not theirs to learn.
  assert.equal((await page('own_orders?page_size=5&order_by=code')).estimate, 1000)
  await sleep(50)
  assert.equal((await page('own_orders?page_size=5&order_by=code')).estimate, 1000)
})
