// Field type × value → valid or not: the one grammar of field values, shared by request bodies
// (JSON values), URL keys and filters (text), so the three accept exactly the same values.
import type { FieldModel, FieldType } from './types.js'

/** What a check needs of a field: its type, and the column it sits on (float4 holds less). */
export type ValueField = Pick<FieldModel, 'type' | 'columnType'>

/**
 * The syntax of each text form, also the `pattern` of the JSON schemas (OpenAPI). A match is
 * necessary, not sufficient: ranges and calendars are checked by `isValueText`.
 */
export const VALUE_PATTERNS = {
  integer: '^-?[0-9]+$',
  decimal: '^-?(?:[0-9]+(?:\\.[0-9]*)?|\\.[0-9]+)(?:[eE]([-+]?[0-9]+))?$',
  date: '^([0-9]{4})-([0-9]{2})-([0-9]{2})$',
  timestamp: '^([0-9]{4})-([0-9]{2})-([0-9]{2})[Tt]([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\\.([0-9]{1,100}))?(?:[Zz]|([+-])([0-9]{2}):([0-9]{2}))$',
  uuid: '^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$',
} as const

/**
 * The longest text of each patterned type: a date's and a uuid's patterns allow no more, a
 * timestamp's 100 fraction digits and an offset; an int8 is 20 characters with its sign.
 */
export const MAX_VALUE_TEXT = { bigint: 20, date: 10, timestamp: 126, uuid: 36 } as const

export const INT4_MIN = -2147483648
export const INT4_MAX = 2147483647

/**
 * Decimal bounds: PostgreSQL takes exponents into the hundred thousands and would store that many
 * digits (1e131071 is 131,072 of them); real amounts need nothing near these.
 */
export const MAX_DECIMAL_TEXT = 100
const MAX_EXPONENT = 1000

/**
 * Arrays and objects inside a json value, counted from its top: far below what JSON.stringify's
 * recursion and PostgreSQL's jsonb parser (its stack depth limit) can take.
 */
export const MAX_JSON_DEPTH = 100

/** Whether a JSON value nests no deeper than `MAX_JSON_DEPTH`, walked without recursion. */
function shallowJson (value: unknown): boolean {
  let level: unknown[] = [value]
  for (let depth = 0; level.length > 0; depth++) {
    const next: unknown[] = []
    for (const item of level) {
      if (item !== null && typeof item === 'object') next.push(...(Array.isArray(item) ? item : Object.values(item)))
    }
    if (next.length > 0 && depth >= MAX_JSON_DEPTH) return false
    level = next
  }
  return true
}

/** What a valid value is, in fixed words: refusals say what is expected, never what was sent. */
export const VALUE_EXPECTED: Readonly<Record<FieldType, string>> = {
  string: 'a string without NUL characters or unpaired surrogates',
  integer: `a whole number from ${INT4_MIN} to ${INT4_MAX}`,
  bigint: 'a whole number from -9223372036854775808 to 9223372036854775807 (as a string beyond 9007199254740991)',
  number: 'a finite number the column can hold',
  decimal: `a decimal number of at most ${MAX_DECIMAL_TEXT} characters, its exponent at most ${MAX_EXPONENT}`,
  boolean: 'true or false',
  date: 'a date YYYY-MM-DD from 0001-01-01 to 9999-12-31',
  timestamp: 'an RFC 3339 timestamp such as 2026-01-31T12:00:00Z or 2026-01-31T13:00:00.5+01:00, from year 0001 to 9999 in UTC',
  uuid: 'a UUID',
  json: `JSON nested at most ${MAX_JSON_DEPTH} levels deep`,
}

const INTEGER = new RegExp(VALUE_PATTERNS.integer)
const DECIMAL = new RegExp(VALUE_PATTERNS.decimal)
const DATE = new RegExp(VALUE_PATTERNS.date)
const TIMESTAMP = new RegExp(VALUE_PATTERNS.timestamp)
const UUID = new RegExp(VALUE_PATTERNS.uuid)
const ZERO = /^-?[0.]*(?:[eE].*)?$/
const INT4 = { min: BigInt(INT4_MIN), max: BigInt(INT4_MAX) }
const INT8 = { min: -(2n ** 63n), max: 2n ** 63n - 1n }

function inIntRange (text: string, range: { min: bigint, max: bigint }): boolean {
  // Leading zeros are valid (PostgreSQL reads 007); past 19 digits no int8 fits, so huge texts
  // never reach BigInt.
  if (!INTEGER.test(text) || text.replace(/^-?0*/, '').length > 19) return false
  const n = BigInt(text)
  return n >= range.min && n <= range.max
}

function validDecimal (text: string): boolean {
  const m = DECIMAL.exec(text)
  return m !== null && text.length <= MAX_DECIMAL_TEXT && Math.abs(Number(m[1] ?? 0)) <= MAX_EXPONENT
}

/** A float (float4 on a float4 column) that neither overflows nor underflows to 0: PostgreSQL refuses both. */
function validFloat (text: string, columnType: string | undefined): boolean {
  if (!validDecimal(text)) return false
  const n = columnType === 'float4' ? Math.fround(Number(text)) : Number(text)
  return Number.isFinite(n) && (n !== 0 || ZERO.test(text))
}

function isLeapYear (year: number): boolean {
  return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)
}

/** A proleptic Gregorian date, as PostgreSQL's; there is no year 0. */
function calendarDate (year: number, month: number, day: number): boolean {
  const days = [31, isLeapYear(year) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
  return year >= 1 && days !== undefined && day >= 1 && day <= days
}

function validDate (text: string): boolean {
  const m = DATE.exec(text)
  return m !== null && calendarDate(Number(m[1]), Number(m[2]), Number(m[3]))
}

function utcMs (year: number, month: number, day: number, hour: number, minute: number, second: number): number {
  // setUTCFullYear, as Date.UTC reads years 0-99 as 1900-1999; setUTCHours carries minutes shifted
  // by the offset, and a rounded-up second, into neighbouring days.
  const d = new Date(0)
  d.setUTCFullYear(year, month - 1, day)
  return d.setUTCHours(hour, minute, second, 0)
}

// Outside these, PostgreSQL stores the instant but writes it as `10000-...` or `... BC`, not ISO 8601.
const FIRST_INSTANT = utcMs(1, 1, 1, 0, 0, 0)
const END_INSTANT = utcMs(10000, 1, 1, 0, 0, 0)

/**
 * Microseconds of a fraction of a second, rounded as PostgreSQL rounds it (`rint` of the parsed
 * double: half to even); 1,000,000 when it carries into the next second.
 */
function roundedMicros (fraction: string): number {
  const exact = Number(`0.${fraction}`) * 1_000_000
  const rounded = Math.round(exact)
  return rounded - exact === 0.5 && rounded % 2 !== 0 ? rounded - 1 : rounded
}

/**
 * An RFC 3339 date-time, exactly: `T` (or `t`), seconds, an optional fraction of any length up to
 * 100 digits (PostgreSQL rounds it to microseconds and refuses texts much longer), and `Z` or an
 * offset `±hh:mm`. Hours run 00-23; a leap second (:60) is refused, as PostgreSQL would read it as
 * the next minute. The range check includes a fraction that rounds up into the next second.
 */
function validTimestamp (text: string): boolean {
  const m = TIMESTAMP.exec(text)
  if (m === null) return false
  const part = (i: number): number => Number(m[i] ?? 0)
  const [year, month, day, hour, minute, second] = [part(1), part(2), part(3), part(4), part(5), part(6)]
  if (!calendarDate(year, month, day) || hour > 23 || minute > 59 || second > 59) return false
  // PostgreSQL refuses zone offsets beyond 15:59.
  if (part(9) > 15 || part(10) > 59) return false
  const offset = (m[8] === '-' ? -1 : 1) * (part(9) * 60 + part(10))
  const carry = m[7] !== undefined && roundedMicros(m[7]) === 1_000_000 ? 1 : 0
  const instant = utcMs(year, month, day, hour, minute - offset, second + carry)
  return instant >= FIRST_INSTANT && instant < END_INSTANT
}

/**
 * True when PostgreSQL stores `text` as a value of the field's type, as a URL key part or a filter
 * literal gives it. A json field has no text form here: keys and comparisons never take one.
 */
// PostgreSQL text holds no NUL, and a lone surrogate has no UTF-8 form (it would be stored as
// U+FFFD): neither can be stored as sent.
const UNSTORABLE_TEXT = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/

export function isValueText (field: ValueField, text: string): boolean {
  switch (field.type) {
    case 'string': return !UNSTORABLE_TEXT.test(text)
    case 'integer': return inIntRange(text, INT4)
    // As many characters as the longest int8 (its sign and 19 digits), leading zeros included.
    case 'bigint': return text.length <= MAX_VALUE_TEXT.bigint && inIntRange(text, INT8)
    case 'number': return validFloat(text, field.columnType)
    case 'decimal': return validDecimal(text)
    case 'boolean': return text === 'true' || text === 'false'
    case 'date': return validDate(text)
    case 'timestamp': return validTimestamp(text)
    case 'uuid': return UUID.test(text)
    case 'json': return false
  }
}

/** Field types a JSON body gives as strings, and those it gives as numbers (read as their shortest text). */
const STRING_TYPES: ReadonlySet<FieldType> = new Set(['string', 'bigint', 'decimal', 'date', 'timestamp', 'uuid'])
export const NUMBER_TYPES: ReadonlySet<FieldType> = new Set(['integer', 'bigint', 'number', 'decimal'])

/**
 * True when a non-null JSON body value is a value of the field's type. A bigint may be a number
 * only while it is a safe integer: past that, JSON parsing has already rounded it.
 */
export function isValueJson (field: ValueField, value: unknown): boolean {
  if (field.type === 'json') return shallowJson(value)
  switch (typeof value) {
    case 'string': return STRING_TYPES.has(field.type) && isValueText(field, value)
    case 'number':
      if (field.type === 'bigint' && !Number.isSafeInteger(value)) return false
      return NUMBER_TYPES.has(field.type) && isValueText(field, String(value))
    case 'boolean': return field.type === 'boolean'
    default: return false
  }
}
