// What a column holds beyond its field type: the length of varchar(n) and char(n), the precision
// of numeric(p,s), the range of int2/int4/int8, an enum's labels, the text jsonb stores. Read from
// the catalogue at startup (introspect.ts) and checked on every value written and every key, so a
// value the database would refuse is a field error naming its field, never a bare 22xxx.
import { isValueText } from './values.js'
import type { ColumnLimit } from './types.js'

const INTEGER_RANGES: Readonly<Record<string, { min: bigint, max: bigint }>> = {
  int2: { min: -(2n ** 15n), max: 2n ** 15n - 1n },
  int4: { min: -(2n ** 31n), max: 2n ** 31n - 1n },
  int8: { min: -(2n ** 63n), max: 2n ** 63n - 1n },
}

/** PostgreSQL's varlena header size, which varchar/char typmods include. */
const VARHDRSZ = 4

/**
 * The limit of a column, from its base type name (`enum` for enums), its typmod (-1 for none) and
 * its enum labels; undefined when the field type's own grammar is all the column asks.
 */
export function columnLimit (type: string, typmod: number, labels: readonly string[] | null): ColumnLimit | undefined {
  const range = INTEGER_RANGES[type]
  if (range !== undefined) return { kind: 'integer', ...range }
  if (type === 'enum' && labels !== null) return { kind: 'labels', labels }
  if (type === 'jsonb') return { kind: 'jsonb' }
  if (typmod < VARHDRSZ) return undefined
  if (type === 'varchar' || type === 'bpchar') return { kind: 'characters', max: typmod - VARHDRSZ }
  if (type === 'numeric') {
    const packed = typmod - VARHDRSZ
    // The scale is an 11-bit signed number since PostgreSQL 15 (numeric(2,-3) is allowed).
    return { kind: 'numeric', precision: (packed >> 16) & 0xffff, scale: ((packed & 0x7ff) ^ 1024) - 1024 }
  }
  return undefined
}

/** The text PostgreSQL parses for a JSON body value: a number as its shortest text. */
function textOf (value: unknown): string | undefined {
  if (typeof value === 'string') return value
  return typeof value === 'number' ? String(value) : undefined
}

/** Over `max` characters (code points), unless the excess is spaces: PostgreSQL cuts those off. */
function tooLong (text: string, max: number): boolean {
  if (text.length <= max) return false
  const chars = [...text]
  return chars.length > max && chars.slice(max).some((c) => c !== ' ')
}

const PLAIN_INTEGER = /^-?[0-9]+$/
const DECIMAL_PARTS = /^(-?)([0-9]*)(?:\.([0-9]*))?(?:[eE]([-+]?[0-9]+))?$/

/** |value| × 10^scale, rounded half away from zero as numeric rounds; undefined for a non-number. */
function scaledMagnitude (text: string, scale: number): bigint | undefined {
  const m = DECIMAL_PARTS.exec(text)
  if (m === null) return undefined
  const fraction = m[3] ?? ''
  const digits = BigInt(`0${m[2] ?? ''}${fraction}`)
  const shift = Number(m[4] ?? 0) - fraction.length + scale
  if (shift >= 0) return digits * 10n ** BigInt(shift)
  const divisor = 10n ** BigInt(-shift)
  return digits / divisor + (2n * (digits % divisor) >= divisor ? 1n : 0n)
}

/** The largest value numeric(precision, scale) holds, as text: 999.99 for numeric(5,2). */
function numericMax (precision: number, scale: number): string {
  const nines = '9'.repeat(precision)
  if (scale <= 0) return nines + '0'.repeat(-scale)
  if (scale >= precision) return `0.${'0'.repeat(scale - precision)}${nines}`
  return `${nines.slice(0, precision - scale)}.${nines.slice(precision - scale)}`
}

function rounding (scale: number): string {
  if (scale > 0) return `${scale} decimal place${scale === 1 ? '' : 's'}`
  return scale === 0 ? 'a whole number' : `a multiple of 1${'0'.repeat(-scale)}`
}

/** Whether every string of a JSON value, keys included, is text jsonb can store. */
function storableJson (value: unknown): boolean {
  const pending = [value]
  while (pending.length > 0) {
    const item = pending.pop()
    if (typeof item === 'string' && !isValueText({ type: 'string', columnType: undefined }, item)) return false
    if (item !== null && typeof item === 'object') {
      if (Array.isArray(item)) pending.push(...(item as unknown[]))
      else for (const [key, member] of Object.entries(item)) pending.push(key, member)
    }
  }
  return true
}

/**
 * What a non-null value (already a valid value of its field type) breaks of its column's limit,
 * in fixed words that complete "<field> ...", never quoting the value; undefined when it fits.
 */
export function columnLimitBroken (limit: ColumnLimit | undefined, value: unknown): string | undefined {
  if (limit === undefined) return undefined
  const text = textOf(value)
  switch (limit.kind) {
    case 'characters':
      return text !== undefined && tooLong(text, limit.max) ? `must be at most ${limit.max} characters long` : undefined
    // A text column keeps trailing spaces, so every code point counts.
    case 'text':
      return text !== undefined && text.length > limit.max && [...text].length > limit.max ? `must be at most ${limit.max} characters long` : undefined
    case 'integer': {
      const fits = text !== undefined && PLAIN_INTEGER.test(text) && text.replace(/^-?0*/, '').length <= 19 &&
        BigInt(text) >= limit.min && BigInt(text) <= limit.max
      return fits ? undefined : `must be a whole number from ${limit.min} to ${limit.max}`
    }
    case 'numeric': {
      const magnitude = text === undefined ? undefined : scaledMagnitude(text, limit.scale)
      if (magnitude !== undefined && magnitude < 10n ** BigInt(limit.precision)) return undefined
      const max = numericMax(limit.precision, limit.scale)
      return `must be from -${max} to ${max} (the column rounds it to ${rounding(limit.scale)})`
    }
    case 'labels':
      return text !== undefined && limit.labels.includes(text) ? undefined : `must be one of ${limit.labels.map((l) => JSON.stringify(l)).join(', ')}`
    case 'jsonb':
      return storableJson(value) ? undefined : 'must be JSON whose strings hold no NUL characters (\\u0000) or unpaired surrogates'
  }
}
