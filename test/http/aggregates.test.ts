// :facets, :series and :histogram through HTTP on real PostgreSQL, under a tenant, a row filter
// (users see their own sales), a hidden field (cost, admins only) and soft delete: exact shapes and
// counts, every parameter and error row, and that nothing outside the caller's rows is counted.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { freshDatabase, runSql, withClient } from '../helpers/db.js'
import { buildApp, createUser, bearer, caller, usersOf, assertParameterError } from '../helpers/app.js'
import type { Config } from '../../lib/config/schema.js'

const SCHEMA = `
CREATE TABLE sales (
  id serial PRIMARY KEY,
  tenant_id text NOT NULL,
  owner_id text NOT NULL,
  status text NOT NULL,
  amount numeric(10, 2),
  qty integer,
  cost numeric(10, 2),
  placed_at timestamptz,
  due_on date,
  deleted_at timestamptz
);
CREATE TABLE plain (id serial PRIMARY KEY, label text NOT NULL, score integer);
INSERT INTO plain (label, score) VALUES ('a', 1), ('b', 2), ('b', 3);
`

const RESOURCES: NonNullable<Config['resources']> = {
  sales: {
    tenant: 'tenant_id',
    softDelete: 'deleted_at',
    fields: {
      id: { type: 'integer', readOnly: true, dbDefault: true },
      owner_id: { type: 'string' },
      status: { type: 'string' },
      amount: { type: 'decimal' },
      qty: { type: 'integer' },
      cost: { type: 'decimal' },
      placed_at: { type: 'timestamp' },
      due_on: { type: 'date' },
    },
    access: {
      read: (ctx) => ctx.user.roles.includes('admin') ? true : { filter: { owner_id: ctx.user.id } },
      fields: { cost: { read: ['admin'], write: ['admin'] } },
    },
  },
  plain: { fields: { id: { type: 'integer', readOnly: true }, label: { type: 'string', filterable: false }, score: { type: 'integer' } } },
}

const databaseUrl = await freshDatabase()
await runSql(databaseUrl, SCHEMA)
const app = await buildApp({ databaseUrl, roles: ['admin', 'user'], tenant: 't1', resources: RESOURCES })
await createUser(app, 'admin@example.com', 'admin')
await createUser(app, 'alice@example.com', 'user')
await createUser(app, 'bob@example.com', 'user')
const ids = new Map((await usersOf(app).list()).map((u) => [u.email, u.id]))
const ALICE = ids.get('alice@example.com')!
const BOB = ids.get('bob@example.com')!
// Alice's live rows in t1 (1–6), one of hers soft-deleted (7); Bob's (8, 9) and another tenant's
// (10, hers by owner) must never be counted for her. Bob's and the other tenant's values are
// extreme and distinct, so any leak shows in a count, a minimum or a maximum.
await runSql(databaseUrl, `
INSERT INTO sales (tenant_id, owner_id, status, amount, qty, cost, placed_at, due_on, deleted_at) VALUES
  ('t1', '${ALICE}', 'open', 10.00, 1, 1.00, '2026-03-28T22:30:00Z', '2026-03-28', NULL),
  ('t1', '${ALICE}', 'open', 20.00, 2, 2.00, '2026-03-29T00:30:00Z', '2026-03-29', NULL),
  ('t1', '${ALICE}', 'open', 30.00, 3, 3.00, '2026-03-29T22:30:00Z', '2026-03-29', NULL),
  ('t1', '${ALICE}', 'draft', 40.00, NULL, 4.00, '2026-03-30T12:00:00Z', '2026-03-30', NULL),
  ('t1', '${ALICE}', 'draft', NULL, 5, 5.00, '2026-04-01T00:00:00Z', NULL, NULL),
  ('t1', '${ALICE}', 'locked', 100.00, 6, 6.00, NULL, '2026-04-01', NULL),
  ('t1', '${ALICE}', 'locked', 500.00, 7, 7.00, '2026-03-29T10:00:00Z', '2026-03-29', '2026-04-02T00:00:00Z'),
  ('t1', '${BOB}', 'cancelled', 9999.00, 99, 99.00, '2026-03-29T10:00:00Z', '2026-03-29', NULL),
  ('t1', '${BOB}', 'cancelled', -9999.00, -99, 99.00, '2025-01-01T10:00:00Z', '2025-01-01', NULL),
  ('t2', '${ALICE}', 'foreign', 7777.00, 77, 77.00, '2024-06-01T10:00:00Z', '2024-06-01', NULL);
`)
const asAdmin = caller(app, await bearer(app, 'admin@example.com'))
const asAlice = caller(app, await bearer(app, 'alice@example.com'))
const q = encodeURIComponent


test('facets: the caller\'s values by count, then value; limit; soft-deleted rows only with show_deleted', async () => {
  const facets = await asAlice('GET', '/api/v1/sales:facets?field=status')
  assert.equal(facets.status, 200)
  assert.deepEqual(facets.body, { field: 'status', facets: [{ value: 'open', count: 3 }, { value: 'draft', count: 2 }, { value: 'locked', count: 1 }] })
  assert.deepEqual((await asAlice('GET', '/api/v1/sales:facets?field=status&show_deleted=true')).body.facets,
    [{ value: 'open', count: 3 }, { value: 'draft', count: 2 }, { value: 'locked', count: 2 }])
  assert.deepEqual((await asAlice('GET', '/api/v1/sales:facets?field=status&limit=1')).body.facets, [{ value: 'open', count: 3 }])
  assert.deepEqual((await asAlice('GET', `/api/v1/sales:facets?field=status&filter=${q('amount >= 20')}`)).body.facets,
    [{ value: 'open', count: 2 }, { value: 'draft', count: 1 }, { value: 'locked', count: 1 }])
  // NULL is a value; values keep their JSON type (decimal as a string, date as text).
  assert.deepEqual((await asAlice('GET', '/api/v1/sales:facets?field=amount&limit=2')).body.facets,
    [{ value: '10.00', count: 1 }, { value: '20.00', count: 1 }])
  assert.deepEqual((await asAlice('GET', '/api/v1/sales:facets?field=due_on&limit=2')).body.facets,
    [{ value: '2026-03-29', count: 2 }, { value: '2026-03-28', count: 1 }])
  assert.deepEqual((await asAlice('GET', `/api/v1/sales:facets?field=qty&filter=${q('isNull(qty)')}`)).body.facets, [{ value: null, count: 1 }])
  // The admin sees Bob's rows too, and still nothing of tenant t2.
  assert.deepEqual((await asAdmin('GET', '/api/v1/sales:facets?field=status')).body.facets,
    [{ value: 'open', count: 3 }, { value: 'cancelled', count: 2 }, { value: 'draft', count: 2 }, { value: 'locked', count: 1 }])
})

test('histogram: equal-width buckets between the filtered minimum and maximum, counts adding up, nulls apart', async () => {
  const amounts = await asAlice('GET', '/api/v1/sales:histogram?field=amount&buckets=3')
  assert.equal(amounts.status, 200)
  assert.deepEqual(amounts.body, {
    field: 'amount',
    min: '10.00',
    max: '100.00',
    buckets: [{ start: '10', end: '40', count: 3 }, { start: '40', end: '70', count: 1 }, { start: '70', end: '100', count: 1 }],
    nulls: 1,
  })
  const quantities = await asAlice('GET', '/api/v1/sales:histogram?field=qty&buckets=5')
  assert.deepEqual(quantities.body, {
    field: 'qty',
    min: 1,
    max: 6,
    buckets: [{ start: 1, end: 2, count: 1 }, { start: 2, end: 3, count: 1 }, { start: 3, end: 4, count: 1 }, { start: 4, end: 5, count: 0 }, { start: 5, end: 6, count: 2 }],
    nulls: 1,
  })
  // Default 10 buckets; they and the nulls add up to the filtered total.
  const filtered = await asAlice('GET', `/api/v1/sales:histogram?field=qty&filter=${q('status != locked')}&show_deleted=true`)
  assert.equal(filtered.body.buckets.length, 10)
  assert.equal(filtered.body.buckets.reduce((sum: number, b: { count: number }) => sum + b.count, 0) + filtered.body.nulls, 5)
  // One distinct value is one bucket; no value at all is none.
  assert.deepEqual((await asAlice('GET', `/api/v1/sales:histogram?field=qty&filter=${q('qty = 2')}`)).body,
    { field: 'qty', min: 2, max: 2, buckets: [{ start: 2, end: 2, count: 1 }], nulls: 0 })
  assert.deepEqual((await asAlice('GET', `/api/v1/sales:histogram?field=qty&filter=${q('qty > 1000')}`)).body,
    { field: 'qty', min: null, max: null, buckets: [], nulls: 0 })
})

const day = (start: string, count: number): { start: string, count: number } => ({ start, count })

test('series: days in UTC and in Europe/Berlin across the DST change, empty days 0, from inclusive and to exclusive', async () => {
  const utc = await asAlice('GET', '/api/v1/sales:series?field=placed_at&from=2026-03-28&to=2026-04-02&granularity=day')
  assert.equal(utc.status, 200)
  assert.deepEqual(utc.body, {
    field: 'placed_at',
    granularity: 'day',
    time_zone: 'UTC',
    from: '2026-03-28T00:00:00.000000Z',
    to: '2026-04-02T00:00:00.000000Z',
    buckets: [
      day('2026-03-28T00:00:00.000000Z', 1), day('2026-03-29T00:00:00.000000Z', 2), day('2026-03-30T00:00:00.000000Z', 1),
      day('2026-03-31T00:00:00.000000Z', 0), day('2026-04-01T00:00:00.000000Z', 1),
    ],
  })
  // Berlin's 29 March has 23 hours: its days start at local midnight, 23:00Z before and 22:00Z after.
  const berlin = await asAlice('GET', '/api/v1/sales:series?field=placed_at&from=2026-03-28&to=2026-04-02&granularity=day&time_zone=Europe/Berlin')
  assert.deepEqual(berlin.body, {
    field: 'placed_at',
    granularity: 'day',
    time_zone: 'Europe/Berlin',
    from: '2026-03-27T23:00:00.000000Z',
    to: '2026-04-01T22:00:00.000000Z',
    buckets: [
      day('2026-03-27T23:00:00.000000Z', 1), day('2026-03-28T23:00:00.000000Z', 1), day('2026-03-29T22:00:00.000000Z', 2),
      day('2026-03-30T22:00:00.000000Z', 0), day('2026-03-31T22:00:00.000000Z', 1),
    ],
  })
  // Hours of the night the clocks skip 02:00: three local hours between local 00:00 and 04:00.
  const hours = await asAlice('GET', `/api/v1/sales:series?field=placed_at&from=2026-03-29T00:00&to=2026-03-29T04:00&granularity=hour&time_zone=${q('Europe/Berlin')}`)
  assert.deepEqual(hours.body.buckets, [day('2026-03-28T23:00:00.000000Z', 0), day('2026-03-29T00:00:00.000000Z', 1), day('2026-03-29T01:00:00.000000Z', 0)])
  // Instants with offsets are absolute; the soft-deleted row counts only with show_deleted.
  const instants = await asAlice('GET', `/api/v1/sales:series?field=placed_at&from=${q('2026-03-29T00:00:00Z')}&to=${q('2026-03-30T00:00:00+00:00')}&granularity=day&show_deleted=true`)
  assert.deepEqual(instants.body.buckets, [day('2026-03-29T00:00:00.000000Z', 3)])
  // A date field: each date is its local midnight; weeks start on Monday.
  const weeks = await asAlice('GET', '/api/v1/sales:series?field=due_on&from=2026-03-23&to=2026-04-06&granularity=week&time_zone=Europe/Berlin')
  assert.deepEqual(weeks.body.buckets, [day('2026-03-22T23:00:00.000000Z', 3), day('2026-03-29T22:00:00.000000Z', 2)])
})

/** Alice's live rows in t1 with placed_at in [from, to), counted by plain SQL. */
async function aliceRowsBetween (from: string, to: string): Promise<number> {
  return await withClient(databaseUrl, async (client) => Number((await client.query(
    "SELECT count(*) AS n FROM sales WHERE tenant_id = 't1' AND owner_id = $1 AND deleted_at IS NULL AND placed_at >= $2 AND placed_at < $3", [ALICE, from, to])).rows[0].n))
}

test('series: each range ends with the bucket of now, starts with the bucket of now minus the range, and spans the data with all', async () => {
  const expected: Record<string, { granularity: string, buckets: number }> = {
    '7d': { granularity: 'day', buckets: 8 },
    '30d': { granularity: 'day', buckets: 31 },
    '90d': { granularity: 'day', buckets: 91 },
    '1y': { granularity: 'month', buckets: 13 },
  }
  for (const [range, { granularity, buckets }] of Object.entries(expected)) {
    const series = await asAlice('GET', `/api/v1/sales:series?field=placed_at&range=${range}&time_zone=${q('America/New_York')}`)
    assert.equal(series.status, 200, JSON.stringify(series.body))
    assert.equal(series.body.granularity, granularity, range)
    assert.equal(series.body.buckets.length, buckets, range)
    assert.equal(series.body.buckets[0].start, series.body.from)
    const total = series.body.buckets.reduce((sum: number, b: { count: number }) => sum + b.count, 0)
    assert.equal(total, await aliceRowsBetween(series.body.from, series.body.to), range)
    assert.ok(Date.parse(series.body.to) > Date.now(), `${range} ends after now`)
  }
  const all = await asAlice('GET', '/api/v1/sales:series?field=placed_at&range=all')
  assert.deepEqual([all.body.granularity, all.body.from, all.body.to], ['day', '2026-03-28T00:00:00.000000Z', '2026-04-02T00:00:00.000000Z'])
  assert.deepEqual(all.body.buckets.map((b: { count: number }) => b.count), [1, 2, 1, 0, 1])
  const months = await asAlice('GET', '/api/v1/sales:series?field=placed_at&range=all&granularity=month&time_zone=Asia/Kolkata')
  assert.deepEqual(months.body.buckets, [day('2026-02-28T18:30:00.000000Z', 4), day('2026-03-31T18:30:00.000000Z', 1)])
  // No row in range: no buckets, no bounds.
  assert.deepEqual((await asAlice('GET', `/api/v1/sales:series?field=placed_at&range=all&filter=${q('qty > 1000')}`)).body,
    { field: 'placed_at', granularity: null, time_zone: 'UTC', from: null, to: null, buckets: [] })
})

test('an aggregate over a caller\'s rows shows nothing of other tenants, other owners, or hidden fields', async () => {
  const probes = [
    '/api/v1/sales:facets?field=status&limit=100',
    '/api/v1/sales:facets?field=amount&limit=100',
    '/api/v1/sales:facets?field=owner_id&limit=100',
    '/api/v1/sales:histogram?field=amount&buckets=100',
    '/api/v1/sales:histogram?field=qty',
    '/api/v1/sales:series?field=placed_at&range=all&granularity=year',
    '/api/v1/sales:series?field=due_on&range=all&granularity=year',
    `/api/v1/sales:facets?field=status&filter=${q('amount > 1000 OR amount < 0')}`,
  ]
  for (const url of probes) {
    const response = await asAlice('GET', url)
    assert.equal(response.status, 200, url)
    const text = JSON.stringify(response.body)
    for (const needle of ['9999', '7777', 'cancelled', 'foreign', BOB, '2024', '2025']) assert.ok(!text.includes(needle), `${url} shows ${needle}: ${text}`)
  }
  assert.deepEqual((await asAlice('GET', `/api/v1/sales:facets?field=status&filter=${q('amount > 1000 OR amount < 0')}`)).body.facets, [])
  // The hidden field is refused exactly like a field that does not exist.
  for (const [route, field] of [['facets', 'qty'], ['histogram', 'qty'], ['series', 'placed_at']]) {
    const hidden = await asAlice('GET', `/api/v1/sales:${route}?field=cost`)
    const unknown = await asAlice('GET', `/api/v1/sales:${route}?field=cozt`)
    assertParameterError(hidden, 'field')
    assert.deepEqual(hidden.body, JSON.parse(JSON.stringify(unknown.body).replaceAll('cozt', 'cost')))
    const filtered = await asAlice('GET', `/api/v1/sales:${route}?field=${field}&filter=${q('cost > 1')}`)
    assert.equal(filtered.body.type, 'urn:service:problem:invalid-filter')
    assert.equal(filtered.body.errors[0].code, 'unknown-field')
  }
  assert.equal((await asAdmin('GET', '/api/v1/sales:histogram?field=cost&buckets=1')).body.max, '99.00')
})

test('parameter errors are 400 invalid-parameter naming the parameter; filter errors keep their slug and span', async () => {
  assertParameterError(await asAlice('GET', '/api/v1/sales:facets'), 'field', /field is required/)
  assertParameterError(await asAlice('GET', '/api/v1/sales:facets?field=statsu'), 'field', /There is no field 'statsu' to count values of \(did you mean 'status'\?\)/)
  assertParameterError(await asAlice('GET', '/api/v1/sales:facets?field=status&limit=0'), 'limit', /from 1 to 100/)
  assertParameterError(await asAlice('GET', '/api/v1/sales:facets?field=status&limit=101'), 'limit')
  assertParameterError(await asAlice('GET', '/api/v1/sales:facets?field=status&limit=x'), 'limit')
  assertParameterError(await asAlice('GET', '/api/v1/sales:facets?field=status&field=qty'), 'field', /once/)
  assertParameterError(await asAlice('GET', '/api/v1/sales:facets?field=status&feild=x'), 'feild', /did you mean 'field'/)
  assertParameterError(await asAlice('GET', '/api/v1/sales:histogram?field=status'), 'field', /'status' is of type string: :histogram takes a field of type integer, bigint, number or decimal/)
  assertParameterError(await asAlice('GET', '/api/v1/sales:histogram?field=qty&buckets=101'), 'buckets')
  assertParameterError(await asAlice('GET', '/api/v1/sales:histogram?field=qty&buckets=-1'), 'buckets')
  assertParameterError(await asAlice('GET', '/api/v1/sales:series?field=qty'), 'field', /'qty' is of type integer: :series takes a field of type timestamp or date/)
  assertParameterError(await asAlice('GET', '/api/v1/sales:series?field=placed_at&range=2d'), 'range', /7d, 30d, 90d, 1y, all/)
  assertParameterError(await asAlice('GET', '/api/v1/sales:series?field=placed_at&range=7d&from=2026-01-01&to=2026-02-01'), 'range')
  assertParameterError(await asAlice('GET', '/api/v1/sales:series?field=placed_at&from=2026-01-01'), 'to')
  assertParameterError(await asAlice('GET', '/api/v1/sales:series?field=placed_at&from=2026-02-30&to=2026-03-01'), 'from', /ISO 8601/)
  assertParameterError(await asAlice('GET', '/api/v1/sales:series?field=placed_at&from=yesterday&to=2026-03-01'), 'from')
  assertParameterError(await asAlice('GET', '/api/v1/sales:series?field=placed_at&from=2026-03-01&to=2026-02-01'), 'to', /later than from/)
  assertParameterError(await asAlice('GET', '/api/v1/sales:series?field=placed_at&granularity=minute'), 'granularity', /hour, day, week, month, quarter, year/)
  assertParameterError(await asAlice('GET', '/api/v1/sales:series?field=placed_at&from=1900-01-01&to=2026-01-01&granularity=hour'), 'granularity', /more than 10000 buckets of an hour/)
  // The limit is exact: 10,000 buckets are served, 10,001 are not, at any granularity.
  const series = async (from: string, to: string, granularity: string) => await asAlice('GET', `/api/v1/sales:series?field=placed_at&from=${q(from)}&to=${q(to)}&granularity=${granularity}`)
  assert.equal((await series('2026-01-01T00:00:00Z', '2027-02-21T16:00:00Z', 'hour')).body.buckets.length, 10_000)
  assertParameterError(await series('2026-01-01T00:00:00Z', '2027-02-21T17:00:00Z', 'hour'), 'granularity', /more than 10000 buckets of an hour/)
  assert.equal((await series('1200-01-01', '2033-05-01', 'month')).body.buckets.length, 10_000)
  assertParameterError(await series('1200-01-01', '2033-06-01', 'month'), 'granularity', /more than 10000 buckets of a month/)
  // Fractions of a second as filters take them.
  assert.equal((await series('2026-01-01T00:00:00.1234567Z', '2026-01-02T00:00:00Z', 'hour')).status, 200)
  assertParameterError(await asAlice('GET', '/api/v1/sales:series?field=due_on&range=7d&granularity=hour'), 'granularity', /date field/)
  for (const zone of ['Mars/Olympus', '+02:00', 'UTC+3', '']) {
    assertParameterError(await asAlice('GET', `/api/v1/sales:series?field=placed_at&time_zone=${q(zone)}`), 'time_zone', /IANA/)
  }
  assertParameterError(await asAlice('GET', '/api/v1/sales:histogram?field=qty&show_deleted=yes'), 'show_deleted')
  assertParameterError(await asAdmin('GET', '/api/v1/plain:facets?field=score&show_deleted=true'), 'show_deleted', /no soft delete/)
  // A field that is not filterable has no facets, and reads like one that does not exist.
  assertParameterError(await asAdmin('GET', '/api/v1/plain:facets?field=label'), 'field', /There is no field 'label'/)
  assert.deepEqual((await asAdmin('GET', '/api/v1/plain:facets?field=score')).body.facets, [{ value: 1, count: 1 }, { value: 2, count: 1 }, { value: 3, count: 1 }])

  const syntax = await asAlice('GET', `/api/v1/sales:facets?field=status&filter=${q('qty >')}`)
  assert.equal(syntax.status, 400)
  assert.equal(syntax.body.type, 'urn:service:problem:invalid-filter')
  assert.equal(syntax.body.parameter, 'filter')
  assert.ok(syntax.body.errors[0].span !== undefined)
  for (const route of ['facets?field=status', 'histogram?field=qty', 'series?field=placed_at']) {
    const long = await asAlice('GET', `/api/v1/sales:${route}&filter=${'x'.repeat(10_001)}`)
    assert.equal(long.status, 400)
    assert.equal(long.body.type, 'urn:service:problem:invalid-filter')
    assert.equal(long.body.errors[0].code, 'too-long')
  }
})

test('aggregates need a verified token and the read operation, and a visible resource', async () => {
  const anonymous = await app.inject({ method: 'GET', url: '/api/v1/sales:facets?field=status' })
  assert.equal(anonymous.statusCode, 401)
  assert.equal((await asAlice('GET', '/api/v1/nothing:facets?field=status')).status, 404)
})
