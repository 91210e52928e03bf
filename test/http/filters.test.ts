// Filters, ordering and keyset pages through HTTP on real PostgreSQL: each filter form returns the
// right rows, each order walks every row exactly once (checked against plain SQL), and each error
// row and limit answers with its exact problem body.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import pg from 'pg'
import { freshDatabase, runSql } from '../helpers/db.js'
import { tamperedPageToken } from '../helpers/page-tokens.js'
import { buildApp, createUser, bearer, caller, filteredTitles, type CallResult } from '../helpers/app.js'
import { SHOP_RESOURCES, SHOP_SCHEMA } from '../fixtures/shop.js'
import type { Config } from '../../lib/config/schema.js'

const SCHEMA = `${SHOP_SCHEMA}
CREATE TYPE mood AS ENUM ('calm', 'wild');
ALTER TABLE orders ADD COLUMN paid boolean, ADD COLUMN secret text, ADD COLUMN mood mood, ADD COLUMN rank int4, ADD COLUMN weight real, ADD COLUMN qty int4;
INSERT INTO orders (title, status, total, position, placed_at, due_on, meta, code, paid, secret, mood, deleted_at) VALUES
  ('Green tea', 'open', 10.50, 1, now() - interval '1 day', '2026-01-10', '{"gift": true}', 'GT-1', true, 's1', 'calm', NULL),
  ('Black tea', 'open', 25.00, 2, now() - interval '10 days', '2026-02-01', '{"rush": 1}', 'BT-2', false, 's2', 'wild', NULL),
  ('Coffee beans', 'draft', 99.99, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
  ('Tea pot *special*', 'locked', 5.00, 3, now() - interval '3 hours', '2026-01-31', '{}', 'TP-3', true, NULL, 'calm', NULL),
  ('Mug 100%_off', 'draft', NULL, 4, now() - interval '30 days', '2025-12-24', '{"gift": false}', 'MUG_4', false, NULL, NULL, NULL),
  ('Deleted tea', 'open', 1.00, 5, now() - interval '2 days', NULL, NULL, 'DEL-5', true, NULL, NULL, now()),
  ('Matcha', 'open', 42.00, NULL, now() + interval '1 day', '2026-03-01', '{"gift": true, "rush": 2}', 'MAT-7', NULL, NULL, 'wild', NULL);
INSERT INTO lines (region, number, note)
  SELECT (ARRAY['eu', 'us', 'ap'])[1 + n % 3], n, (ARRAY['b', NULL, 'a', 'c', NULL, 'a'])[1 + n % 6]
  FROM generate_series(1, 40) AS n;
UPDATE orders SET rank = 7, weight = 0.1, qty = 3 WHERE title = 'Green tea';
`

const orders = SHOP_RESOURCES.orders!
const RESOURCES: NonNullable<Config['resources']> = {
  ...SHOP_RESOURCES,
  orders: {
    ...orders,
    fields: {
      ...orders.fields,
      title: { ...orders.fields.title!, searchable: true },
      code: { type: 'string', searchable: true },
      paid: { type: 'boolean' },
      secret: { type: 'string', filterable: false, sortable: false },
      mood: { type: 'string' },
      // Field types wider than their columns.
      rank: { type: 'bigint' },
      weight: { type: 'number' },
      qty: { type: 'decimal' },
    },
  },
}

const databaseUrl = await freshDatabase()
await runSql(databaseUrl, SCHEMA)
const app = await buildApp({ databaseUrl, resources: RESOURCES })
await createUser(app, 'admin@example.com')
const call = caller(app, await bearer(app, 'admin@example.com'))

async function sqlRows<T> (text: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: databaseUrl })
  await client.connect()
  try {
    return (await client.query(text, values)).rows as T[]
  } finally {
    await client.end()
  }
}

const q = encodeURIComponent

const titles = async (filter: string, extra = ''): Promise<string[]> => await filteredTitles(call, '/api/v1/orders', filter, extra)

const GREEN = 'Green tea'
const BLACK = 'Black tea'
const COFFEE = 'Coffee beans'
const POT = 'Tea pot *special*'
const MUG = 'Mug 100%_off'
const MATCHA = 'Matcha'
const DELETED = 'Deleted tea'

async function expectRows (rows: ReadonlyArray<readonly [string, readonly string[]]>, extra = ''): Promise<void> {
  for (const [filter, expected] of rows) assert.deepEqual(await titles(filter, extra), expected, filter)
}

function assertProblem (response: CallResult, slug: string, status = 400): void {
  assert.equal(response.status, status, JSON.stringify(response.body))
  assert.match(String(response.headers['content-type']), /^application\/problem\+json/)
  assert.equal(response.body.type, `urn:service:problem:${slug}`)
}

test('comparisons on strings, numbers, booleans, dates, timestamps and keys', async () => {
  await expectRows([
    ['status = open', [GREEN, BLACK, MATCHA]],
    ['status = "open"', [GREEN, BLACK, MATCHA]],
    ["status = 'open'", [GREEN, BLACK, MATCHA]],
    ['status != open', [COFFEE, POT, MUG]],
    ['total > 10', [GREEN, BLACK, COFFEE, MATCHA]],
    ['total >= 25', [BLACK, COFFEE, MATCHA]],
    ['total < 10', [POT]],
    ['total <= 10.5', [GREEN, POT]],
    ['total = 1e2', []],
    ['position = 3', [POT]],
    ['position != 3', [GREEN, BLACK, MUG]],
    ['id = 2', [BLACK]],
    ['id > 4', [MUG, MATCHA]],
    ['paid = true', [GREEN, POT]],
    ['paid != true', [BLACK, MUG]],
    ['due_on >= 2026-01-31', [BLACK, POT, MATCHA]],
    ['due_on = "2026-01-10"', [GREEN]],
    ['placed_at >= "2000-01-01T00:00:00Z"', [GREEN, BLACK, POT, MUG, MATCHA]],
    ['placed_at < "2000-01-01T00:00:00+02:00"', []],
    ['title = "Green tea"', [GREEN]],
    ['title = "green tea"', []],
    ['title > "M"', await sqlTitles("title > 'M'")],
    ['version = 1', [GREEN, BLACK, COFFEE, POT, MUG, MATCHA]],
    // Field types wider than their columns: values the column cannot hold match nothing.
    ['rank = 3000000000', []],
    ['rank = 7', [GREEN]],
    ['in(rank, 7, 9223372036854775807)', [GREEN]],
    ['weight = 0.1', [GREEN]],
    ['weight < 1e30', [GREEN]],
    ['qty = 1.5', []],
    ['qty = 3', [GREEN]],
    ['qty > 2.5', [GREEN]],
  ])
})

async function sqlTitles (where: string): Promise<string[]> {
  return (await sqlRows<{ title: string }>(`SELECT title FROM orders WHERE deleted_at IS NULL AND (${where}) ORDER BY id`)).map((r) => r.title)
}

test('logic: OR binds tighter than AND, adjacent terms are ANDed, NOT and - negate, parentheses group', async () => {
  await expectRows([
    ['status = open OR status = draft', [GREEN, BLACK, COFFEE, MUG, MATCHA]],
    ['status = open AND total > 20', [BLACK, MATCHA]],
    ['status = open total > 20', [BLACK, MATCHA]],
    // AIP-160: (total > 90 OR position = 1) AND status = open; SQL precedence would add Coffee beans.
    ['total > 90 OR position = 1 AND status = open', [GREEN]],
    ['(status = draft OR status = locked) AND (total < 50 OR total = null)', [POT, MUG]],
    ['NOT status = open', [COFFEE, POT, MUG]],
    ['-status = open', [COFFEE, POT, MUG]],
    ['NOT (status = open OR status = draft)', [POT]],
    ['-(total > 10)', [POT]],
  ])
})

test('null, presence, json keys and isNull', async () => {
  await expectRows([
    ['total = null', [MUG]],
    ['total != null', [GREEN, BLACK, COFFEE, POT, MATCHA]],
    ['meta = null', [COFFEE]],
    ['isNull(meta)', [COFFEE]],
    ['isNull(position)', [COFFEE, MATCHA]],
    ['NOT isNull(position)', [GREEN, BLACK, POT, MUG]],
    ['paid = null', [COFFEE, MATCHA]],
    ['code:*', [GREEN, BLACK, POT, MUG, MATCHA]],
    ['-code:*', [COFFEE]],
    ['meta:gift', [GREEN, MUG, MATCHA]],
    ['meta:rush', [BLACK, MATCHA]],
    ['meta:gift meta:rush', [MATCHA]],
    ['meta:"no such key"', []],
    // SQL's three-valued logic: a NULL meta is neither with nor without the key.
    ['-meta:gift', [BLACK, POT]],
  ])
})

test('wildcards, escaped stars and contains', async () => {
  await expectRows([
    ['title = "*tea"', [GREEN, BLACK]],
    ['title = Tea*', [POT]],
    ['title != "*tea"', [COFFEE, POT, MUG, MATCHA]],
    ['title = "*\\*special\\*"', [POT]],
    ['title = "Tea pot \\*special\\*"', [POT]],
    ['title = "\\*special\\*"', []],
    ['title:TEA', [GREEN, BLACK, POT]],
    ['title:"pot *"', [POT]],
    // LIKE's own % and _ are literal in a filter.
    ['title:"%_"', [MUG]],
    ['title:"100%"', [MUG]],
    ['title = "Mug 100%_off"', [MUG]],
    ['title = "Mug 1__%"', []],
    ['code:_', [MUG]],
    ['-title:tea', [COFFEE, MUG, MATCHA]],
  ])
})

test('in(), search() and bare words, similar(), regex() and now()', async () => {
  const similar = (await sqlRows<{ title: string }>("SELECT title FROM orders WHERE deleted_at IS NULL AND title % 'Gren tea' ORDER BY id")).map((r) => r.title)
  assert.ok(similar.includes(GREEN))
  await expectRows([
    ['in(status, draft, locked)', [COFFEE, POT, MUG]],
    ['in(position, 1, 3)', [GREEN, POT]],
    ['in(id, 1, 7, 999)', [GREEN, MATCHA]],
    ['search("tea")', [GREEN, BLACK, POT]],
    ['search("gt-")', [GREEN]],
    ['pot', [POT]],
    ['black tea', [BLACK]],
    ['"black tea"', [BLACK]],
    ['"tea black"', []],
    ['tea -black', [GREEN, POT]],
    ['similar(title, "Gren tea")', similar],
    ['regex(title, "^[GB].*tea$")', [GREEN, BLACK]],
    ['regex(code, "^[A-Z]{2}-[0-9]$")', [GREEN, BLACK, POT]],
    ['regex(title, "\\\\*")', [POT]],
    ['placed_at > now() - 7d', [GREEN, POT, MATCHA]],
    ['placed_at > now() -7d', [GREEN, POT, MATCHA]],
    ['placed_at < now()', [GREEN, BLACK, POT, MUG]],
    ['placed_at > now() + 1h', [MATCHA]],
    ['placed_at > now()+1h', [MATCHA]],
    ['placed_at < now() - 2w', [MUG]],
    ['placed_at > now() - 240m AND placed_at < now() - 7200s', [POT]],
  ])
})

test('a string field on an enum column: equality, has, patterns and regex', async () => {
  await expectRows([
    ['mood = wild', [BLACK, MATCHA]],
    // On an enum, : is equality with one of its labels (case-sensitive), not contains.
    ['mood:calm', [GREEN, POT]],
    ['regex(mood, "^w")', [BLACK, MATCHA]],
    ['mood = "cal*"', [GREEN, POT]],
    ['in(mood, calm)', [GREEN, POT]],
  ])
  const refused = await call('GET', `/api/v1/orders?filter=${q('mood = nope')}`)
  assert.equal(refused.status, 400)
  assert.equal(refused.body.type, 'urn:service:problem:invalid-filter')
  assert.deepEqual(refused.body.errors, [{ code: 'type-mismatch', message: "The value is not one of the values of field 'mood'.", hint: 'One of: calm, wild.', span: { start: 7, end: 11 } }])
  assert.equal((await call('GET', `/api/v1/orders?filter=${q('in(mood, calm, nope)')}`)).status, 400)
  assert.equal((await call('GET', `/api/v1/orders?filter=${q('mood:CAL')}`)).status, 400)
})

test('soft-deleted rows count only with show_deleted=true', async () => {
  assert.deepEqual(await titles('title:deleted'), [])
  assert.deepEqual(await titles('title:deleted', '&show_deleted=true'), [DELETED])
  assert.deepEqual(await titles('deleted_at != null', '&show_deleted=true'), [DELETED])
  assert.deepEqual(await titles('deleted_at != null'), [])
})

async function orderedTitles (orderBy: string): Promise<string[]> {
  const response = await call('GET', `/api/v1/orders?page_size=500&order_by=${q(orderBy)}`)
  assert.equal(response.status, 200, JSON.stringify(response.body))
  return response.body.items.map((item: { title: string }) => item.title)
}

test('order_by asc and desc: NULLs last ascending, first descending; the key breaks ties', async () => {
  assert.deepEqual(await orderedTitles('total desc'), [MUG, COFFEE, MATCHA, BLACK, GREEN, POT])
  assert.deepEqual(await orderedTitles('total'), [POT, GREEN, BLACK, MATCHA, COFFEE, MUG])
  assert.deepEqual(await orderedTitles('total asc'), [POT, GREEN, BLACK, MATCHA, COFFEE, MUG])
  assert.deepEqual(await orderedTitles('position desc, title'), [COFFEE, MATCHA, MUG, POT, BLACK, GREEN])
  assert.deepEqual(await orderedTitles('status, total desc'), [MUG, COFFEE, POT, MATCHA, BLACK, GREEN])
  assert.deepEqual(await orderedTitles('id desc'), [MATCHA, MUG, POT, COFFEE, BLACK, GREEN])
  assert.deepEqual(await orderedTitles('mood desc, title'), [COFFEE, MUG, BLACK, MATCHA, GREEN, POT])
  // Ties on status are broken by the key.
  assert.deepEqual(await orderedTitles('status'), [COFFEE, MUG, POT, GREEN, BLACK, MATCHA])
})

/** Walks every page of a list; returns the items in order and the envelopes seen. */
async function walk (resource: string, params: Record<string, string>): Promise<{ items: any[], pages: any[] }> {
  const items: any[] = []
  const pages: any[] = []
  let token = ''
  for (let page = 0; page < 1000; page++) {
    const query = new URLSearchParams({ ...params, ...(token === '' ? {} : { page_token: token }) })
    const response = await call('GET', `/api/v1/${resource}?${query.toString()}`)
    assert.equal(response.status, 200, JSON.stringify(response.body))
    pages.push(response.body)
    items.push(...response.body.items)
    token = response.body.next_page_token
    if (token === '') return { items, pages }
    assert.equal(response.body.items.length, Number(params.page_size), 'only the last page is short')
  }
  assert.fail('the walk did not end')
}

/** The ORDER BY of an order_by text, as the API reads it: the key last, in the last term's direction. */
function sqlOrder (orderBy: string, key: readonly string[]): string {
  const terms = orderBy.split(',').map((t) => t.trim()).filter((t) => t !== '').map((t) => {
    const [name, direction] = t.split(/\s+/)
    return { name: name!, direction: (direction ?? 'asc').toUpperCase() }
  })
  const last = terms.at(-1)?.direction ?? 'ASC'
  for (const k of key) if (!terms.some((t) => t.name === k)) terms.push({ name: k, direction: last })
  return terms.map((t) => `"${t.name}" ${t.direction}`).join(', ')
}

test('keyset pages return every row exactly once, in the order plain SQL gives, for many orders', async () => {
  const lineOrders = ['', 'note', 'note desc', 'number desc', 'note desc, number', 'region desc, note', 'note, region desc', 'updated_at desc', 'number']
  for (const orderBy of lineOrders) {
    const expected = (await sqlRows<{ region: string, number: number }>(`SELECT region, number FROM lines ORDER BY ${sqlOrder(orderBy, ['region', 'number'])}`)).map((r) => `${r.region},${r.number}`)
    assert.equal(expected.length, 40)
    for (const pageSize of ['1', '3', '7', '40', '500']) {
      const { items, pages } = await walk('lines', { order_by: orderBy, page_size: pageSize })
      assert.deepEqual(items.map((r) => `${r.region},${r.number}`), expected, `order_by=${orderBy} page_size=${pageSize}`)
      // The page query reads one row more than the page, so no empty last page is ever needed.
      assert.equal(pages.length, Math.ceil(40 / Number(pageSize)))
    }
  }
  const filtered = (await sqlRows<{ region: string, number: number }>(`SELECT region, number FROM lines WHERE note = 'a' OR number < 4 ORDER BY ${sqlOrder('note desc', ['region', 'number'])}`)).map((r) => `${r.region},${r.number}`)
  const { items } = await walk('lines', { filter: 'note:a OR number < 4', order_by: 'note desc', page_size: '2' })
  assert.deepEqual(items.map((r) => `${r.region},${r.number}`), filtered)

  const orderOrders = ['', 'total desc', 'total', 'position desc, title', 'status, total desc', 'placed_at desc', 'due_on', 'code desc', 'paid, total', 'mood desc', 'title desc', 'id desc']
  for (const orderBy of orderOrders) {
    const expected = (await sqlRows<{ id: string }>(`SELECT id::text FROM orders WHERE deleted_at IS NULL ORDER BY ${sqlOrder(orderBy, ['id'])}`)).map((r) => r.id)
    for (const pageSize of ['1', '2', '4']) {
      const { items } = await walk('orders', { order_by: orderBy, page_size: pageSize, show_deleted: 'false' })
      assert.deepEqual(items.map((r) => r.id), expected, `order_by=${orderBy} page_size=${pageSize}`)
    }
    const withDeleted = (await sqlRows<{ id: string }>(`SELECT id::text FROM orders ORDER BY ${sqlOrder(orderBy, ['id'])}`)).map((r) => r.id)
    const { items } = await walk('orders', { order_by: orderBy, page_size: '2', show_deleted: 'true', filter: 'id > 0' })
    assert.deepEqual(items.map((r) => r.id), withDeleted, `show_deleted order_by=${orderBy}`)
  }
})

test('total_size_estimate is always present; count=exact adds total_size', async () => {
  const { pages } = await walk('lines', { page_size: '7' })
  for (const page of pages) {
    assert.equal(Number.isInteger(page.total_size_estimate), true)
    assert.ok(page.total_size_estimate >= page.items.length)
    assert.equal('total_size' in page, false)
  }
  const empty = await call('GET', `/api/v1/orders?filter=${q('title = nothing')}`)
  assert.deepEqual({ items: empty.body.items, next: empty.body.next_page_token, estimate: empty.body.total_size_estimate }, { items: [], next: '', estimate: 0 })
  const all = await call('GET', '/api/v1/orders')
  assert.equal(all.body.total_size_estimate, 6)
  const counted = await call('GET', `/api/v1/lines?page_size=5&count=exact&filter=${q('number > 10')}`)
  assert.equal(counted.status, 200)
  assert.equal(counted.body.items.length, 5)
  assert.equal(counted.body.total_size, 30)
  assert.equal(Number.isInteger(counted.body.total_size_estimate), true)
  const next = await call('GET', `/api/v1/lines?page_size=5&count=exact&filter=${q('number > 10')}&page_token=${q(counted.body.next_page_token)}`)
  assert.equal(next.body.total_size, 30)
  assertProblem(await call('GET', '/api/v1/lines?count=approximate'), 'invalid-parameter')
})

test('a page token works only with the filter, order_by and show_deleted it was issued for', async () => {
  const first = await call('GET', `/api/v1/lines?page_size=2&order_by=${q('note desc')}&filter=${q('number > 3')}`)
  const token = q(first.body.next_page_token)
  assert.notEqual(first.body.next_page_token, '')
  const same = await call('GET', `/api/v1/lines?page_size=2&order_by=${q('note desc')}&filter=${q('number > 3')}&page_token=${token}`)
  assert.equal(same.status, 200)
  // page_size may change between pages.
  assert.equal((await call('GET', `/api/v1/lines?page_size=5&order_by=${q('note desc')}&filter=${q('number > 3')}&page_token=${token}`)).status, 200)
  const detail = 'page_token belongs to a list with other parameters: send the same filter, order_by and show_deleted as the first page.'
  for (const url of [
    `/api/v1/lines?page_size=2&order_by=${q('note desc')}&filter=${q('number > 4')}&page_token=${token}`,
    `/api/v1/lines?page_size=2&order_by=${q('note desc')}&page_token=${token}`,
    `/api/v1/lines?page_size=2&order_by=${q('note')}&filter=${q('number > 3')}&page_token=${token}`,
    `/api/v1/lines?page_size=2&filter=${q('number > 3')}&page_token=${token}`,
  ]) {
    const response = await call('GET', url)
    assertProblem(response, 'invalid-parameter')
    assert.deepEqual(response.body, { type: 'urn:service:problem:invalid-parameter', title: 'Invalid parameter', status: 400, detail, instance: url, errors: [{ parameter: 'page_token', message: detail }] })
  }
  const other = await call('GET', `/api/v1/orders?page_size=2&page_token=${token}`)
  assertProblem(other, 'invalid-parameter')
  const tampered = tamperedPageToken(first.body.next_page_token)
  assertProblem(await call('GET', `/api/v1/lines?page_size=2&order_by=${q('note desc')}&filter=${q('number > 3')}&page_token=${q(tampered)}`), 'invalid-parameter')
  // A token from :search works on GET with the same parameters, and the reverse.
  const searched = await call('POST', '/api/v1/lines:search', { payload: { page_size: 2, order_by: 'note desc', filter: 'number > 3' } })
  assert.equal(searched.body.next_page_token !== '', true)
  const continued = await call('GET', `/api/v1/lines?page_size=2&order_by=${q('note desc')}&filter=${q('number > 3')}&page_token=${q(searched.body.next_page_token)}`)
  assert.deepEqual(continued.body.items, same.body.items)
})

function filterProblem (url: string, errors: unknown[], detail?: string): unknown {
  return { type: 'urn:service:problem:invalid-filter', title: 'Invalid filter', status: 400, detail: detail ?? (errors[0] as { message: string }).message, instance: url, parameter: 'filter', errors }
}

async function getProblem (url: string): Promise<CallResult> {
  const response = await call('GET', url)
  assertProblem(response, url.includes('order_by=') && !url.includes('filter=') ? 'invalid-order-by' : 'invalid-filter')
  return response
}

test('error rows: unknown field with a hint, type mismatch, syntax, regex, unknown function', async () => {
  const cases: Array<[string, unknown[], string?]> = [
    ['titel = x', [{ code: 'unknown-field', message: "There is no field 'titel' to filter on.", hint: "Did you mean 'title'?", span: { start: 0, end: 5 } }]],
    ['total = abc', [{ code: 'type-mismatch', message: "The value is not a valid decimal for field 'total'.", hint: 'Use a number such as 4.50.', span: { start: 8, end: 11 } }]],
    ['placed_at > 2026-02-30', [{ code: 'type-mismatch', message: "The value is not a valid timestamp for field 'placed_at'.", hint: 'Use an RFC 3339 timestamp such as 2026-01-31T12:00:00Z or 2026-01-31T13:00:00+01:00, or now() - 7d.', span: { start: 12, end: 22 } }]],
    ['position > 7d', [{ code: 'type-mismatch', message: "The value is not a valid integer for field 'position'.", hint: 'A duration goes with now(): placed_at > now() - 7d.', span: { start: 11, end: 13 } }]],
    ['paid > true', [{ code: 'unsupported-operator', message: "Field 'paid' is a boolean: use = or !=.", span: { start: 0, end: 11 } }]],
    ['total < null', [{ code: 'invalid-null', message: 'Only = and != compare with null.', hint: 'Write total = null or total != null.', span: { start: 0, end: 12 } }]],
    ['(status = open', [{ code: 'syntax', message: 'A parenthesis is not closed.', hint: 'Add the matching ).', span: { start: 0, end: 1 } }]],
    ['status = open AND', [{ code: 'syntax', message: 'AND needs a condition after it.', span: { start: 17, end: 17 } }]],
    ['title = "open', [{ code: 'unterminated-string', message: 'A string is not closed.', hint: 'Close it with ".', span: { start: 8, end: 13 } }]],
    ['regex(title, "(")', [{ code: 'invalid-regex', message: 'The regular expression is not valid.', span: { start: 13, end: 16 } }]],
    // Valid for JavaScript, refused by PostgreSQL: still caught before the database sees it.
    ['regex(title, "a{1,2")', [{ code: 'invalid-regex', message: 'The regular expression is not valid.', span: { start: 13, end: 20 } }]],
    ['regex(title, "\\\\q")', [{ code: 'invalid-regex', message: 'The regular expression is not valid.', span: { start: 13, end: 18 } }]],
    ['lower(title) = x', [{ code: 'syntax', message: 'A function cannot stand left of a comparison.', hint: 'Put the field on the left: placed_at > now() - 7d.', span: { start: 13, end: 14 } }]],
    ['lower(title)', [{ code: 'unknown-function', message: "There is no function 'lower'.", hint: 'Functions: in(), search(), similar(), regex(), isNull(), now().', span: { start: 0, end: 5 } }]],
    ['serch("x")', [{ code: 'unknown-function', message: "There is no function 'serch'.", hint: 'Did you mean search()?', span: { start: 0, end: 5 } }]],
    ['placed_at > now() - 7 days', [{ code: 'invalid-duration', message: 'Not a duration.', hint: 'Use a number and a unit: 90s, 15m, 12h, 7d or 2w.', span: { start: 20, end: 21 } }]],
    ['meta = 1', [{ code: 'unsupported-operator', message: "Field 'meta' is json: it cannot be compared.", hint: 'Compare a key inside it (field.key = "text", field.key > 40), or test field:key, field:* or isNull(field).', span: { start: 0, end: 8 } }]],
    ['titel = x AND total = abc', [
      { code: 'unknown-field', message: "There is no field 'titel' to filter on.", hint: "Did you mean 'title'?", span: { start: 0, end: 5 } },
      { code: 'type-mismatch', message: "The value is not a valid decimal for field 'total'.", hint: 'Use a number such as 4.50.', span: { start: 22, end: 25 } },
    ], 'filter has 2 problems.'],
  ]
  for (const [filter, errors, detail] of cases) {
    const url = `/api/v1/orders?filter=${q(filter)}`
    const response = await getProblem(url)
    assert.deepEqual(response.body, filterProblem(url, errors, detail), filter)
  }
})

test('a non-filterable field is refused exactly like an unknown one; problems never quote values', async () => {
  const secret = await getProblem(`/api/v1/orders?filter=${q('secret = s1')}`)
  assert.deepEqual(secret.body.errors, [{ code: 'unknown-field', message: "There is no field 'secret' to filter on.", hint: secret.body.errors[0].hint, span: { start: 0, end: 6 } }])
  const fields = 'id, title, status, total, position, placed_at, due_on, meta, code, paid, mood, rank, weight, qty, version, deleted_at'
  assert.equal(secret.body.errors[0].hint, `Fields you can filter on: ${fields}.`)
  const sorted = await call('GET', `/api/v1/orders?order_by=${q('secret')}`)
  assertProblem(sorted, 'invalid-order-by')
  assert.equal(sorted.body.errors[0].message, "There is no field 'secret' to order by.")
  assert.doesNotMatch(sorted.body.errors[0].hint, /secret/)
  // Filtering on a field never tells whether it exists: same text, same answer, on another resource.
  const tags = await getProblem(`/api/v1/tags?filter=${q('secret = s1')}`)
  assert.deepEqual([tags.body.errors[0].code, tags.body.errors[0].message], ['unknown-field', "There is no field 'secret' to filter on."])
  for (const filter of ['total = s3cr3tv4lue', 'placed_at > s3cr3tv4lue', 'regex(title, "s3cr3tv4lue(")', 'paid = s3cr3tv4lue', 'placed_at > now() - s3cr3tv4lue']) {
    const response = await getProblem(`/api/v1/orders?filter=${q(filter)}`)
    assert.doesNotMatch(JSON.stringify([response.body.detail, response.body.errors]), /s3cr3tv4lue/, filter)
  }
})

test('error rows: bad order_by', async () => {
  const cases: Array<[string, unknown[], string?]> = [
    ['titel desc', [{ code: 'unknown-field', message: "There is no field 'titel' to order by.", hint: "Did you mean 'title'?", span: { start: 0, end: 5 } }]],
    ['title sideways', [{ code: 'syntax', message: 'A direction is asc or desc.', hint: "Write 'title asc' or 'title desc' (asc when left out).", span: { start: 6, end: 14 } }]],
    ['title desc nulls first', [{ code: 'syntax', message: 'A term of order_by is a field and an optional direction.', hint: 'Separate terms with commas: a desc, b.', span: { start: 11, end: 16 } }]],
    ['title, title desc', [{ code: 'duplicate-field', message: "'title' is already in order_by.", hint: "Name each field once: remove this term or the earlier 'title'.", span: { start: 7, end: 12 } }]],
    ['meta', [{ code: 'unknown-field', message: "There is no field 'meta' to order by.", hint: 'Fields you can order by: id, title, status, total, position, placed_at, due_on, code, paid, mood, rank, weight, qty, version, deleted_at.', span: { start: 0, end: 4 } }]],
    ['title,,total', [{ code: 'syntax', message: 'An empty term in order_by.', hint: 'Separate terms with one comma: a desc, b.', span: { start: 6, end: 6 } }]],
    ['titel, total sideways', [
      { code: 'unknown-field', message: "There is no field 'titel' to order by.", hint: "Did you mean 'title'?", span: { start: 0, end: 5 } },
      { code: 'syntax', message: 'A direction is asc or desc.', hint: "Write 'total asc' or 'total desc' (asc when left out).", span: { start: 13, end: 21 } },
    ], 'order_by has 2 problems.'],
    // Readable but not sortable: named like a field the model lacks, and the hint lists what sorts.
    ['secret', [{ code: 'unknown-field', message: "There is no field 'secret' to order by.", hint: 'Fields you can order by: id, title, status, total, position, placed_at, due_on, code, paid, mood, rank, weight, qty, version, deleted_at.', span: { start: 0, end: 6 } }]],
  ]
  for (const [orderBy, errors, detail] of cases) {
    const url = `/api/v1/orders?order_by=${q(orderBy)}`
    const response = await getProblem(url)
    const body = { type: 'urn:service:problem:invalid-order-by', title: 'Invalid order_by', status: 400, detail: detail ?? (errors[0] as { message: string }).message, parameter: 'order_by', errors }
    assert.deepEqual(response.body, { ...body, instance: url }, orderBy)
    // Every route that takes order_by gives the same errors, each with a hint.
    for (const [method, other, payload] of [
      ['POST', '/api/v1/orders:search', { order_by: orderBy }],
      ['GET', `/api/v1/orders:seek?position=0&order_by=${q(orderBy)}`],
      ['GET', `/api/v1/orders:export?order_by=${q(orderBy)}`],
    ] as const) {
      const answer = await call(method, other, payload === undefined ? {} : { payload })
      assert.deepEqual(answer.body, { ...body, instance: other }, `${method} ${other}`)
    }
    for (const error of errors as Array<{ hint?: string }>) assert.ok(error.hint !== undefined && error.hint !== '', orderBy)
  }
})

test('a filter over 10,000 characters in a query string is 400 too-long; 10,000 pass', async () => {
  const filterOf = (length: number): string => `title = "${'x'.repeat(length - 10)}"`
  assert.equal(filterOf(10_000).length, 10_000)
  const fits = await call('GET', `/api/v1/orders?filter=${q(filterOf(10_000))}`)
  assert.equal(fits.status, 200)
  assert.deepEqual(fits.body.items, [])
  const url = `/api/v1/orders?filter=${q(filterOf(10_001))}`
  const response = await getProblem(url)
  assert.deepEqual(response.body, filterProblem(url, [{
    code: 'too-long', message: 'The filter is longer than 10000 characters.', hint: 'POST /api/v1/orders:search takes filters up to 200000 characters.', span: { start: 10_000, end: 10_001 },
  }]))
  // Routes without a :search form say no more than the limit.
  const facets = await getProblem(`/api/v1/orders:facets?field=status&filter=${q(filterOf(10_001))}`)
  assert.deepEqual(facets.body.errors, [{ code: 'too-long', message: 'The filter is longer than 10000 characters.', span: { start: 10_000, end: 10_001 } }])
  // The limit counts the filter, not the URL: an encoded filter of 10,000 characters passes.
  assert.equal((await call('GET', `/api/v1/orders?filter=${q(`title = "${'é '.repeat(4995)}"`)}`)).status, 200)
})

test('POST :search takes filters up to 200,000 characters, and refuses 200,001', async () => {
  const long = (length: number): string => {
    const head = 'title = "Matcha" OR code = "'
    return head + 'y'.repeat(length - head.length - 1) + '"'
  }
  assert.equal(long(200_000).length, 200_000)
  const fits = await call('POST', '/api/v1/orders:search', { payload: { filter: long(200_000) } })
  assert.equal(fits.status, 200, JSON.stringify(fits.body))
  assert.deepEqual(fits.body.items.map((i: { title: string }) => i.title), [MATCHA])
  // A long filter of many terms is refused for its values, before PostgreSQL's parameter limit.
  const words = await call('POST', '/api/v1/orders:search', { payload: { filter: 'tea '.repeat(49_999) } })
  assertProblem(words, 'invalid-filter')
  assert.deepEqual(words.body.errors.map((e: { code: string }) => e.code), ['too-complex'])
  const over = await call('POST', '/api/v1/orders:search', { payload: { filter: long(200_001) } })
  assertProblem(over, 'invalid-filter')
  assert.deepEqual(over.body, {
    type: 'urn:service:problem:invalid-filter', title: 'Invalid filter', status: 400, detail: 'The filter is longer than 200000 characters.', instance: '/api/v1/orders:search', parameter: 'filter',
    errors: [{ code: 'too-long', message: 'The filter is longer than 200000 characters.', span: { start: 200_000, end: 200_001 } }],
  })
})

test('POST :search: the list parameters in a JSON body, fields as an array', async () => {
  const searched = await call('POST', '/api/v1/orders:search', { payload: { filter: 'title:tea', order_by: 'title desc', page_size: 2, fields: ['title', 'status'], show_deleted: true, count: 'exact' } })
  assert.equal(searched.status, 200, JSON.stringify(searched.body))
  assert.deepEqual(searched.body.items.map((i: { title: string }) => i.title), [POT, GREEN])
  for (const item of searched.body.items) assert.deepEqual(Object.keys(item).filter((k) => k !== 'permissions').sort(), ['etag', 'status', 'title'])
  assert.equal(searched.body.total_size, 4)
  assert.equal(searched.body.total_size_estimate, 4)
  assert.notEqual(searched.body.next_page_token, '')
  const rest = await call('POST', '/api/v1/orders:search', { payload: { filter: 'title:tea', order_by: 'title desc', page_size: 2, fields: ['title'], show_deleted: true, page_token: searched.body.next_page_token } })
  assert.deepEqual(rest.body.items.map((i: { title: string }) => i.title), [DELETED, BLACK])
  assert.equal(rest.body.next_page_token, '')
  // Without show_deleted the deleted row is gone; the same filter on GET gives the same rows.
  const visible = await call('POST', '/api/v1/orders:search', { payload: { filter: 'title:tea', page_size: 500 } })
  assert.deepEqual(visible.body.items, (await call('GET', `/api/v1/orders?page_size=500&filter=${q('title:tea')}`)).body.items)
  // An empty body is the plain list.
  assert.equal((await call('POST', '/api/v1/orders:search', { payload: {} })).body.items.length, 6)

  const unknown = await call('POST', '/api/v1/orders:search', { payload: { filter: 'status = open', filtr: 'x' } })
  assertProblem(unknown, 'invalid-parameter')
  assert.equal(unknown.body.errors[0].parameter, 'filtr')
  assert.match(unknown.body.errors[0].message, /did you mean 'filter'/)
  assertProblem(await call('POST', '/api/v1/orders:search', { payload: [] }), 'invalid-parameter')
  assertProblem(await call('POST', '/api/v1/orders:search', { payload: { filter: 42 } }), 'invalid-parameter')
  assertProblem(await call('POST', '/api/v1/orders:search', { payload: { fields: ['titel'] } }), 'invalid-parameter')
  assertProblem(await call('POST', '/api/v1/orders:search', { payload: { page_size: 0 } }), 'invalid-parameter')
  assertProblem(await call('POST', '/api/v1/tags:search', { payload: { show_deleted: true } }), 'invalid-parameter')
  assertProblem(await call('POST', '/api/v1/orders:search?filter=x', { payload: {} }), 'invalid-parameter')
  const bad = await call('POST', '/api/v1/orders:search', { payload: { filter: 'titel = x' } })
  assert.deepEqual(bad.body, filterProblem('/api/v1/orders:search', [{ code: 'unknown-field', message: "There is no field 'titel' to filter on.", hint: "Did you mean 'title'?", span: { start: 0, end: 5 } }]))
})

test('GET parameters: fields, page_size, a repeated filter, unknown parameters', async () => {
  const masked = await call('GET', `/api/v1/orders?fields=title,total&filter=${q('id = 1')}`)
  assert.deepEqual(Object.keys(masked.body.items[0]).filter((k) => k !== 'permissions').sort(), ['etag', 'title', 'total'])
  assertProblem(await call('GET', '/api/v1/orders?fields=titel'), 'invalid-parameter')
  assertProblem(await call('GET', '/api/v1/orders?page_size=0'), 'invalid-parameter')
  assertProblem(await call('GET', '/api/v1/orders?page_size=ten'), 'invalid-parameter')
  assert.equal((await call('GET', '/api/v1/orders?page_size=100000')).status, 200)
  const twice = await call('GET', `/api/v1/orders?filter=${q('id = 1')}&filter=${q('id = 2')}`)
  assertProblem(twice, 'invalid-parameter')
  assert.deepEqual(twice.body.errors, [{ parameter: 'filter', message: 'filter must be given once.' }])
  for (const parameter of ['order_by', 'page_token', 'page_size', 'show_deleted']) {
    const repeated = await call('GET', `/api/v1/orders?${parameter}=a&${parameter}=b`)
    assert.deepEqual(repeated.body.errors, [{ parameter, message: `${parameter} must be given once.` }])
  }
  assertProblem(await call('GET', '/api/v1/orders?filtr=x'), 'invalid-parameter')
})

test(':search body values of the wrong kind are named as such: fields of non-strings, a null page_size', async () => {
  for (const fields of [[1], [null], [{}], [['id']], [1, 'id']]) {
    const answer = await call('POST', '/api/v1/orders:search', { payload: { fields } })
    assertProblem(answer, 'invalid-parameter')
    assert.deepEqual(answer.body.errors, [{ parameter: 'fields', message: 'fields must be a list of field names (strings).' }])
  }
  const nullSize = await call('POST', '/api/v1/orders:search', { payload: { page_size: null } })
  assert.deepEqual(nullSize.body.errors, [{ parameter: 'page_size', message: 'page_size must be a single value, not null.' }])
})
