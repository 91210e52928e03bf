import { test } from 'node:test'
import assert from 'node:assert/strict'
import { tableKey } from '../../plugins/scan-guard/explain.js'

test('two tables whose schema and name join to the same dotted text keep apart', () => {
  assert.notEqual(tableKey({ schema: 'a.b', table: 'c' }), tableKey({ schema: 'a', table: 'b.c' }))
  assert.equal(tableKey({ schema: 'public', table: 'big' }), tableKey({ schema: 'public', table: 'big' }))
})
