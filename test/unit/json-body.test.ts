// Duplicate member names found in valid JSON text, escapes decoded, strings and nesting respected.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { hasDuplicateKeys } from '../../lib/http/json-body.js'

const CASES: Array<[string, boolean]> = [
  ['{}', false],
  ['{"a":1,"b":2}', false],
  ['{"a":1,"a":2}', true],
  ['{"a":1,"\\u0061":2}', true],
  ['{"a\\"":1,"a":2}', false],
  ['{"a":{"a":1},"b":{"a":2}}', false],
  ['{"a":{"b":1,"b":2}}', true],
  ['[{"a":1},{"a":1}]', false],
  ['[{"a":1,"a":1}]', true],
  ['{"a":["a","a"],"b":"a"}', false],
  ['{"a":"\\\\","a":1}', true],
  ['{"x":"{\\"a\\":1,\\"a\\":2}"}', false],
  ['"a"', false],
  ['[1,2,[3,{"k":[{"k":1}]}]]', false],
]

test('duplicate member names', () => {
  for (const [text, duplicate] of CASES) {
    JSON.parse(text)
    assert.equal(hasDuplicateKeys(text), duplicate, text)
  }
})
