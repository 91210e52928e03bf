// A list's state in the hash's query and the filter it sends (console/src/list-state.ts): what a
// link may bring and what is left out of it, chips typed as their fields are, and search text
// that stays text whatever it holds. Through the hash: console-route.test.ts.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { condition, filterOf, quoted, readState, writeState, type ListState } from '../../console/src/list-state.js'
import type { FieldMeta } from '../../console/src/meta.js'

const EMPTY: ListState = { search: '', filter: '', chips: [], showDeleted: false, orderBy: undefined }
const read = (query: string, filters: readonly string[] = ['status', 'priority', 'rush', 'note']): ListState => readState(new URLSearchParams(query), filters)

test('an empty query is the empty state, and the empty state writes nothing', () => {
  assert.deepEqual(read(''), EMPTY)
  assert.equal(writeState(EMPTY).toString(), '')
})

test('chip values come back typed as JSON wrote them: text, numbers, booleans and null', () => {
  assert.deepEqual(read('f.status=%22open%22&f.priority=2&f.rush=false&f.note=null').chips, [
    { field: 'status', value: 'open' }, { field: 'priority', value: 2 }, { field: 'rush', value: false }, { field: 'note', value: null },
  ])
  // "2" the text is not 2 the number.
  assert.deepEqual(read('f.status=%222%22').chips, [{ field: 'status', value: '2' }])
})

test('a link\'s chips are dropped where the field is not the caller\'s filter, the value is no JSON scalar, or the field has one already', () => {
  assert.deepEqual(read('f.margin=%2211.75%22&f.status=%22open%22').chips, [{ field: 'status', value: 'open' }])
  for (const value of ['open', '%7B%22a%22%3A1%7D', '%5B1%5D', '']) assert.deepEqual(read(`f.status=${value}`).chips, [], value)
  assert.deepEqual(read('f.status=%22open%22&f.status=%22closed%22').chips, [{ field: 'status', value: 'open' }])
  // The chips keep the query's order, not the view's filters'.
  assert.deepEqual(read('f.rush=true&f.status=%22open%22').chips.map((chip) => chip.field), ['rush', 'status'])
  // `f.` alone names no field of the caller's.
  assert.deepEqual(read('f.=1', ['status']).chips, [])
})

test('show_deleted only as true, and an empty order_by is the view\'s sort', () => {
  for (const value of ['1', 'yes', 'TRUE', '']) assert.equal(read(`show_deleted=${value}`).showDeleted, false, value)
  assert.equal(read('show_deleted=true').showDeleted, true)
  assert.equal(read('order_by=').orderBy, undefined)
  assert.equal(read('order_by=total+desc').orderBy, 'total desc')
})

test('a state is written in one order, and read back as it was', () => {
  const state: ListState = {
    search: '  green "tea" ', filter: 'total > 10', chips: [{ field: 'note', value: null }, { field: 'status', value: 'a&b=c' }], showDeleted: true, orderBy: 'customer.name',
  }
  assert.equal(writeState(state).toString(), 'q=++green+%22tea%22+&filter=total+%3E+10&f.note=null&f.status=%22a%26b%3Dc%22&show_deleted=true&order_by=customer.name')
  assert.deepEqual(readState(writeState(state), ['status', 'note']), state)
})

test('a string literal: quotes, backslashes, stars and control characters escaped, the rest as typed', () => {
  assert.equal(quoted('plain tea'), '"plain tea"')
  assert.equal(quoted('say "hi" \\ 5* a\nb\rc\td'), '"say \\"hi\\" \\\\ 5\\* a\\nb\\rc\\td"')
  assert.equal(quoted('é \' % ( ) AND'), '"é \' % ( ) AND"')
  assert.equal(quoted(''), '""')
})

const FIELDS: Record<string, FieldMeta> = {
  status: { type: 'string' }, zip: { type: 'string' }, priority: { type: 'integer' }, margin: { type: 'decimal' }, big: { type: 'bigint' }, rush: { type: 'boolean' },
}

test('a chip\'s condition is typed as its field: numbers bare on numeric fields only, null as isNull', () => {
  assert.equal(condition('note', null, undefined), 'isNull(note)')
  assert.equal(condition('rush', true, FIELDS.rush), 'rush = true')
  assert.equal(condition('priority', 2, FIELDS.priority), 'priority = 2')
  assert.equal(condition('margin', '11.75', FIELDS.margin), 'margin = 11.75')
  assert.equal(condition('big', '-9007199254740993', FIELDS.big), 'big = -9007199254740993')
  assert.equal(condition('priority', '1e3', FIELDS.priority), 'priority = 1e3')
  // Text that is no number stays a string, on any field; so does a number on a text field (its zeros count).
  for (const text of ['1.', '.5', ' 1', '0x10', 'NaN', '']) assert.equal(condition('margin', text, FIELDS.margin), `margin = ${quoted(text)}`, text)
  assert.equal(condition('zip', '02134', FIELDS.zip), 'zip = "02134"')
  assert.equal(condition('zip', '02134', undefined), 'zip = "02134"')
  assert.equal(condition('status', 'say "hi"*', FIELDS.status), 'status = "say \\"hi\\"\\*"')
})

test('the list\'s filter: the search, the link\'s filter, then each chip, ANDed; a facet counts without its own chip', () => {
  assert.equal(filterOf(EMPTY, FIELDS), '')
  assert.equal(filterOf({ ...EMPTY, search: '   ', filter: ' ' }, FIELDS), '')
  // A search is one quoted string: its quotes and stars are text, not syntax.
  assert.equal(filterOf({ ...EMPTY, search: ' "0* ' }, FIELDS), 'search("\\"0\\*")')
  const state: ListState = { ...EMPTY, search: 'tea', filter: ' ticket_id = 1 OR x = 2 ', chips: [{ field: 'status', value: 'open' }, { field: 'priority', value: 2 }] }
  assert.equal(filterOf(state, FIELDS), 'search("tea") AND (ticket_id = 1 OR x = 2) AND status = "open" AND priority = 2')
  assert.equal(filterOf(state, FIELDS, 'status'), 'search("tea") AND (ticket_id = 1 OR x = 2) AND priority = 2')
  assert.equal(filterOf({ ...EMPTY, chips: [{ field: 'status', value: 'open' }] }, FIELDS, 'status'), '')
})
