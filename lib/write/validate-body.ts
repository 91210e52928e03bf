// Write body → column values, or 400 invalid-record with `errors: [{ field, code, message }]`.
// Only writable fields are accepted; a field the caller cannot read is refused exactly like one
// that does not exist. Messages come from fixed wording: a rejected value is never echoed.
import { Value } from '@sinclair/typebox/value'
import { ValueErrorType, type ValueError } from '@sinclair/typebox/errors'
import { problem } from '../problems.js'
import type { FieldModel, ResourceModel } from '../model/types.js'
import { isValueJson, VALUE_EXPECTED } from '../model/values.js'
import { columnLimitBroken } from '../model/column-limits.js'

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

/** The field's own rule a value breaks, in plain words from the schema (never the value). */
function ruleBroken (error: ValueError | undefined): string {
  const schema = (error?.schema ?? {}) as { minimum?: number, maximum?: number, minLength?: number, maxLength?: number, pattern?: string, anyOf?: Array<{ const?: unknown }> }
  switch (error?.type) {
    case ValueErrorType.NumberMaximum:
    case ValueErrorType.IntegerMaximum: return `must be at most ${schema.maximum}`
    case ValueErrorType.NumberMinimum:
    case ValueErrorType.IntegerMinimum: return `must be at least ${schema.minimum}`
    case ValueErrorType.StringMaxLength: return `must be at most ${schema.maxLength} characters long`
    case ValueErrorType.StringMinLength: return `must be at least ${schema.minLength} characters long`
    case ValueErrorType.StringPattern: return `must match the pattern ${schema.pattern}`
    case ValueErrorType.Integer: return 'must be a whole number'
    // A union of literals is the field's `enum`.
    case ValueErrorType.Union: return schema.anyOf?.every((s) => 'const' in s) === true ? `must be one of ${schema.anyOf.map((s) => JSON.stringify(s.const)).join(', ')}` : 'is invalid'
    default: return 'is invalid'
  }
}

function valueIssue (field: FieldModel, value: unknown): FieldIssue | undefined {
  if (value === null) {
    return field.nullable ? undefined : { field: field.name, code: 'required', message: `${field.name} cannot be null.` }
  }
  // The type's grammar first (values.ts, shared with keys and filters), then the field's own rules.
  if (!isValueJson(field, value)) return { field: field.name, code: 'invalid', message: `${field.name} must be ${VALUE_EXPECTED[field.type]}.` }
  if (!field.accepts(value)) return { field: field.name, code: 'invalid', message: `${field.name} ${ruleBroken(Value.Errors(field.schema, value).First())}.` }
  // Last, what the column itself holds: a value the database would refuse is refused here, by name.
  const broken = columnLimitBroken(field.columnLimit, value)
  return broken === undefined ? undefined : { field: field.name, code: 'invalid', message: `${field.name} ${broken}.` }
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
      if (values.has(field) || Object.hasOwn(body, field.name)) continue
      if (field.hasDefault) values.set(field, toParameter(field, field.default))
      else if (field.required && !field.dbDefault) issues.push({ field: field.name, code: 'required', message: `${field.name} is required.` })
    }
  }
  if (issues.length > 0) invalidRecord(issues)
  return values
}
