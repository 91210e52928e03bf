// The value grammar of every field type, from one table of texts (test/fixtures/value-cases.ts),
// and the JSON forms bodies may use on top of it.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { isValueJson, isValueText, VALUE_EXPECTED, VALUE_PATTERNS, type ValueField } from '../../lib/model/values.js'
import { valueSchema } from '../../lib/model/field-types.js'
import { Value } from '@sinclair/typebox/value'
import type { FieldType } from '../../lib/model/types.js'
import { VALUE_CASES } from '../fixtures/value-cases.js'

const field = (type: FieldType, columnType?: string): ValueField => ({ type, columnType })

test('each text is valid or not for its field type, as the table says', () => {
  const wrong = VALUE_CASES.filter((c) => isValueText(field(c.type, c.column), c.text) !== c.valid)
  assert.deepEqual(wrong, [])
})

test('the table covers every field type, each with valid and invalid texts', () => {
  for (const type of Object.keys(VALUE_EXPECTED) as FieldType[]) {
    const cases = VALUE_CASES.filter((c) => c.type === type)
    assert.ok(cases.length > 0, type)
    if (type !== 'string') assert.ok(cases.some((c) => !c.valid), type)
    if (type !== 'json') assert.ok(cases.some((c) => c.valid), type)
  }
})

test('a body gives the same texts as strings, and numbers where the type is numeric', () => {
  const cases: ReadonlyArray<readonly [FieldType, unknown, boolean, string?]> = [
    ['integer', 42, true], ['integer', -0, true], ['integer', 1e3, true], ['integer', 1.5, false], ['integer', 2147483648, false], ['integer', '42', false], ['integer', true, false],
    ['bigint', '9223372036854775807', true], ['bigint', '9223372036854775808', false], ['bigint', 9007199254740991, true], ['bigint', -9007199254740991, true],
    ['bigint', 9007199254740992, false], ['bigint', 1.5, false],
    ['decimal', '4.50', true], ['decimal', 4.5, true], ['decimal', 1e300, true], ['decimal', '1e131071', false], ['decimal', JSON.parse('1e400'), false], ['decimal', true, false],
    ['number', 1e308, true], ['number', 5e-324, true], ['number', JSON.parse('1e400'), false], ['number', '1.5', false],
    ['number', 3e38, true, 'float4'], ['number', 1e39, false, 'float4'], ['number', 1e-46, false, 'float4'],
    ['boolean', true, true], ['boolean', false, true], ['boolean', 'true', false], ['boolean', 1, false],
    ['date', '2024-02-29', true], ['date', '2025-02-29', false], ['date', 20260131, false],
    ['timestamp', '2026-01-31T12:00:00Z', true], ['timestamp', '9999-12-31T23:59:59.999999-14:00', false], ['timestamp', 1769860800000, false],
    ['uuid', '123e4567-e89b-12d3-a456-426614174000', true], ['uuid', 123, false],
    ['string', 'x', true], ['string', '', true], ['string', 5, false], ['string', ['x'], false],
    ['json', { a: [1] }, true], ['json', 'x', true], ['json', 5, true], ['json', false, true],
    ['date', {}, false], ['decimal', [1], false],
  ]
  for (const [type, value, valid, column] of cases) assert.equal(isValueJson(field(type, column), value), valid, `${type} ${JSON.stringify(value)}`)
})

test('every text the grammar accepts also passes its JSON schema: the schema cannot refuse it first', () => {
  for (const c of VALUE_CASES.filter((c) => c.valid && ['bigint', 'decimal', 'date', 'timestamp', 'uuid', 'string'].includes(c.type))) {
    assert.ok(Value.Check(valueSchema({ type: c.type }), c.text), `${c.type} ${c.text}`)
  }
  // The patterns are the grammar's syntax, published in the schemas (and OpenAPI).
  assert.equal((valueSchema({ type: 'timestamp' }) as { pattern?: string }).pattern, VALUE_PATTERNS.timestamp)
})

test('what a valid value is, in words that quote nothing sent', () => {
  assert.equal(VALUE_EXPECTED.timestamp, 'an RFC 3339 timestamp such as 2026-01-31T12:00:00Z or 2026-01-31T13:00:00.5+01:00, from year 0001 to 9999 in UTC')
  assert.equal(VALUE_EXPECTED.integer, 'a whole number from -2147483648 to 2147483647')
})
