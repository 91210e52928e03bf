// Query parameters and headers → typed values. Each refusal is a 400 invalid-parameter problem
// with `errors: [{ parameter, message }]`.
import { problem } from '../problems.js'
import { didYouMean } from '../text.js'
import type { FieldModel, ResourceModel } from '../model/types.js'
import { INT4_MAX } from '../model/values.js'

export const DEFAULT_PAGE_SIZE = 50
export const MAX_PAGE_SIZE = 500

/** 400 invalid-parameter, naming the parameter in `errors`. */
export function invalidParameter (parameter: string, message: string): never {
  throw problem('invalid-parameter', message, { errors: [{ parameter, message }] })
}

/** Refuses parameters a route does not take, so a typo (`filtr=`) is never silently ignored. */
export function checkKnownParameters (query: Readonly<Record<string, unknown>>, known: readonly string[]): void {
  for (const name of Object.keys(query)) {
    if (known.includes(name)) continue
    invalidParameter(name, known.length === 0
      ? `Unknown parameter '${name}': this route takes no query parameters.`
      : `Unknown parameter '${name}'${didYouMean(name, known)}. Known: ${known.join(', ')}.`)
  }
}

/** A text parameter: absent is empty text; anything but text (a JSON number in a body) is refused. */
export function textParameter (parameter: string, value: unknown): string {
  if (value === undefined) return ''
  if (typeof value === 'string') return value
  return invalidParameter(parameter, Array.isArray(value) ? `${parameter} must be given once.` : `${parameter} must be text.`)
}

/** `count`: only `exact`, which asks for `total_size`. */
export function parseCount (value: unknown): boolean {
  if (value === undefined) return false
  if (value === 'exact') return true
  return invalidParameter('count', 'count takes one value: exact.')
}

function single (parameter: string, value: unknown): string | undefined {
  if (value === undefined) return undefined
  if (typeof value === 'string') return value
  if (typeof value === 'number' || typeof value === 'boolean') return String(value)
  return invalidParameter(parameter, Array.isArray(value) ? `${parameter} must be given once.` : `${parameter} must be a single value, not ${value === null ? 'null' : 'an object'}.`)
}

/** page_size: default 50; above 500 is coerced to 500 (AIP-158); zero, negative or not a number is 400. */
export function parsePageSize (value: unknown): number {
  const text = single('page_size', value)
  if (text === undefined) return DEFAULT_PAGE_SIZE
  if (!/^[0-9]+$/.test(text) || Number(text) < 1 || Number(text) > INT4_MAX) invalidParameter('page_size', `page_size must be a whole number from 1 to ${INT4_MAX} (larger than ${MAX_PAGE_SIZE} counts as ${MAX_PAGE_SIZE}).`)
  return Math.min(Number(text), MAX_PAGE_SIZE)
}

export function parseBoolean (parameter: string, value: unknown): boolean {
  const text = single(parameter, value)
  if (text === undefined || text === 'false') return false
  if (text === 'true') return true
  return invalidParameter(parameter, `${parameter} must be true or false.`)
}

export function parseShowDeleted (model: ResourceModel, value: unknown): boolean {
  const show = parseBoolean('show_deleted', value)
  if (show && model.softDelete === undefined) {
    invalidParameter('show_deleted', `${model.name} has no soft delete: its deleted records are gone, so show_deleted=true does not apply.`)
  }
  return show
}

/** The items of a `fields` mask as given: a comma separated list (query) or an array (:search body). */
export function fieldMaskItems (value: unknown): readonly unknown[] {
  return Array.isArray(value) ? value : typeof value === 'string' ? value.split(',') : invalidParameter('fields', 'fields must be a comma separated list of field names.')
}

/** One item of a `fields` mask, trimmed: '' and `etag` name nothing to add. */
export function fieldMaskName (raw: unknown): string {
  if (typeof raw !== 'string') invalidParameter('fields', 'fields must be a list of field names (strings).')
  return raw.trim()
}

/** The refusal of a `fields` item that names nothing the caller may read, with the nearest they may. */
export function unknownField (name: string, near: string, known: Iterable<string>): never {
  return invalidParameter('fields', `fields: '${name}' is not a field${didYouMean(near, known)}.`)
}

/**
 * `fields`: a comma separated list (query) or an array (:search body) of readable fields. Only the
 * caller's readable fields are known, so a hidden field is refused exactly like a missing one.
 */
export function parseFieldMask (readable: readonly FieldModel[], value: unknown): readonly FieldModel[] {
  if (value === undefined) return readable
  const byName = new Map(readable.map((f) => [f.name, f]))
  const wanted = new Set<string>()
  for (const raw of fieldMaskItems(value)) {
    const name = fieldMaskName(raw)
    if (name === '' || name === 'etag') continue
    if (!byName.has(name)) unknownField(name, name, byName.keys())
    wanted.add(name)
  }
  // An empty mask still returns etag; fields keep the model's order.
  return readable.filter((f) => wanted.has(f.name))
}

export type PreferReturn = 'minimal' | 'representation' | undefined

export function parsePrefer (header: string | string[] | undefined): PreferReturn {
  const text = Array.isArray(header) ? header.join(',') : header ?? ''
  const match = /(?:^|[,;\s])return\s*=\s*"?(minimal|representation)"?/i.exec(text)
  return match === null ? undefined : match[1]!.toLowerCase() as PreferReturn
}

/**
 * Whether If-None-Match says the client's copy is current (a GET answers 304): `*` for any
 * record, or one of its entity tags by weak comparison (RFC 9110 §13.1.2: `W/"x"` matches `"x"`).
 */
export function noneMatch (header: string | string[] | undefined, etag: string): boolean {
  const text = (Array.isArray(header) ? header.join(',') : header)?.trim()
  if (text === undefined || text === '') return false
  if (text === '*') return true
  return text.split(',').some((tag) => {
    const opaque = tag.trim().replace(/^W\//, '')
    // Quotes are optional, as in If-Match.
    return (opaque.startsWith('"') ? opaque : `"${opaque}"`) === etag
  })
}

/** If-Match: `*`, or a list of entity tags; quotes are optional, weak tags never match. */
export function parseIfMatch (header: string | string[] | undefined): '*' | string[] | undefined {
  const text = (Array.isArray(header) ? header.join(',') : header)?.trim()
  if (text === undefined || text === '') return undefined
  if (text === '*') return '*'
  return text.split(',').map((t) => t.trim()).filter((t) => t !== '' && !t.startsWith('W/'))
    .map((t) => t.startsWith('"') && t.endsWith('"') && t.length >= 2 ? t : `"${t}"`)
}
