// Write body → column values, or 400 invalid-record with `errors: [{ field, code, message }]`.
// Only writable fields are accepted; a field the caller cannot read is refused exactly like one
// that does not exist. Messages come from fixed wording: a rejected value is never echoed.
import { Value } from '@sinclair/typebox/value'
import { problem } from '../problems.js'
import type { FieldModel, ResourceModel } from '../model/types.js'
import { isValueJson, VALUE_EXPECTED } from '../model/values.js'

export interface FieldIssue {
  readonly field: string
  readonly code: string
  readonly message: string
}

export type WriteMode = 'create' | 'update'

/** Field → value as sent to PostgreSQL (json stringified, int8/numeric as text). */
export type ColumnValues = ReadonlyMap<FieldModel, unknown>

export function invalidRecord (issues: readonly FieldIssue[]): never {
  const detail = issues.length === 1 ? issues[0]!.message : `The record has ${issues.length} problems.`
  throw problem('invalid-record', detail, { errors: issues })
}

function toParameter (field: FieldModel, value: unknown): unknown {
  if (value === null) return null
  if (field.type === 'json') return JSON.stringify(value)
  if (field.type === 'bigint' || field.type === 'decimal') return String(value)
  return value
}

function valueIssue (field: FieldModel, value: unknown): FieldIssue | undefined {
  if (value === null) {
    return field.nullable ? undefined : { field: field.name, code: 'required', message: `${field.name} cannot be null.` }
  }
  // The type's grammar first (values.ts, shared with keys and filters), then the field's own rules.
  if (!isValueJson(field, value)) return { field: field.name, code: 'invalid', message: `${field.name} must be ${VALUE_EXPECTED[field.type]}.` }
  if (field.accepts(value)) return undefined
  const first = Value.Errors(field.schema, value).First()
  const reason = first === undefined ? 'is invalid' : first.message.replace(/^Expected/, 'must be').replace(/ union value$/, ' valid value')
  return { field: field.name, code: 'invalid', message: `${field.name} ${reason.charAt(0).toLowerCase()}${reason.slice(1)}.` }
}

/**
 * Checks a body against the caller's fields: `readable` decides what exists for the caller,
 * `writable` what they may set. Returns the values to write, defaults included on create.
 */
export function validateBody (model: ResourceModel, readable: readonly FieldModel[], writable: readonly FieldModel[], body: unknown, mode: WriteMode): ColumnValues {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    invalidRecord([{ field: 'body', code: 'type', message: 'The body must be a JSON object of field values.' }])
  }
  const issues: FieldIssue[] = []
  const values = new Map<FieldModel, unknown>()
  for (const [name, value] of Object.entries(body)) {
    if (name === 'etag') {
      issues.push({ field: 'etag', code: 'not-allowed', message: 'etag is not part of a record body: send it in the If-Match header.' })
      continue
    }
    const field = readable.find((f) => f.name === name)
    if (field === undefined) {
      issues.push({ field: name, code: 'unknown', message: `${name} is not a field of ${model.name}.` })
      continue
    }
    if (!writable.includes(field)) {
      issues.push({ field: name, code: 'read-only', message: `${name} is read-only.` })
      continue
    }
    const issue = valueIssue(field, value)
    if (issue !== undefined) issues.push(issue)
    else values.set(field, toParameter(field, value))
  }
  if (mode === 'create') {
    for (const field of writable) {
      if (values.has(field) || (body as Record<string, unknown>)[field.name] !== undefined) continue
      if (field.hasDefault) values.set(field, toParameter(field, field.default))
      else if (field.required && !field.dbDefault) issues.push({ field: field.name, code: 'required', message: `${field.name} is required.` })
    }
  }
  if (issues.length > 0) invalidRecord(issues)
  return values
}
