// Write SQL: lock, insert, update, soft delete/undelete and delete, each returning the record as
// the caller sees it. Version columns are bumped here, so no trigger is needed.
import { sql, type Sql } from './sql.js'
import { columnOf, keyCondition, recordColumns } from './record.js'
import type { ResourceModel } from '../model/types.js'
import { fetchedFields, type RecordShape } from '../serialize/record.js'
import type { ColumnValues } from '../write/validate-body.js'
import type { CheckedFilter } from '../query/filter/checked.js'
import { compileFilter } from './filter.js'

export type { RecordShape }

/**
 * RETURNING the record; with `check`, also whether the row as written matches it (WITH CHECK):
 * the write and its verification are one statement.
 */
function returning (shape: RecordShape, check: CheckedFilter | undefined): Sql {
  const verified = check === undefined ? sql.empty : sql`, (${compileFilter(shape.model, check)}) AS "__verified"`
  return sql` RETURNING ${recordColumns(shape.model, fetchedFields(shape))}${verified}`
}

function tenantCondition (model: ResourceModel, tenant: string | undefined): Sql[] {
  return model.tenant === undefined ? [] : [sql`${sql.ident(model.tenant)} = ${tenant ?? null}`]
}

/** `updated_at` moves strictly forward, so two quick updates never share an ETag. */
function versionBump (model: ResourceModel): Sql[] {
  const version = model.version
  if (version === undefined) return []
  const column = sql.ident(version.column)
  return [version.kind === 'integer'
    ? sql`${column} = ${column} + 1`
    : sql`${column} = GREATEST(clock_timestamp(), ${column} + interval '1 microsecond')`]
}

/**
 * The stored row, locked for the rest of the transaction; soft-deleted rows included. `rows` is the
 * caller's read filter and the operation's own: a row outside them does not exist for the write.
 * `stored` fetches every field, for a record check.
 */
export function compileLock (shape: RecordShape, key: readonly string[], tenant: string | undefined, rows: CheckedFilter | undefined, stored: boolean): Sql {
  const { model } = shape
  const deleted = model.softDelete === undefined ? sql`false` : sql`${sql.ident(model.softDelete)} IS NOT NULL`
  const conditions = [keyCondition(model, key), ...tenantCondition(model, tenant), ...(rows === undefined ? [] : [compileFilter(model, rows)])]
  return sql`SELECT ${recordColumns(model, fetchedFields(shape, stored))}, ${deleted} AS "__deleted" FROM ${model.table} WHERE ${sql.join(conditions, sql` AND `)} FOR UPDATE`
}

export function compileInsert (shape: RecordShape, values: ColumnValues, tenant: string | undefined, check?: CheckedFilter): Sql {
  const { model } = shape
  const columns: Sql[] = []
  const params: Sql[] = []
  for (const [field, value] of values) {
    columns.push(columnOf(field))
    params.push(sql`${value}`)
  }
  if (model.tenant !== undefined) {
    columns.push(sql.ident(model.tenant))
    params.push(sql`${tenant ?? null}`)
  }
  if (model.version !== undefined) {
    columns.push(sql.ident(model.version.column))
    params.push(model.version.kind === 'integer' ? sql`1` : sql`clock_timestamp()`)
  }
  const target = columns.length === 0 ? sql` DEFAULT VALUES` : sql` (${sql.join(columns)}) VALUES (${sql.join(params)})`
  return sql`INSERT INTO ${model.table}${target}${returning(shape, check)}`
}

export function compileUpdate (shape: RecordShape, key: readonly string[], values: ColumnValues, tenant: string | undefined, check?: CheckedFilter, guards: readonly Sql[] = []): Sql {
  const { model } = shape
  const assignments = [...values].map(([field, value]) => sql`${columnOf(field)} = ${value}`)
  return sql`UPDATE ${model.table} SET ${sql.join([...assignments, ...versionBump(model)])} WHERE ${sql.join([keyCondition(model, key), ...tenantCondition(model, tenant), ...guards], sql` AND `)}${returning(shape, check)}`
}

/**
 * An update that carries its own preconditions (a live row inside `rows`, at one of `versions`
 * unless any version will do): with them it needs no lock, and no transaction around it.
 */
export function compileGuardedUpdate (shape: RecordShape, key: readonly string[], values: ColumnValues, tenant: string | undefined, rows: CheckedFilter | undefined, versions: readonly unknown[] | '*'): Sql {
  const { model } = shape
  const guards: Sql[] = []
  if (model.softDelete !== undefined) guards.push(sql`${sql.ident(model.softDelete)} IS NULL`)
  if (rows !== undefined) guards.push(compileFilter(model, rows))
  if (versions !== '*') guards.push(sql`${sql.ident(model.version!.column)} IN (${sql.join(versions.map((v) => sql`${v}`))})`)
  return compileUpdate(shape, key, values, tenant, undefined, guards)
}

export function compileSoftDelete (shape: RecordShape, key: readonly string[], tenant: string | undefined, deleted: boolean, check?: CheckedFilter): Sql {
  const { model } = shape
  const marker = sql.ident(model.softDelete!)
  const assignment = deleted ? sql`${marker} = clock_timestamp()` : sql`${marker} = NULL`
  return sql`UPDATE ${model.table} SET ${sql.join([assignment, ...versionBump(model)])} WHERE ${sql.join([keyCondition(model, key), ...tenantCondition(model, tenant)], sql` AND `)}${returning(shape, check)}`
}

export function compileDelete (shape: RecordShape, key: readonly string[], tenant: string | undefined): Sql {
  const { model } = shape
  return sql`DELETE FROM ${model.table} WHERE ${sql.join([keyCondition(model, key), ...tenantCondition(model, tenant)], sql` AND `)}${returning(shape, undefined)}`
}

/** Whether the row with this key, as it now stands in the transaction, matches a filter. */
export function compileVerify (model: ResourceModel, key: readonly string[], tenant: string | undefined, filter: CheckedFilter): Sql {
  return sql`SELECT 1 FROM ${model.table} WHERE ${sql.join([keyCondition(model, key), ...tenantCondition(model, tenant), compileFilter(model, filter)], sql` AND `)}`
}
