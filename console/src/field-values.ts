// Between a record's JSON values and a form's inputs, by the field's type. Decimals and bigints stay
// strings all the way (a JS number would round them). Timestamps are edited in UTC: the API gives
// them in UTC, the input shows that wall time under a "UTC" label and the value goes back with `Z`,
// so no browser time zone or DST gap can move an instant without the user seeing it.
import type { FieldMeta } from './meta.js'

/** What a form holds for one field: text for every input, a boolean for a checkbox. */
export type Input = string | boolean

const DECIMAL = /^[+-]?(\d+(\.\d*)?|\.\d+)$/
const BIGINT = /^[+-]?\d+$/
const INTEGER_TYPES = new Set(['integer', 'number'])

/** Whether the field is a plain checkbox: a boolean that cannot be null. */
export function isCheckbox (field: FieldMeta): boolean {
  return field.type === 'boolean' && field.nullable !== true
}

/** `2026-01-02T03:04:05.123456Z` as a datetime-local value in UTC, to the second. */
function localOf (timestamp: string): string {
  const date = new Date(timestamp)
  return Number.isNaN(date.getTime()) ? '' : date.toISOString().slice(0, 19)
}

export function inputOf (field: FieldMeta, value: unknown): Input {
  if (isCheckbox(field)) return value === true
  if (value === null || value === undefined) return ''
  switch (field.type) {
    case 'boolean': return String(value)
    case 'timestamp': return localOf(String(value))
    case 'json': return JSON.stringify(value, null, 2)
    default: return String(value)
  }
}

/** The form's initial input for a create: the config's default where there is one. */
export function createInputOf (field: FieldMeta): Input {
  const preset = field.default !== undefined && 'value' in field.default ? field.default.value : undefined
  return inputOf(field, preset)
}

export type Parsed = { readonly value: unknown } | { readonly error: string }

function bounds (field: FieldMeta, number: number): string | undefined {
  if (field.minimum !== undefined && number < Number(field.minimum)) return `Must be at least ${field.minimum}.`
  if (field.maximum !== undefined && number > Number(field.maximum)) return `Must be at most ${field.maximum}.`
  return undefined
}

/**
 * An input as the JSON value to send, or why it cannot be sent. An empty input is null (the
 * API's own check answers for a field that may not be null), except that a required field is
 * refused here first.
 */
export function valueOf (field: FieldMeta, input: Input): Parsed {
  if (typeof input === 'boolean') return { value: input }
  const text = field.type === 'json' || field.type === 'text' || field.type === 'string' ? input : input.trim()
  if (text === '') return field.required === true ? { error: 'Required.' } : { value: null }
  switch (field.type) {
    case 'integer': case 'number': {
      const number = Number(text)
      if (!Number.isFinite(number) || (field.type === 'integer' && !Number.isInteger(number))) return { error: field.type === 'integer' ? 'Must be a whole number.' : 'Must be a number.' }
      const wrong = bounds(field, number)
      return wrong === undefined ? { value: number } : { error: wrong }
    }
    case 'bigint': return BIGINT.test(text) ? { value: text } : { error: 'Must be a whole number.' }
    case 'decimal': {
      if (!DECIMAL.test(text)) return { error: 'Must be a decimal number, such as 12.30.' }
      const wrong = bounds(field, Number(text))
      return wrong === undefined ? { value: text } : { error: wrong }
    }
    case 'boolean': return { value: text === 'true' }
    case 'timestamp': return { value: `${text.length === 16 ? `${text}:00` : text}Z` }
    case 'json': try { return { value: JSON.parse(text) as unknown } } catch { return { error: 'Must be valid JSON.' } }
    default:
      if (field.maxLength !== undefined && text.length > field.maxLength) return { error: `At most ${field.maxLength} characters.` }
      if (field.minLength !== undefined && text.length < field.minLength) return { error: `At least ${field.minLength} characters.` }
      return { value: text }
  }
}

/**
 * A value as text, the same on every screen (the record, lists, cards, titles): a timestamp in
 * UTC as `2026-03-04 05:06:07.123456 UTC`, a boolean as Yes or No, nothing as ''.
 */
export function textOf (field: FieldMeta | undefined, value: unknown): string {
  if (value === null || value === undefined) return ''
  if (field?.type === 'boolean') return value === true ? 'Yes' : 'No'
  if (field?.type === 'timestamp') return String(value).replace('T', ' ').replace(/Z$/, ' UTC')
  return typeof value === 'object' ? JSON.stringify(value) : String(value)
}

/** A value as the record screen and cards show it: nothing as a dash, JSON laid out. */
export function displayOf (field: FieldMeta | undefined, value: unknown): string {
  if (value === null || value === undefined) return '—'
  if (typeof value === 'object') return JSON.stringify(value, null, 2)
  return textOf(field, value)
}

export function isNumeric (field: FieldMeta | undefined): boolean {
  return field !== undefined && (INTEGER_TYPES.has(field.type) || field.type === 'bigint' || field.type === 'decimal')
}
