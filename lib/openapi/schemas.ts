// JSON Schemas (OpenAPI 3.1 dialect) of a caller's records and bodies, made from the same TypeBox
// field schemas that validate bodies (FieldModel.schema). Bodies take each field's schema as it
// is; records describe the value as the server writes it: int8 and decimal as strings with their
// pattern, dates and timestamps as strings with their format.
import type { FieldModel, RelationModel } from '../model/types.js'
import type { AccessPlan } from '../access/types.js'
import { VALUE_PATTERNS } from '../model/values.js'
import { MAX_FILTER_BODY } from '../plan/filter.js'
import { MAX_OPERATIONS } from '../write/batch-operations.js'

export type JsonSchema = Record<string, unknown>

/** A plain JSON copy of a TypeBox schema (its symbol members are TypeBox's own bookkeeping). */
function plain (schema: unknown): JsonSchema {
  return JSON.parse(JSON.stringify(schema)) as JsonSchema
}

function orNull (schema: JsonSchema, nullable: boolean): JsonSchema {
  return nullable ? { anyOf: [schema, { type: 'null' }] } : schema
}

const FORMATS: Partial<Record<FieldModel['type'], string>> = { timestamp: 'date-time', date: 'date', uuid: 'uuid' }

/**
 * The bounds the column sets on a body value beside the field's own, which the write checks as
 * well (lib/model/column-limits.ts): varchar(n) and char(n) a length (and config `textMaxLength`
 * where neither field nor column sets one), int2 and int4 a range (and their format), an int8 as
 * a JSON number the range a double holds exactly. The narrower bound of the two is the one a value must keep.
 */
function columnBounds (schema: JsonSchema, field: FieldModel): JsonSchema {
  const limit = field.columnLimit
  if (field.type === 'bigint' && Array.isArray(schema.anyOf)) {
    const small = limit?.kind === 'integer' && limit.max <= 2n ** 31n
    return { ...schema, anyOf: (schema.anyOf as JsonSchema[]).map((s) => s.type !== 'integer' ? s : small ? columnBounds(s, field) : { ...s, format: 'int64' }) }
  }
  if ((limit?.kind === 'characters' || limit?.kind === 'text') && schema.type === 'string') {
    return { ...schema, maxLength: Math.min(limit.max, (schema.maxLength as number | undefined) ?? limit.max) }
  }
  if (limit?.kind === 'integer' && schema.type === 'integer' && limit.max <= 2n ** 31n) {
    const [min, max] = [Number(limit.min), Number(limit.max)]
    return { ...schema, format: 'int32', minimum: Math.max(min, (schema.minimum as number | undefined) ?? min), maximum: Math.min(max, (schema.maximum as number | undefined) ?? max) }
  }
  return schema
}

/** One value in a body, as validate-body accepts it (null where the field is nullable). */
export function bodyValueSchema (field: FieldModel): JsonSchema {
  const schema = columnBounds(plain(field.schema), field)
  const format = FORMATS[field.type]
  return orNull(format === undefined || schema.pattern === undefined ? schema : { ...schema, format }, field.nullable)
}

/** One value in a record as sent. */
export function recordValueSchema (field: FieldModel, writable: boolean): JsonSchema {
  let schema = plain(field.schema)
  if ((field.type === 'bigint' || field.type === 'decimal') && Array.isArray(schema.anyOf)) {
    // The body accepts a number too; a record always carries the exact text.
    schema = (schema.anyOf as JsonSchema[]).find((s) => s.type === 'string') ?? { type: 'string', pattern: VALUE_PATTERNS.integer }
    // A body's decimal text is bounded; the column writes it back in full (`1e1000` is 1,001 digits).
    if (field.type === 'decimal') {
      const { maxLength: _bodyLimit, ...written } = schema
      schema = written
    }
  }
  const format = FORMATS[field.type]
  if (format !== undefined && schema.type === 'string') schema = { type: 'string', format }
  if (field.columnLimit?.kind === 'integer' && schema.type === 'integer' && field.columnLimit.max <= 2n ** 31n) schema = { ...schema, format: 'int32' }
  if (field.type === 'json') schema = {}
  if (!writable) schema = { ...schema, readOnly: true }
  // The column decides what a record holds: a NOT NULL column never gives null.
  return field.type === 'json' ? schema : orNull(schema, !field.notNull)
}

/** A count of rows: as a JSON number, within the range a double holds exactly (no table has 2^53 rows). */
export const COUNT_SCHEMA: JsonSchema = { type: 'integer', format: 'int64', minimum: 0, maximum: Number.MAX_SAFE_INTEGER }

export const ETAG_SCHEMA: JsonSchema = { type: 'string', readOnly: true, description: 'The record\'s ETag, the same as the ETag header: send it as If-Match.' }

/** `permissions` of list items ({ update, delete }) and of a get (which adds `fields`). */
export function permissionsSchema (readable: readonly FieldModel[]): JsonSchema {
  const properties: Record<string, JsonSchema> = {
    update: { type: 'boolean' },
    delete: { type: 'boolean' },
    fields: {
      type: 'object',
      description: 'On a get: each readable field, edit or read for this record.',
      properties: Object.fromEntries(readable.map((f) => [f.name, { type: 'string', enum: ['edit', 'read'] }])),
      additionalProperties: false,
    },
  }
  return { type: 'object', readOnly: true, properties, required: ['update', 'delete'], additionalProperties: false, description: 'What the caller may do with this record; informational, every write is checked again.' }
}

type ToOne = Extract<RelationModel, { kind: 'one' }>
type ToMany = Extract<RelationModel, { kind: 'many' }>

/**
 * A to-one the caller may follow, as an embed gives it: the target's record (the caller's record
 * schema of it, whose fields are all optional as a subset of paths gives fewer), or null.
 */
function embedSchema (relation: ToOne): JsonSchema {
  return {
    anyOf: [{ $ref: `#/components/schemas/${relation.target}` }, { type: 'null' }],
    description: `The ${relation.target} record that ${relation.field.name} names, embedded when fields names it (fields=${relation.name} or ${relation.name}.<field>); ` +
      `null when ${relation.field.name} is null or that record is not one the caller may read.`,
  }
}

/**
 * A to-many the caller may follow, as an embed gives it: a page of the target's records (the
 * caller's record schema of it) and the token that continues them on the target's own list.
 */
function manyEmbedSchema (relation: ToMany): JsonSchema {
  return {
    type: 'object',
    properties: {
      items: { type: 'array', items: { $ref: `#/components/schemas/${relation.target}` }, maxItems: relation.pageSize },
      next_page_token: { type: 'string', description: `Continues these ${relation.target} records: send it as page_token to the ${relation.target} list (alone, without filter, order_by or show_deleted); "" when all were given.` },
    },
    required: ['items', 'next_page_token'],
    additionalProperties: false,
    description: `The first ${relation.pageSize} ${relation.target} records whose ${relation.by.name} names this record and that the caller may read, in the relation's order, embedded when fields names it (fields=${relation.name} or ${relation.name}.<field>).`,
  }
}

/**
 * A record: the caller's readable fields (`fields` may select fewer, so only `etag` is always
 * there), the relations of `followable` (there only when `fields` names them), its etag, and
 * `permissions` where the resource carries them.
 */
export function recordSchema (access: AccessPlan, permissions: JsonSchema | undefined, followable: readonly RelationModel[]): JsonSchema {
  const properties: Record<string, JsonSchema> = Object.fromEntries(access.readable.map((f) => [f.name, recordValueSchema(f, access.writable.includes(f))]))
  for (const relation of followable) properties[relation.name] = relation.kind === 'one' ? embedSchema(relation) : manyEmbedSchema(relation)
  properties.etag = ETAG_SCHEMA
  if (permissions !== undefined) properties.permissions = permissions
  return { type: 'object', properties, required: ['etag'], additionalProperties: false }
}

/** A create body: fields writable on create; those required without a default must be sent. */
export function createBodySchema (access: AccessPlan): JsonSchema {
  const required = access.writableOnCreate.filter((f) => f.required && !f.hasDefault && !f.dbDefault).map((f) => f.name)
  return {
    type: 'object',
    properties: Object.fromEntries(access.writableOnCreate.map((f) => [f.name, bodyValueSchema(f)])),
    ...(required.length === 0 ? {} : { required }),
    additionalProperties: false,
  }
}

/** An update body: the writable fields that change, none required. */
export function updateBodySchema (access: AccessPlan): JsonSchema {
  return {
    type: 'object',
    properties: Object.fromEntries(access.writable.map((f) => [f.name, bodyValueSchema(f)])),
    additionalProperties: false,
  }
}

// Where in a filter's text an error lies, in UTF-16 units: a :search body's filter has at most
// 200,000 characters, two units each at most.
const FILTER_POSITION: JsonSchema = { type: 'integer', format: 'int32', minimum: 0, maximum: 2 * MAX_FILTER_BODY }

/** RFC 9457 problem details as every error of the API sends them. */
export const PROBLEM_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    type: { type: 'string', description: 'urn:service:problem:<slug>' },
    title: { type: 'string' },
    status: { type: 'integer', format: 'int32', minimum: 400, maximum: 599 },
    detail: { type: 'string' },
    instance: { type: 'string' },
    errors: {
      type: 'array',
      description: 'Field errors ({ field, code, message }), parameter errors ({ parameter, message }), or filter errors ({ code, message, hint, span }).',
      items: {
        type: 'object',
        properties: {
          field: { type: 'string' },
          parameter: { type: 'string' },
          code: { type: 'string' },
          message: { type: 'string' },
          hint: { type: 'string' },
          span: { type: 'object', properties: { start: FILTER_POSITION, end: FILTER_POSITION }, required: ['start', 'end'] },
        },
      },
    },
    parameter: { type: 'string' },
    operation: { type: 'integer', format: 'int32', minimum: 0, maximum: MAX_OPERATIONS - 1, description: 'Batch: the index of the failing operation.' },
    op: { type: 'string' },
    resource: { type: 'string' },
  },
  required: ['type', 'title', 'status', 'detail', 'instance'],
}
