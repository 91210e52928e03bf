// A filter tested in JS against sampled rows keeps exactly the rows PostgreSQL keeps: every row of
// a table sampled (the sample larger than the table), each filter's JS count against its SQL
// count, for written filters and for random ones over every sampled kind, NULLs included.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { databasePool, freshDatabase, runSql } from '../helpers/db.js'
import { buildModels } from '../../lib/model/build.js'
import { introspectModels } from '../../lib/model/introspect.js'
import type { ResourceModel } from '../../lib/model/types.js'
import { parseFilter } from '../../lib/query/filter/parser.js'
import { checkFilter } from '../../lib/query/filter/checker.js'
import type { CheckedFilter } from '../../lib/query/filter/checked.js'
import { queryModel } from '../../lib/query/query-model.js'
import { sampleMatcher, type SampleValue } from '../../lib/read/estimate/filter-evaluator.js'
import { compileFilter } from '../../lib/sql/filter.js'
import { compileSample } from '../../lib/sql/read.js'
import { sql } from '../../lib/sql/sql.js'
import { rows } from '../../lib/db/query.js'

const databaseUrl = await freshDatabase()
await runSql(databaseUrl, `
  CREATE TYPE mood AS ENUM ('calm', 'busy', 'away');
  CREATE TABLE items (id int8 PRIMARY KEY, name text, count int4, price numeric(10, 2), ratio float8, active boolean,
    born date, seen timestamptz, ref uuid, mood mood, code char(4));
  INSERT INTO items
  SELECT n,
    CASE WHEN n % 11 = 0 THEN NULL ELSE (ARRAY['tea', 'Tea', 'coffee', 'tea '])[1 + n % 4] END,
    CASE WHEN n % 13 = 0 THEN NULL ELSE (n * 7) % 50 - 10 END,
    CASE WHEN n % 17 = 0 THEN NULL ELSE ((n * 31) % 1000) / 100.0 END,
    CASE WHEN n % 19 = 0 THEN NULL ELSE ((n * 13) % 97) / 7.0 END,
    CASE WHEN n % 7 = 0 THEN NULL ELSE n % 2 = 0 END,
    CASE WHEN n % 23 = 0 THEN NULL ELSE DATE '2026-01-01' + ((n * 5) % 60) - 30 END,
    CASE WHEN n % 29 = 0 THEN NULL ELSE now() - ((n * 37) % 2000) * interval '1 hour' + interval '7 days' END,
    CASE WHEN n % 5 = 0 THEN NULL ELSE ('00000000-0000-0000-0000-' || lpad(to_hex(n % 6), 12, '0'))::uuid END,
    CASE WHEN n % 9 = 0 THEN NULL ELSE (ARRAY['calm', 'busy', 'away'])[1 + n % 3]::mood END,
    'ab'
  FROM generate_series(1, 600) AS n;
`)
const pool = databasePool(databaseUrl, 2)
// The database is dropped (WITH FORCE) after the file, possibly before this pool ends.
pool.on('error', () => {})

const declared = buildModels({
  items: {
    fields: {
      id: { type: 'bigint' },
      name: { type: 'string' },
      count: { type: 'integer' },
      price: { type: 'decimal' },
      ratio: { type: 'number' },
      active: { type: 'boolean' },
      born: { type: 'date' },
      seen: { type: 'timestamp' },
      ref: { type: 'uuid' },
      mood: { type: 'string' },
      code: { type: 'string' },
    },
  },
})
const ITEMS: ResourceModel = (await introspectModels(pool, declared)).get('items')!
const QUERY = queryModel('items', [...ITEMS.fields.values()], false)
const ALL_ROWS = { model: ITEMS, scope: { tenant: undefined, rows: undefined, showDeleted: true } }

function checked (text: string): CheckedFilter {
  const result = checkFilter(parseFilter(text), QUERY)
  if (!result.ok) assert.fail(`${text}: ${JSON.stringify(result.issues)}`)
  return result.filter!
}

/** How many rows PostgreSQL keeps, and how many the JS test keeps of a sample holding every row. */
async function countsOf (text: string): Promise<[number, number]> {
  const filter = checked(text)
  const [inSql] = await rows<{ n: number }>(pool, sql`SELECT count(*)::int AS n FROM ${ITEMS.table} WHERE ${compileFilter(ITEMS, filter)}`)
  // now() is read before the sample: rows near the boundary of `now() - 7d` pass both or neither.
  const test = sampleMatcher(filter, Date.now())
  assert.ok(test !== undefined, `${text} is testable`)
  const sampled = await rows<Record<string, SampleValue>>(pool, compileSample(ALL_ROWS, test.fields, test.kinds, 10_000, 1_000_000))
  assert.equal(sampled.length, 600)
  assert.equal(sampled[0]!.__visible, 600)
  const values = test.fields.map((_, i) => sampled.map((row) => row[`__s${i}`] ?? null))
  return [inSql!.n, test.count(values, sampled.length)]
}

test('written filters: each kind, NULLs, three-valued NOT, AND and OR', async () => {
  const filters = [
    'count > 5', 'count <= -3', 'count = 0', 'count != 0', 'price >= 4.5', 'price < 0.31', 'ratio > 6.5',
    'id > 300', 'id <= 12', 'active = true', 'active != true', 'born > 2026-01-01', 'born <= 2025-12-15',
    'seen > now() - 7d', 'seen < "2026-01-01T00:00:00Z"', 'born >= now() - 30d',
    'name = tea', 'name != tea', 'name = "tea "', 'mood = calm', 'mood != away',
    'ref = 00000000-0000-0000-0000-000000000003', 'ref = "00000000-0000-0000-0000-00000000000A"',
    'in(count, 1, 2, 3)', 'in(name, tea, coffee)', 'in(mood, calm, busy)',
    'isNull(count)', 'NOT isNull(name)', 'count = null', 'name != null',
    'NOT count > 5', 'NOT (count > 5 AND active = true)', 'count > 5 OR active = true', 'NOT (price > 3 OR name = tea)',
    'count > 5 AND (born > 2026-01-10 OR NOT mood = busy)', 'id > 100 AND id < 200 AND NOT isNull(ratio)',
  ]
  for (const text of filters) {
    const [inSql, inJs] = await countsOf(text)
    assert.equal(inJs, inSql, text)
  }
})

test('random filters over every sampled kind keep what PostgreSQL keeps', async () => {
  let seed = 7
  const random = (n: number): number => {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648
    return seed % n
  }
  const pick = <T>(items: readonly T[]): T => items[random(items.length)]!
  const ordered = ['<', '<=', '>', '>=', '=', '!=']
  const condition = (): string => pick([
    () => `count ${pick(ordered)} ${random(60) - 15}`,
    () => `price ${pick(ordered)} ${(random(1100) / 100).toFixed(2)}`,
    () => `ratio ${pick(ordered)} ${(random(150) / 10).toFixed(1)}`,
    () => `id ${pick(ordered)} ${random(650)}`,
    () => `born ${pick(ordered)} 2026-01-${String(1 + random(28)).padStart(2, '0')}`,
    () => `seen ${pick(ordered)} now() - ${random(100)}d`,
    () => `active ${pick(['=', '!='])} ${pick(['true', 'false'])}`,
    () => `name ${pick(['=', '!='])} ${pick(['tea', 'Tea', 'coffee', '"tea "', 'milk'])}`,
    () => `mood ${pick(['=', '!='])} ${pick(['calm', 'busy', 'away'])}`,
    () => `ref = 00000000-0000-0000-0000-00000000000${random(7)}`,
    () => `isNull(${pick(['count', 'name', 'seen', 'ref'])})`,
  ])()
  const filter = (depth: number): string => {
    if (depth === 0 || random(3) === 0) return condition()
    switch (random(3)) {
      case 0: return `(${filter(depth - 1)} AND ${filter(depth - 1)})`
      case 1: return `(${filter(depth - 1)} OR ${filter(depth - 1)})`
      default: return `NOT (${filter(depth - 1)})`
    }
  }
  for (let i = 0; i < 300; i++) {
    const text = filter(3)
    const [inSql, inJs] = await countsOf(text)
    assert.equal(inJs, inSql, text)
  }
})

test('what JS cannot reproduce is not tested: patterns, text order, fixed-width text, search', () => {
  for (const text of ['name:tea*', 'name < m', 'code = ab', 'count > 5 AND name:"te*"']) {
    assert.equal(sampleMatcher(checked(text), Date.now()), undefined, text)
  }
})

test('a single comparison counts by binary search in the column sorted once per sample', () => {
  const column: SampleValue[] = [5, null, 1, 9, 3, 7, null, 3]
  const counts = (text: string, size: number) => sampleMatcher(checked(text), Date.now())!.count([column], size)
  assert.deepEqual(['count > 3', 'count >= 3', 'count < 3', 'count <= 3', 'count = 3', 'count != 3'].map((text) => counts(text, column.length)), [3, 5, 1, 3, 2, 4])
  // Samples never change once taken: the sorted copy, not the column, is what a later count reads.
  column[0] = 100
  assert.equal(counts('count > 50', column.length), 0, 'counted from the copy sorted at the first count')
  assert.equal(counts('count > 50', 4), 1, 'another size is sorted afresh')
})
