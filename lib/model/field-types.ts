// Field type → TypeBox value schema, and the PostgreSQL types it may sit on. How values are read
// (their JSON text) is the record connections' business: lib/db/types.ts.
import { Type, type TSchema } from '@sinclair/typebox'
import type { FieldConfig } from '../config/schema.js'
import type { FieldType } from './types.js'

const INT8 = '^-?[0-9]{1,19}$'
const DECIMAL = '^-?(?:[0-9]+(?:\\.[0-9]*)?|\\.[0-9]+)(?:[eE][-+]?[0-9]+)?$'
const DATE = '^[0-9]{4}-[0-9]{2}-[0-9]{2}$'
const TIMESTAMP = '^[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt ][0-9]{2}:[0-9]{2}(?::[0-9]{2}(?:\\.[0-9]{1,6})?)?(?:[Zz]|[+-][0-9]{2}(?::?[0-9]{2})?)$'
const UUID = '^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$'

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

/** The schema of one non-null value; format checks are patterns, so TypeBox needs no format registry. */
export function valueSchema (field: FieldConfig): TSchema {
  const enumValues = field.enum
  if (enumValues !== undefined) return Type.Union(enumValues.map((v) => Type.Literal(v as string | number | boolean)))
  switch (field.type) {
    case 'string': return Type.String({ minLength: field.minLength, maxLength: field.maxLength, pattern: field.pattern })
    case 'integer': return Type.Integer({ minimum: field.minimum ?? -2147483648, maximum: field.maximum ?? 2147483647 })
    case 'bigint': return Type.Union([Type.String({ pattern: INT8 }), Type.Integer({ minimum: Number.MIN_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER })])
    case 'number': return Type.Number({ minimum: field.minimum, maximum: field.maximum })
    case 'decimal': return Type.Union([Type.String({ pattern: DECIMAL, maxLength: 1000 }), Type.Number()])
    case 'boolean': return Type.Boolean()
    case 'date': return Type.String({ pattern: DATE })
    case 'timestamp': return Type.String({ pattern: TIMESTAMP })
    case 'uuid': return Type.String({ pattern: UUID })
    case 'json': return Type.Unknown()
  }
}
