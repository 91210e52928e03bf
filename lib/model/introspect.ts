// Startup check of models against the live database: every table and column exists, every field
// type fits its column, managed columns have the right types. Errors name the config path.
import { sql } from '../sql/sql.js'
import { rows, type Queryable } from '../db/query.js'
import { relinkRelations } from './relations.js'
import { withTenantTypes } from './tenancy.js'
import { unindexedRelations, type TableIndexes } from './relation-indexes.js'
import { ConfigError } from '../config/validate.js'
import { COMPATIBLE_PG_TYPES } from './field-types.js'
import { fieldSchema } from './build.js'
import { columnLimit, columnLimitBroken } from './column-limits.js'
import { DEFAULT_TEXT_MAX_LENGTH } from '../config/resolve.js'
import { isValueJson, VALUE_EXPECTED } from './values.js'
import type { ColumnLimit, FieldModel, ResourceModel } from './types.js'

interface ColumnRow { column: string, type: string, typmod: number, not_null: boolean, has_default: boolean, labels: string[] | null }

interface TableFacts {
  readonly columns: Map<string, ColumnRow>
  readonly rewritesUpdates: boolean
  readonly uniqueColumns: ReadonlySet<string>
  /** The columns of each unique index (the primary key among them). */
  readonly uniqueKeys: ReadonlyArray<readonly string[]>
  readonly indexes: TableIndexes
}

// pg_trigger.tgtype bits: ROW 1, BEFORE 2, UPDATE 16, INSTEAD 64. pg_rewrite.ev_type '2': UPDATE.
const ROW_TRIGGER = 1
const BEFORE_OR_INSTEAD = 2 | 64
const ON_UPDATE = 16

async function tableFacts (db: Queryable, table: string): Promise<TableFacts | undefined> {
  const [found] = await rows<{ oid: number, kind: string }>(db, sql`SELECT oid, relkind AS kind FROM pg_class WHERE oid = to_regclass(${table})`)
  if (found === undefined) return undefined
  const [rewrites] = await rows<{ rewrites: boolean }>(db, sql`
    SELECT EXISTS (SELECT 1 FROM pg_trigger WHERE tgrelid = ${found.oid} AND NOT tgisinternal
                     AND tgtype & ${ROW_TRIGGER} <> 0 AND tgtype & ${ON_UPDATE} <> 0 AND tgtype & ${BEFORE_OR_INSTEAD} <> 0)
        OR EXISTS (SELECT 1 FROM pg_rewrite WHERE ev_class = ${found.oid} AND ev_type = '2') AS rewrites`)
  const list = await rows<ColumnRow>(db, sql`
    SELECT a.attname AS column,
           CASE WHEN bt.typtype = 'e' THEN 'enum' ELSE bt.typname END AS type,
           CASE WHEN t.typtype = 'd' THEN chain.typmod ELSE a.atttypmod END AS typmod,
           a.attnotnull AS not_null, a.atthasdef OR a.attidentity <> '' AS has_default,
           (SELECT array_agg(e.enumlabel::text ORDER BY e.enumsortorder) FROM pg_enum e WHERE e.enumtypid = bt.oid) AS labels
    FROM pg_attribute a
    JOIN pg_type t ON t.oid = a.atttypid
    -- A domain over a domain: its base is at the end of the chain, its typmod on the nearest domain that has one.
    CROSS JOIN LATERAL (
      WITH RECURSIVE d (oid, kind, base, typmod, depth) AS (
        SELECT t.oid, t.typtype, t.typbasetype, t.typtypmod, 0
        UNION ALL
        SELECT b.oid, b.typtype, b.typbasetype, b.typtypmod, d.depth + 1 FROM d JOIN pg_type b ON b.oid = d.base WHERE d.kind = 'd'
      )
      SELECT (SELECT oid FROM d WHERE kind <> 'd') AS base,
             coalesce((SELECT typmod FROM d WHERE kind = 'd' AND typmod >= 0 ORDER BY depth LIMIT 1), -1) AS typmod
    ) chain
    JOIN pg_type bt ON bt.oid = chain.base
    WHERE a.attrelid = ${found.oid} AND a.attnum > 0 AND NOT a.attisdropped`)
  const unique = await rows<{ columns: string[] }>(db, sql`
    SELECT array_agg(a.attname::text ORDER BY a.attname) AS columns FROM pg_index i
    JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY (i.indkey)
    WHERE i.indrelid = ${found.oid} AND i.indisunique GROUP BY i.indexrelid`)
  const uniqueKeys = unique.map((u) => u.columns)
  // The first two key columns of each index (INCLUDE columns are not keys; an expression is null).
  const leads = await rows<{ first: string | null, second: string | null }>(db, sql`
    SELECT (SELECT attname::text FROM pg_attribute WHERE attrelid = i.indrelid AND attnum = i.indkey[0]) AS first,
           CASE WHEN i.indnkeyatts > 1 THEN (SELECT attname::text FROM pg_attribute WHERE attrelid = i.indrelid AND attnum = i.indkey[1]) END AS second
    FROM pg_index i WHERE i.indrelid = ${found.oid} AND i.indisvalid`)
  // Tables, partitioned tables and materialized views have indexes of their own; views and foreign tables do not.
  const indexes = { known: ['r', 'p', 'm'].includes(found.kind), leads: leads.map((l) => [l.first, l.second] as const) }
  return { columns: new Map(list.map((c) => [c.column, c])), rewritesUpdates: rewrites?.rewrites !== false, uniqueColumns: new Set(uniqueKeys.flat()), uniqueKeys, indexes }
}

function checkField (path: string, field: FieldModel, column: ColumnRow | undefined, table: string): void {
  if (column === undefined) throw new ConfigError(`${path}.fields.${field.name}: column '${field.column}' does not exist in table ${table}`)
  if (!COMPATIBLE_PG_TYPES[field.type].includes(column.type)) {
    throw new ConfigError(`${path}.fields.${field.name}: type '${field.type}' does not fit column '${field.column}' of type ${column.type}`)
  }
}

/**
 * Checks every model against the database; returns the models with facts only the database knows.
 * Throws one ConfigError naming the first mismatch of each resource.
 */
export async function introspectModels (db: Queryable, models: ReadonlyMap<string, ResourceModel>, warn: (message: string) => void = () => {}, textMaxLength = DEFAULT_TEXT_MAX_LENGTH): Promise<Map<string, ResourceModel>> {
  const checked = new Map<string, ResourceModel>()
  const indexes = new Map<string, TableIndexes>()
  const columnTypes = new Map<string, ReadonlyMap<string, string>>()
  const issues: string[] = []
  for (const model of models.values()) {
    try {
      const facts = await tableFacts(db, model.tableText)
      if (facts === undefined) throw new ConfigError(`config.resources.${model.name}: table '${model.tableText}' does not exist`)
      checked.set(model.name, introspectModel(model, facts, warn, textMaxLength))
      indexes.set(model.name, facts.indexes)
      columnTypes.set(model.name, new Map([...facts.columns].map(([column, { type }]) => [column, type])))
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err
      issues.push(err.message)
    }
  }
  if (issues.length > 0) throw new ConfigError(`the config does not match the database: ${issues.join('; ')}`)
  const relinked = withTenantTypes(relinkRelations(checked), (resource, column) => columnTypes.get(resource)?.get(column))
  for (const message of unindexedRelations(relinked, (resource) => indexes.get(resource))) warn(message)
  return relinked
}

const TENANT_FIELD_TYPES: Readonly<Record<string, FieldModel['type']>> = { int2: 'integer', int4: 'integer', int8: 'bigint', uuid: 'uuid' }

/**
 * What a column holds beyond the field's type; a string field with no length of its own on a
 * column without one (text, citext, varchar) gets `textMaxLength`, so every string a body sends is bounded.
 */
function limitOf (field: FieldModel, column: { type: string, typmod: number, labels: string[] | null } | undefined, textMaxLength: number): ColumnLimit | undefined {
  const limit = column === undefined ? undefined : columnLimit(column.type, column.typmod, column.labels)
  const unbounded = field.type === 'string' && field.enumValues === undefined && (field.schema as { maxLength?: number }).maxLength === undefined
  return limit === undefined && unbounded ? { kind: 'text', max: textMaxLength } : limit
}

function introspectModel (model: ResourceModel, facts: TableFacts, warn: (message: string) => void, textMaxLength: number): ResourceModel {
  const path = `config.resources.${model.name}`
  for (const key of tenantBlindKeys(model, facts)) {
    warn(`${path}: the unique key (${key.join(', ')}) leaves out the tenant column '${model.tenant!}': a create that collides with another tenant's row answers 409, which tells the caller that this key exists there. Make the key or index (${[model.tenant!, ...key].join(', ')}).`)
  }
  const { columns } = facts
  for (const field of model.fields.values()) {
    if (field.managed === 'version' || field.managed === 'softDelete' || field === model.tenantField) continue
    checkField(path, field, columns.get(field.column), model.tableText)
  }
  const marker = model.softDelete === undefined ? undefined : columns.get(model.softDelete)
  if (model.softDelete !== undefined && marker?.type !== 'timestamptz') {
    throw new ConfigError(`${path}.softDelete: column '${model.softDelete}' ${marker === undefined ? `does not exist in table ${model.tableText}` : 'must be a nullable timestamptz'}`)
  }
  if (model.tenant !== undefined && !columns.has(model.tenant)) {
    throw new ConfigError(`${path}.tenant: column '${model.tenant}' does not exist in table ${model.tableText}`)
  }
  let version = model.version
  if (version !== undefined) {
    const column = columns.get(version.column)
    const kind = column === undefined ? undefined : ['int2', 'int4', 'int8'].includes(column.type) ? 'integer' : column.type === 'timestamptz' ? 'timestamp' : undefined
    if (kind === undefined) {
      throw new ConfigError(`${path}.version: column '${version.column}' ${column === undefined ? `does not exist in table ${model.tableText}` : 'must be an integer or a timestamptz'}`)
    }
    version = { column: version.column, kind }
  }
  // Managed fields take their type from the column, so a version of either kind reads right.
  const fields = new Map([...model.fields].map(([fieldName, field]) => {
    const column = columns.get(field.column)
    const notNull = column?.not_null === true
    // A managed version takes its column's type: an int8 version is a JSON string, an int4 one a number.
    // The tenant column staff see as a field is typed by its column too (integer, bigint, uuid, or text).
    const type = field.managed === 'version' && version !== undefined
      ? (version.kind === 'timestamp' ? 'timestamp' : column?.type === 'int8' ? 'bigint' : 'integer')
      : field === model.tenantField ? TENANT_FIELD_TYPES[column?.type ?? ''] ?? 'string' : field.type
    // A version's schema follows its type (it is what records are described with).
    const schema = type === field.type ? {} : fieldSchema({ type })
    const limit = limitOf(field, column, textMaxLength)
    const foreign = field.enumValues?.find((value) => !isValueJson(field, value))
    if (foreign !== undefined) throw new ConfigError(`${path}.fields.${fieldName}.enum: ${JSON.stringify(foreign)} is not a value of type ${field.type} (${VALUE_EXPECTED[field.type]})`)
    // A default is written as it is, so one the field or the column would refuse fails the start:
    // a create must not store what no body may send.
    if (field.hasDefault && field.default !== null && !(isValueJson(field, field.default) && field.accepts(field.default))) {
      throw new ConfigError(`${path}.fields.${fieldName}.default: ${JSON.stringify(field.default)} is not a value the field takes (${VALUE_EXPECTED[field.type]}${field.enumValues === undefined ? '' : `, one of its enum`}, within its limits)`)
    }
    const broken = field.hasDefault && field.default !== null ? columnLimitBroken(limit, field.default) : undefined
    if (broken !== undefined) throw new ConfigError(`${path}.fields.${fieldName}.default: ${broken} to fit column '${field.column}'`)
    // A NOT NULL column refuses null whatever the config says: the body check says so by name.
    return [fieldName, Object.freeze({ ...field, type, ...schema, nullable: field.nullable && !notNull, notNull, columnType: column?.type, columnLimit: limit, enumLabels: column?.labels ?? undefined } satisfies FieldModel)]
  }))
  const key = model.key.map((k) => fields.get(k.name)!)
  const fieldList = Object.freeze([...fields.values()])
  const versionField = fieldList.find((f) => f.managed === 'version')
  const tenantField = model.tenantField === undefined ? undefined : fields.get(model.tenantField.name)
  return Object.freeze({ ...model, fields, fieldList, key, version, versionField, tenantField, rewritesUpdates: facts.rewritesUpdates, uniqueColumns: facts.uniqueColumns, leadingColumns: new Set(facts.indexes.leads.flatMap(([first]) => first === null ? [] : [first])) })
}

/** Unique keys of a tenant's table that callers can fill in (some column of them writable) but that leave out the tenant column. */
function tenantBlindKeys (model: ResourceModel, facts: TableFacts): ReadonlyArray<readonly string[]> {
  if (model.tenant === undefined) return []
  const writable = new Set([...model.fields.values()].filter((f) => !f.readOnly).map((f) => f.column))
  return facts.uniqueKeys.filter((key) => !key.includes(model.tenant!) && key.some((column) => writable.has(column)))
}
