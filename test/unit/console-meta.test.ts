// What the console makes of GET /api/meta (console/src/meta.ts, title.ts): a list's columns, the
// menu, labels, and a record's title with the fields a `fields` mask must carry for it.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { columnsOf, isNumeric, labelOf, menuOf, type Meta } from '../../console/src/meta.js'
import { titleFieldsOf, titleOf } from '../../console/src/title.js'

const META: Meta = {
  resources: {
    orders: {
      key: ['id'],
      fields: { id: { type: 'integer' }, title: { type: 'string' }, status: { type: 'string' }, rush: { type: 'boolean' }, placed_at: { type: 'timestamp' }, note: { type: 'text' } },
    },
    // No text field: the title is the key.
    lines: { key: ['order_id', 'line'], fields: { order_id: { type: 'integer' }, line: { type: 'integer' }, qty: { type: 'integer' } } },
    // The key is the first text field.
    countries: { key: ['code'], fields: { population: { type: 'bigint' }, code: { type: 'string' }, name: { type: 'string' } } },
    projects: { key: ['id'], tenantField: 'org_id', fields: { id: { type: 'uuid' }, name: { type: 'string' }, org_id: { type: 'uuid' } } },
  },
  views: {
    orders: { title: '{title} ({status}){rush}{hidden}', columns: ['title', 'margin', 'status', 'placed_at'] },
    projects: { columns: ['name'] },
  },
  userMenu: [
    { resource: 'orders' }, { resource: 'secrets' }, { resource: 'lines', label: 'Order lines' },
    { page: 'overview' }, { page: 'sales_report' }, { page: 'missing' }, { page: 'overview', label: 'Home' }, { resource: 'countries' },
  ],
  pages: [{ name: 'overview', title: 'The overview', elements: [] }, { name: 'sales_report', elements: [] }],
}

test('numeric types: integer, bigint, number and decimal', () => {
  assert.deepEqual(['integer', 'bigint', 'number', 'decimal', 'string', 'date', 'uuid', 'json'].map(isNumeric), [true, true, true, true, false, false, false, false])
})

test('a list\'s columns: chosen, else the view\'s, else every field, each one the caller reads; the tenant field for staff across organizations', () => {
  // The view names a field the caller does not read (margin): not a column.
  assert.deepEqual(columnsOf(META, 'orders'), ['title', 'status', 'placed_at'])
  assert.deepEqual(columnsOf(META, 'orders', ['status', 'id', 'nope']), ['status', 'id'])
  assert.deepEqual(columnsOf(META, 'lines'), ['order_id', 'line', 'qty'])
  assert.deepEqual(columnsOf(META, 'projects'), ['name', 'org_id'])
  assert.deepEqual(columnsOf(META, 'projects', ['org_id', 'name']), ['org_id', 'name'])
  assert.deepEqual(columnsOf(META, 'nowhere'), [])
})

test('a label from a name: separators as spaces, the first letter capital', () => {
  assert.equal(labelOf('placed_at'), 'Placed at')
  assert.equal(labelOf('order-lines'), 'Order lines')
  assert.equal(labelOf('already Nice'), 'Already Nice')
  assert.equal(labelOf('élan'), 'Élan')
  assert.equal(labelOf(''), '')
})

test('the menu keeps the entries whose resource or page the caller has, in the server\'s order, labelled', () => {
  assert.deepEqual(menuOf(META), [
    { href: '#/r/orders', label: 'Orders' },
    { href: '#/r/lines', label: 'Order lines' },
    { href: '#/p/overview', label: 'The overview' },
    { href: '#/p/sales_report', label: 'Sales report' },
    { href: '#/p/overview', label: 'Home' },
    { href: '#/r/countries', label: 'Countries' },
  ])
  assert.deepEqual(menuOf({ resources: { 'a b/c': { key: ['id'], fields: {} } }, userMenu: [{ resource: 'a b/c' }] }), [{ href: '#/r/a%20b%2Fc', label: 'A b/c' }])
  assert.deepEqual(menuOf({ resources: {}, userMenu: [] }), [])
})

test('a title from the view\'s template: each field as the screens write it, nothing for what the record lacks', () => {
  const order = { id: 7, title: 'Green tea', status: 'open', rush: true, placed_at: '2026-03-04T05:06:07Z' }
  assert.equal(titleOf(META, 'orders', order), 'Green tea (open)Yes')
  assert.equal(titleOf(META, 'orders', { ...order, status: null, rush: false }), 'Green tea ()No')
  const timed: Meta = { ...META, views: { orders: { title: '{title} at {placed_at}' } } }
  assert.equal(titleOf(timed, 'orders', order), 'Green tea at 2026-03-04 05:06:07 UTC')
})

test('without a template: the first text field that has a value, else the key', () => {
  assert.equal(titleOf({ ...META, views: {} }, 'orders', { id: 7, title: 'Green tea', note: 'n' }), 'Green tea')
  assert.equal(titleOf({ ...META, views: {} }, 'orders', { id: 7, title: null, status: 'open' }), 'open')
  assert.equal(titleOf({ ...META, views: {} }, 'orders', { id: 7 }), '7')
  assert.equal(titleOf(META, 'lines', { order_id: 7, line: 2, qty: 5 }), '7, 2')
  assert.equal(titleOf(META, 'countries', { code: 'NZ', name: 'New Zealand' }), 'NZ')
  // A resource the meta does not have: its `id`.
  assert.equal(titleOf(META, 'gone', { id: 'x1' }), 'x1')
})

test('the fields a title reads: the template\'s that the caller reads, else the key and the first text field', () => {
  assert.deepEqual(titleFieldsOf(META, 'orders'), ['title', 'status', 'rush'])
  assert.deepEqual(titleFieldsOf({ ...META, views: {} }, 'orders'), ['id', 'title'])
  assert.deepEqual(titleFieldsOf(META, 'lines'), ['order_id', 'line'])
  assert.deepEqual(titleFieldsOf(META, 'countries'), ['code'])
  assert.deepEqual(titleFieldsOf(META, 'gone'), [])
})
