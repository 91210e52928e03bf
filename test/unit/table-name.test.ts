// A config's `table` read as PostgreSQL reads a name given as text (lib/model/table-name.ts), and
// written back as SQL text.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { TableNameError, sqlNameText, tableNameParts } from '../../lib/model/table-name.js'

test('unquoted names fold to lower case, quoted ones are kept as written', () => {
  assert.deepEqual(tableNameParts('orders'), ['orders'])
  assert.deepEqual(tableNameParts('Sales.Orders'), ['sales', 'orders'])
  assert.deepEqual(tableNameParts('"Odd Schema".t2'), ['Odd Schema', 't2'])
  assert.deepEqual(tableNameParts(' "a.b" . "say ""hi""" '), ['a.b', 'say "hi"'])
  assert.deepEqual(tableNameParts('café'), ['café'])
})

test('a text that names no table says why', () => {
  for (const [text, why] of [
    ['Odd Schema.t2', /written in double quotes/],
    ['"open.t2', /not closed/],
    ['"".t2', /empty/],
    ['', /empty/],
    ['a..b', /missing/],
    ['a.b.c', /more than two/],
    ['"a"b', /written in double quotes/],
  ] as const) {
    assert.throws(() => tableNameParts(text), (err: unknown) => err instanceof TableNameError && why.test(err.message), text)
  }
})

test('written back, a name is quoted only where SQL must, and reads back the same', () => {
  for (const parts of [['orders'], ['sales', 'orders'], ['Odd Schema', 't2'], ['Mixed-Case'], ['a.b', 'say "hi"'], ['$x']]) {
    assert.deepEqual(tableNameParts(sqlNameText(parts)), parts)
  }
  assert.equal(sqlNameText(['Odd Schema', 't2']), '"Odd Schema".t2')
  assert.equal(sqlNameText(['sales', 'orders']), 'sales.orders')
})
