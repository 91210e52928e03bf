// Field type → TypeBox value schema, and the PostgreSQL types it may sit on. How values are read
// (their JSON text) is the record connections' business: lib/db/types.ts.
import { Type, type TSchema } from '@sinclair/typebox'
import type { FieldConfig } from '../config/schema.js'
import type { FieldType } from './types.js'
import { INT4_MAX, INT4_MIN, MAX_DECIMAL_TEXT, MAX_VALUE_TEXT, VALUE_PATTERNS } from './values.js'

/** PostgreSQL base type names (`pg_type.typname`; enums count as `enum`) each field type may sit on. */
export const COMPATIBLE_PG_TYPES: Record<FieldType, readonly string[]> = {
  string: ['text', 'varchar', 'bpchar', 'citext', 'name', 'enum'],
  integer: ['int2', 'int4'],
  bigint: ['int8', 'int4', 'int2'],
  number: ['float8', 'float4', 'numeric', 'int2', 'int4', 'int8'],
  decimal: ['numeric', 'int2', 'int4', 'int8'],
  boolean: ['bool'],
  date: ['date'],
  timestamp: ['timestamptz'],
  uuid: ['uuid'],
  json: ['jsonb', 'json'],
}

/**
 * The schema of one non-null value: its JSON shape and the field's own rules (enum, bounds,
 * length). Whether it is a value of the type at all is values.ts's decision; the patterns here are
 * its syntax, so a schema never refuses what values.ts accepts, and TypeBox needs no format registry.
 */
export function valueSchema (field: FieldConfig): TSchema {
  const enumValues = field.enum
  if (enumValues !== undefined) return Type.Union(enumValues.map((v) => Type.Literal(v as string | number | boolean)))
  switch (field.type) {
    case 'string': return Type.String({ minLength: field.minLength, maxLength: field.maxLength, pattern: field.pattern })
    case 'integer': return Type.Integer({ minimum: field.minimum ?? INT4_MIN, maximum: field.maximum ?? INT4_MAX })
    case 'bigint': return Type.Union([Type.String({ pattern: VALUE_PATTERNS.integer, maxLength: MAX_VALUE_TEXT.bigint }), Type.Integer({ minimum: Number.MIN_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER })])
    case 'number': return Type.Number({ minimum: field.minimum, maximum: field.maximum })
    case 'decimal': return Type.Union([Type.String({ pattern: VALUE_PATTERNS.decimal, maxLength: MAX_DECIMAL_TEXT }), Type.Number()])
    case 'boolean': return Type.Boolean()
    case 'date': return Type.String({ pattern: VALUE_PATTERNS.date, maxLength: MAX_VALUE_TEXT.date })
    case 'timestamp': return Type.String({ pattern: VALUE_PATTERNS.timestamp, maxLength: MAX_VALUE_TEXT.timestamp })
    case 'uuid': return Type.String({ pattern: VALUE_PATTERNS.uuid, maxLength: MAX_VALUE_TEXT.uuid })
    case 'json': return Type.Unknown()
  }
}
