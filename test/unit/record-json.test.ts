import { test } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { recordBuilder, recordJson, recordWriter, type RecordBuilder } from '../../lib/serialize/json.js'
import { listJson, seekJson } from '../../lib/serialize/envelopes.js'
import type { FieldModel, FieldType, ResourceModel } from '../../lib/model/types.js'
import { Selection } from '../../lib/model/selection.js'

const field = (name: string, type: FieldType): FieldModel => ({ name, type }) as unknown as FieldModel

const model = { name: 'items' } as unknown as ResourceModel
const selection = (fields: FieldModel[]): Selection => new Selection(model, fields)
const select = selection([field('id', 'bigint'), field('title', 'string'), field('total', 'decimal'), field('placed_at', 'timestamp'), field('count', 'integer'), field('done', 'boolean'), field('data', 'json'), field('ref', 'uuid')])

test('a record is the JSON of its selected fields in order, then etag and permissions', () => {
  const row = { id: '7', title: 'a "b" \\ c\n', total: '1.50', placed_at: '2026-01-02T03:04:05.000000Z', count: 3, done: false, data: { x: [1, null] }, ref: null, hidden: 'never' }
  const json = recordJson(select, row, '"abc"', '{"update":true,"delete":false}')
  assert.equal(json, JSON.stringify({ id: '7', title: row.title, total: '1.50', placed_at: row.placed_at, count: 3, done: false, data: row.data, ref: null, etag: '"abc"', permissions: { update: true, delete: false } }))
  assert.equal(recordJson(selection([]), row, '"e"'), '{"etag":"\\"e\\""}')
})

test('any text, including quotes, control characters and lone surrogates, is written as JSON.stringify writes it', () => {
  const writer = selection([field('title', 'string'), field('other', 'string')])
  fc.assert(fc.property(fc.string({ unit: 'binary' }), fc.option(fc.string({ unit: 'grapheme' })), (title, other) => {
    const row = { title, other }
    const json = recordJson(writer, row, '"e"')
    assert.equal(json, JSON.stringify({ title, other, etag: '"e"' }))
  }), { numRuns: 2000 })
})

test('numbers, booleans and ETags of any text are written as JSON.stringify writes them', () => {
  const writer = selection([field('count', 'integer'), field('ratio', 'number'), field('done', 'boolean')])
  const anything = fc.oneof(fc.double(), fc.integer(), fc.boolean(), fc.constant(null), fc.string())
  fc.assert(fc.property(anything, anything, anything, fc.oneof(fc.string({ unit: 'binary' }), fc.string().map((inner) => `"${inner}"`)), (count, ratio, done, etag) => {
    assert.equal(recordJson(writer, { count, ratio, done }, etag), JSON.stringify({ count, ratio, done, etag }))
  }), { numRuns: 2000 })
  assert.equal(recordJson(writer, { count: -0, ratio: Number.NaN, done: undefined }, '"7.ab"'), '{"count":0,"ratio":null,"done":null,"etag":"\\"7.ab\\""}')
})

test('a page lists its records, the next page token and the sizes', () => {
  assert.equal(listJson([{ a: 1 }, { a: 2 }], 'tok', 10, undefined), '{"items":[{"a":1},{"a":2}],"next_page_token":"tok","total_size_estimate":10}')
  assert.equal(listJson([], '', 0, 0), '{"items":[],"next_page_token":"","total_size_estimate":0,"total_size":0}')
  assert.equal(seekJson([{ a: 1 }], 'n', 'p'), '{"items":[{"a":1}],"next_page_token":"n","prev_page_token":"p"}')
})

/** The builders a selection's pages get, first to last: a loop over its fields for its first pages, then one compiled for it. */
function buildersOf (select: Selection, relations?: readonly string[]): RecordBuilder[] {
  const builders = [...new Set(Array.from({ length: 5 }, () => recordBuilder(select, relations)))]
  assert.equal(builders.length, 2)
  return builders
}

test('a record built for a page has the selected fields in order, then etag and permissions, and nothing else of the row', () => {
  for (const build of buildersOf(selection([field('id', 'bigint'), field('title', 'string')]))) {
    const row = { title: 'a', hidden: 'never', id: '1', __order_0: 'x' }
    assert.equal(JSON.stringify(build(row, '"e"', { update: true, delete: false })), '{"id":"1","title":"a","etag":"\\"e\\"","permissions":{"update":true,"delete":false}}')
    assert.equal(JSON.stringify(build({ id: '1' }, '"e"', undefined)), '{"id":"1","title":null,"etag":"\\"e\\""}')
  }
  for (const build of buildersOf(selection([]))) assert.equal(JSON.stringify(build({ id: '1' }, '"e"', undefined)), '{"etag":"\\"e\\""}')
  // Embedded relations follow the fields, in the order named; an exported embed has no etag.
  for (const build of buildersOf(selection([field('2', 'integer'), field('id', 'bigint')]), ['customer', 'lines'])) {
    assert.equal(JSON.stringify(build({ id: '1', 2: 5 }, undefined, undefined, [{ name: 'c' }, []])), '{"2":5,"id":"1","customer":{"name":"c"},"lines":[]}')
  }
})

// Values of every field type as rows carry them: PostgreSQL's text for bigint, decimal, dates,
// timestamps and uuids, numbers, booleans, parsed JSON, NULL, and text of any code units.
const valueOf: Record<FieldType, fc.Arbitrary<unknown>> = {
  string: fc.string({ unit: 'binary' }),
  integer: fc.integer(),
  bigint: fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map(String),
  number: fc.oneof(fc.double(), fc.constant(-0)),
  decimal: fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => n.toFixed(4)),
  boolean: fc.boolean(),
  date: fc.date({ noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10)),
  timestamp: fc.date({ noInvalidDate: true }).map((d) => d.toISOString().replace('Z', '000Z')),
  uuid: fc.uuid(),
  json: fc.jsonValue(),
}
const TYPES = Object.keys(valueOf) as FieldType[]

test('a page of built records, stringified, is byte for byte the page of records the writer writes', () => {
  const fieldsOf = fc.uniqueArray(fc.constantFrom(...TYPES), { minLength: 0, maxLength: TYPES.length })
  fc.assert(fc.property(fieldsOf.chain((types) => fc.tuple(
    fc.constant(types),
    fc.array(fc.tuple(fc.tuple(...types.map((t) => fc.option(valueOf[t]))), fc.string({ unit: 'binary' }), fc.option(fc.constantFrom('{"update":true,"delete":false}', '{"update":false,"delete":true}'), { nil: undefined })), { maxLength: 5 }),
    fc.string(), fc.option(fc.nat(), { nil: undefined }),
  )), ([types, records, token, total]) => {
    const select = selection(types.map((t) => field(`f_${t}`, t)))
    const write = recordWriter(select)
    for (const build of buildersOf(select)) {
      const texts: string[] = []
      const built = records.map(([values, etag, permissions]) => {
        // Rows carry helper columns too; neither path writes them.
        const row: Record<string, unknown> = { __order_0: 'helper', ...Object.fromEntries(types.map((t, i) => [`f_${t}`, values[i]])) }
        texts.push(write(row, etag, permissions))
        return build(row, etag, permissions === undefined ? undefined : JSON.parse(permissions))
      })
      const tokenJson = JSON.stringify(token)
      assert.equal(listJson(built, token, built.length, total),
        `{"items":[${texts.join(',')}],"next_page_token":${tokenJson},"total_size_estimate":${built.length}${total === undefined ? '' : `,"total_size":${total}`}}`)
      assert.equal(seekJson(built, token, 'prev'), `{"items":[${texts.join(',')}],"next_page_token":${tokenJson},"prev_page_token":"prev"}`)
    }
  }), { numRuns: 1000 })
})
