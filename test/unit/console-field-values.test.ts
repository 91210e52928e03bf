// Between a record's JSON values and a form's inputs, and a value as every screen writes it
// (console/src/field-values.ts): timestamps in UTC whatever the machine's zone, decimals and
// bigints never through a JS number, booleans as Yes or No, and each refusal's message.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createInputOf, displayOf, inputOf, isCheckbox, isNumeric, textOf, valueOf, type Parsed } from '../../console/src/field-values.js'
import type { FieldMeta } from '../../console/src/meta.js'

// Far from UTC (UTC+14, no DST), as the browser test's zone is: a timestamp that went through
// the local zone would show it. Node reads TZ again when it changes; each test file has its process.
process.env.TZ = 'Pacific/Kiritimati'

const field = (type: string, more: Partial<FieldMeta> = {}): FieldMeta => ({ type, ...more })
const value = (meta: FieldMeta, input: string | boolean): unknown => {
  const parsed: Parsed = valueOf(meta, input)
  assert.ok('value' in parsed, `${JSON.stringify(input)}: ${JSON.stringify(parsed)}`)
  return parsed.value
}
const error = (meta: FieldMeta, input: string): string | undefined => {
  const parsed = valueOf(meta, input)
  return 'error' in parsed ? parsed.error : undefined
}

test('the zone is the far one, so the UTC checks below mean something', () => {
  assert.equal(new Date('2026-03-04T05:06:07Z').getHours(), 19)
})

test('a boolean is a checkbox only where it cannot be null', () => {
  assert.equal(isCheckbox(field('boolean')), true)
  assert.equal(isCheckbox(field('boolean', { nullable: false })), true)
  assert.equal(isCheckbox(field('boolean', { nullable: true })), false)
  assert.equal(isCheckbox(field('string')), false)
})

test('a record\'s value as an input', () => {
  const checkbox = field('boolean')
  assert.deepEqual([true, false, null, undefined, 'true'].map((v) => inputOf(checkbox, v)), [true, false, false, false, false])
  const choice = field('boolean', { nullable: true })
  assert.deepEqual([true, false, null].map((v) => inputOf(choice, v)), ['true', 'false', ''])
  // The API's UTC wall time, to the second; an offset is turned into UTC; no date is no input.
  const at = field('timestamp')
  assert.equal(inputOf(at, '2026-03-04T05:06:07.123456Z'), '2026-03-04T05:06:07')
  assert.equal(inputOf(at, '2026-03-04T01:30:00+02:00'), '2026-03-03T23:30:00')
  assert.equal(inputOf(at, 'not a date'), '')
  assert.equal(inputOf(at, null), '')
  assert.equal(inputOf(field('json'), { a: [1, null] }), '{\n  "a": [\n    1,\n    null\n  ]\n}')
  assert.equal(inputOf(field('json'), null), '')
  assert.equal(inputOf(field('decimal'), '12.30'), '12.30')
  assert.equal(inputOf(field('bigint'), '9007199254740993'), '9007199254740993')
  assert.equal(inputOf(field('integer'), 0), '0')
  assert.equal(inputOf(field('string'), ''), '')
})

test('a create form starts from the config\'s default value, and empty where the database gives one', () => {
  assert.equal(createInputOf(field('boolean', { default: { value: true } })), true)
  assert.equal(createInputOf(field('boolean', { default: { db: true } })), false)
  assert.equal(createInputOf(field('integer', { default: { value: 5 } })), '5')
  assert.equal(createInputOf(field('string', { default: { db: true } })), '')
  assert.equal(createInputOf(field('string')), '')
  assert.equal(createInputOf(field('timestamp', { default: { value: '2026-01-02T03:04:05Z' } })), '2026-01-02T03:04:05')
})

test('an empty input is null, or refused where the field is required; only text keeps its spaces', () => {
  assert.equal(value(field('integer'), ''), null)
  assert.equal(value(field('integer'), '   '), null)
  assert.equal(error(field('integer', { required: true }), ' '), 'Required.')
  assert.equal(error(field('string', { required: true }), ''), 'Required.')
  assert.equal(value(field('string'), '  a '), '  a ')
  assert.equal(value(field('text'), '  '), '  ')
  assert.equal(value(field('integer'), ' 42 '), 42)
  assert.equal(value(field('boolean'), true), true)
  assert.equal(value(field('boolean'), false), false)
})

test('numbers: whole where integer, finite, within the field\'s bounds', () => {
  assert.equal(value(field('integer'), '-7'), -7)
  assert.equal(value(field('integer'), '1e3'), 1000)
  assert.equal(value(field('number'), '1.5'), 1.5)
  for (const text of ['1.5', 'abc', 'Infinity', '1,000']) assert.equal(error(field('integer'), text), 'Must be a whole number.', text)
  for (const text of ['abc', 'Infinity', 'NaN']) assert.equal(error(field('number'), text), 'Must be a number.', text)
  const bounded = field('integer', { minimum: 1, maximum: '10' })
  assert.equal(error(bounded, '0'), 'Must be at least 1.')
  assert.equal(error(bounded, '11'), 'Must be at most 10.')
  assert.deepEqual([value(bounded, '1'), value(bounded, '10')], [1, 10])
})

test('bigints and decimals go as the text typed, never rounded through a number', () => {
  assert.equal(value(field('bigint'), '9007199254740993'), '9007199254740993')
  assert.equal(value(field('bigint'), '+5'), '+5')
  for (const text of ['1.0', '1e3', '0x10', '- 1']) assert.equal(error(field('bigint'), text), 'Must be a whole number.', text)
  for (const text of ['12.30', '-.5', '5.', '+0.000000000000000000001']) assert.equal(value(field('decimal'), text), text)
  for (const text of ['1e3', '.', '1.2.3', '12,30']) assert.equal(error(field('decimal'), text), 'Must be a decimal number, such as 12.30.', text)
  const bounded = field('decimal', { minimum: '0', maximum: '99.99' })
  assert.equal(error(bounded, '100.00'), 'Must be at most 99.99.')
  assert.equal(error(bounded, '-0.01'), 'Must be at least 0.')
  assert.equal(value(bounded, '99.990'), '99.990')
})

test('a timestamp input is UTC wall time and goes back with Z; JSON must parse; a select\'s boolean', () => {
  assert.equal(value(field('timestamp'), '2026-03-04T05:06'), '2026-03-04T05:06:00Z')
  assert.equal(value(field('timestamp'), '2026-03-04T05:06:07'), '2026-03-04T05:06:07Z')
  // What the form shows is what it sends: the same instant.
  const at = field('timestamp')
  assert.equal(new Date(value(at, inputOf(at, '2026-10-25T01:30:00Z') as string) as string).toISOString(), '2026-10-25T01:30:00.000Z')
  assert.deepEqual(value(field('json'), ' {"a": [1, null]} '), { a: [1, null] })
  assert.equal(value(field('json'), 'null'), null)
  assert.equal(error(field('json'), '{a: 1}'), 'Must be valid JSON.')
  const choice = field('boolean', { nullable: true })
  assert.deepEqual([value(choice, 'true'), value(choice, 'false'), value(choice, '')], [true, false, null])
})

test('text lengths are counted on what is sent', () => {
  const sized = field('string', { minLength: 2, maxLength: 4 })
  assert.equal(error(sized, 'abcde'), 'At most 4 characters.')
  assert.equal(error(sized, 'a'), 'At least 2 characters.')
  assert.deepEqual([value(sized, 'ab'), value(sized, 'abcd')], ['ab', 'abcd'])
  assert.equal(error(field('text', { maxLength: 3 }), 'ab  '), 'At most 3 characters.')
})

test('a value as text: timestamps in UTC as the API gave them, booleans as Yes or No, nothing as nothing', () => {
  assert.equal(textOf(field('timestamp'), '2026-03-04T05:06:07.123456Z'), '2026-03-04 05:06:07.123456 UTC')
  assert.equal(textOf(field('boolean'), true), 'Yes')
  assert.equal(textOf(field('boolean'), false), 'No')
  assert.equal(textOf(field('boolean', { nullable: true }), null), '')
  assert.equal(textOf(field('string'), undefined), '')
  assert.equal(textOf(field('decimal'), '12.30'), '12.30')
  assert.equal(textOf(field('integer'), 0), '0')
  assert.equal(textOf(field('json'), { a: [1] }), '{"a":[1]}')
  // A field the caller's meta lacks: its value as it is.
  assert.equal(textOf(undefined, true), 'true')
  assert.equal(textOf(undefined, '2026-03-04T05:06:07Z'), '2026-03-04T05:06:07Z')
})

test('a value as the record screen shows it: nothing as a dash, JSON laid out, the rest as text', () => {
  assert.equal(displayOf(field('string'), null), '—')
  assert.equal(displayOf(field('string'), undefined), '—')
  assert.equal(displayOf(field('string'), ''), '')
  assert.equal(displayOf(field('json'), { a: 1 }), '{\n  "a": 1\n}')
  assert.equal(displayOf(field('boolean'), false), 'No')
  assert.equal(displayOf(field('timestamp'), '2026-03-04T05:06:07Z'), '2026-03-04 05:06:07 UTC')
})

test('numeric fields: integers, numbers, bigints and decimals', () => {
  assert.deepEqual(['integer', 'number', 'bigint', 'decimal', 'string', 'boolean', 'timestamp'].map((type) => isNumeric(field(type))), [true, true, true, true, false, false, false])
  assert.equal(isNumeric(undefined), false)
})
