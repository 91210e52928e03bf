// Write plans → SQL: lock, insert, update, soft delete/undelete and delete, each returning what the
// plan fetches. Version columns are bumped here, so no trigger is needed.
import { sql, type Sql } from './sql.js'
import { columnOf, keyCondition, qualifiedColumnOf, recordColumns } from './record.js'
import { permissionColumns, permissionNames, scopeConditions } from './read.js'
import { CHANGE_LOG } from './change-log.js'
import type { ResourceModel } from '../model/types.js'
import type { ColumnValues, ReferenceCheck, WritePlan } from '../plan/types.js'
import type { CheckedFilter } from '../query/filter/checked.js'
import { compileFilter, tenantOf } from './filter.js'

/**
 * RETURNING what the plan fetches; with `check`, also whether the row as written matches it
 * (WITH CHECK): the write and its verification are one statement. A logged write also returns the
 * row's image (`__image`, and what `images` adds), which its log row reads (`logged`).
 */
function returning (plan: WritePlan, check: CheckedFilter | undefined, images = sql.empty, aliases = sql.empty): Sql {
  const verified = check === undefined ? sql.empty : sql`, (${compileFilter(plan.model, check)}) AS "__verified"`
  const image = plan.capture === false ? sql.empty : sql`, to_jsonb(${plan.model.table}.*) AS "__image"${images}`
  return sql` RETURNING ${aliases}${recordColumns(plan.fetch)}${permissionColumns(plan.model, plan.permissions)}${verified}${tenantColumn(plan)}${image}`
}

/** The names of what `returning` returns to the caller: all of it but the images. */
function returnedNames (plan: WritePlan, check: CheckedFilter | undefined): Sql {
  const names = [...plan.fetch.fields.map((f) => f.name), ...permissionNames(plan.model, plan.permissions)]
  if (check !== undefined) names.push('__verified')
  if (hasTenantColumn(plan)) names.push('__tenant')
  return sql.join(names.map((name) => sql`"__written".${sql.ident(name)}`))
}

function hasTenantColumn (plan: WritePlan): boolean {
  return plan.everyTenant === true && plan.model.tenancy !== undefined
}

/** Staff across tenants: the row's tenant, for the write's event (`__tenant`). */
function tenantColumn (plan: WritePlan): Sql {
  return hasTenantColumn(plan) ? sql`, ${tenantOf(plan.model)} AS "__tenant"` : sql.empty
}

const WRITTEN_IMAGE = sql`"__written"."__image"`
const NO_IMAGE = sql`NULL::jsonb`

/**
 * A write of a resource with a change log, and its log row, as one statement (docs/decisions.md,
 * "The logged write"): the write in a CTE (after `cte`, the CTEs it reads), one log row inserted
 * for each row it returned, with the images before and after, and those rows selected back
 * without their images. A write that changes no row logs nothing, and a failed one neither; the
 * log row's defaults take the time after the write has locked its row.
 */
function logged (plan: WritePlan, write: Sql, check: CheckedFilter | undefined, before: Sql, after: Sql, cte = sql.empty): Sql {
  return sql`WITH ${cte}"__written" AS (${write}), "__logged" AS (INSERT INTO ${CHANGE_LOG} (resource, before, after) SELECT ${plan.model.name}, ${before}, ${after} FROM "__written") SELECT ${returnedNames(plan, check)} FROM "__written"`
}

/**
 * An UPDATE of the addressed row, logged where the resource has a change log, with its image of
 * the version it wrote over. PostgreSQL 18 returns that version itself (`RETURNING WITH (OLD AS …)`;
 * under READ COMMITTED, when another transaction changed the row meanwhile, the newest version the
 * update rechecked and wrote over). Before 18 the image comes from the same statement: a CTE reads
 * the row under `guards` FOR UPDATE, and the UPDATE writes the row it locked, joined by key. A row
 * another transaction changed meanwhile is locked and judged by the guards in its newest version,
 * and the UPDATE, finding its snapshot's version outdated, writes that newest one with the CTE's
 * row as it was locked. A transaction that has locked the row already takes it again at no cost.
 */
function updateRow (plan: WritePlan, set: readonly Sql[], guards: readonly Sql[], references: readonly Sql[], check: CheckedFilter | undefined): Sql {
  const { model } = plan
  const conditions = sql.join([...guards, ...references], sql` AND `)
  if (plan.capture === false) return sql`UPDATE ${model.table} SET ${sql.join(set)} WHERE ${conditions}${returning(plan, check)}`
  if (plan.capture === 'returning') {
    const update = sql`UPDATE ${model.table} SET ${sql.join(set)} WHERE ${conditions}${returning(plan, check, sql`, to_jsonb("__old".*) AS "__before"`, sql`WITH (OLD AS "__old") `)}`
    return logged(plan, update, check, sql`"__written"."__before"`, WRITTEN_IMAGE)
  }
  const keys = model.key.map((field, i) => ({ field, name: sql.ident(`__key${i}`) }))
  const stored = sql`"__stored" AS (SELECT ${sql.join(keys.map(({ field, name }) => sql`${columnOf(field)} AS ${name}`))}, to_jsonb(${model.table}.*) AS "__before" FROM ${model.table} WHERE ${sql.join(guards, sql` AND `)} FOR UPDATE), `
  const joined = keys.map(({ field, name }) => sql`${qualifiedColumnOf(model, field)} = "__stored".${name}`)
  const update = sql`UPDATE ${model.table} SET ${sql.join(set)} FROM "__stored" WHERE ${sql.join([...joined, ...references], sql` AND `)}${returning(plan, check, sql`, "__stored"."__before"`)}`
  return logged(plan, update, check, sql`"__written"."__before"`, WRITTEN_IMAGE, stored)
}

/** The addressed row: its key, the caller's tenant, and (where given) rows it must be among. */
function target (plan: WritePlan, rows?: CheckedFilter, live = false): Sql {
  const scope = scopeConditions(plan.model, { tenant: plan.tenant, everyTenant: plan.everyTenant, rows, showDeleted: !live })
  return sql.join([keyCondition(plan.model, plan.key!), ...scope], sql` AND `)
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
 */
export function compileLock (plan: WritePlan, rows: CheckedFilter | undefined): Sql {
  const { model } = plan
  const deleted = model.softDelete === undefined ? sql`false` : sql`${sql.ident(model.softDelete)} IS NOT NULL`
  return sql`SELECT ${recordColumns(plan.fetch)}${permissionColumns(model, plan.permissions)}, ${deleted} AS "__deleted"${tenantColumn(plan)} FROM ${model.table} WHERE ${target(plan, rows)} FOR UPDATE`
}

/** The columns a create sets whatever its body: the caller's tenant, and the first version. */
function managedColumns (plan: WritePlan): { columns: Sql[], values: Sql[] } {
  const { model } = plan
  const columns: Sql[] = []
  const values: Sql[] = []
  // A staff create sets the tenant column as a field of its body.
  if (model.tenant !== undefined && !(model.tenantField !== undefined && plan.values.has(model.tenantField))) {
    columns.push(sql.ident(model.tenant))
    values.push(sql`${plan.tenant ?? null}`)
  }
  if (model.version !== undefined) {
    columns.push(sql.ident(model.version.column))
    values.push(model.version.kind === 'integer' ? sql`1` : sql`clock_timestamp()`)
  }
  return { columns, values }
}

/**
 * The record a reference names, as the caller can read it: key, tenant, live, read filter. Locked
 * FOR KEY SHARE, as a foreign key would lock it, so it cannot be deleted before the write commits.
 */
function referenceCondition (reference: ReferenceCheck): Sql {
  if (!reference.readable) return sql`false`
  const { target } = reference
  const conditions = [sql`${columnOf(target.key[0]!)} = ${reference.value}`, ...scopeConditions(target, { tenant: reference.tenant, everyTenant: reference.everyTenant, rows: reference.rows, showDeleted: false })]
  return sql`EXISTS (SELECT 1 FROM ${target.table} WHERE ${sql.join(conditions, sql` AND `)} FOR KEY SHARE)`
}

function referenceConditions (plan: WritePlan): Sql[] {
  return plan.references.map(referenceCondition)
}

/** Which references hold, one boolean column each (`"0"`, `"1"`, …): asked only after a write they stopped. */
export function compileReferenceCheck (plan: WritePlan): Sql {
  return sql`SELECT ${sql.join(referenceConditions(plan).map((condition, i) => sql`${condition} AS ${sql.ident(String(i))}`))}`
}

/**
 * One INSERT; where the record names others (references), an INSERT … SELECT that inserts
 * nothing unless each of them is a record the caller can read, so the check and the write are one
 * statement.
 */
export function compileInsert (plan: WritePlan, check?: CheckedFilter): Sql {
  const { model } = plan
  const columns: Sql[] = []
  const params: Sql[] = []
  for (const [field, value] of plan.values) {
    columns.push(columnOf(field))
    params.push(sql`${value}`)
  }
  const managed = managedColumns(plan)
  columns.push(...managed.columns)
  params.push(...managed.values)
  const references = referenceConditions(plan)
  const into = columns.length === 0
    ? sql` DEFAULT VALUES`
    : references.length === 0
      ? sql` (${sql.join(columns)}) VALUES (${sql.join(params)})`
      : sql` (${sql.join(columns)}) SELECT ${sql.join(params)} WHERE ${sql.join(references, sql` AND `)}`
  return loggedCreate(plan, sql`INSERT INTO ${model.table}${into}${returning(plan, check)}`, check)
}

/** An INSERT, logged where the resource has a change log: no image before, the row as inserted after. */
function loggedCreate (plan: WritePlan, insert: Sql, check: CheckedFilter | undefined): Sql {
  return plan.capture === false ? insert : logged(plan, insert, check, NO_IMAGE, WRITTEN_IMAGE)
}

/**
 * Creates of one resource with no record check, as one INSERT of many rows, RETURNING them in the
 * order given (logged, the statement selects them back from its CTE in that order). Rows that set the same fields travel as one JSON parameter read by the table's own
 * row type (json_populate_recordset): one bound value instead of one per field and row, which the
 * driver and the builder would each pay for. Rows that set different fields are a VALUES list,
 * each leaving the fields it does not set to their column DEFAULT.
 */
export function compileInsertMany (plans: readonly WritePlan[], check?: CheckedFilter): Sql {
  const first = plans[0]!
  const { model } = first
  const fields = model.fieldList.filter((f) => plans.some((plan) => plan.values.has(f)))
  const { columns: managed, values: extra } = managedColumns(first)
  const columns = [...fields.map(columnOf), ...managed]
  if (fields.length > 0 && plans.every((plan) => plan.values.size === fields.length)) {
    const records = plans.map((plan) => {
      const record: Record<string, unknown> = {}
      // json values are bound as their text; here they travel as the JSON they are.
      for (const f of fields) record[f.column] = f.type === 'json' && typeof plan.values.get(f) === 'string' ? JSON.parse(plan.values.get(f) as string) : plan.values.get(f)
      return record
    })
    const selected = [...fields.map((f) => sql`r.${columnOf(f)}`), ...extra]
    return loggedCreate(first, sql`INSERT INTO ${model.table} (${sql.join(columns)}) SELECT ${sql.join(selected)} FROM json_populate_recordset(NULL::${model.table}, ${JSON.stringify(records)}::json) AS r${returning(first, check)}`, check)
  }
  const rowsOf = plans.map((plan) => {
    const row = fields.map((f) => plan.values.has(f) ? sql`${plan.values.get(f)}` : sql`DEFAULT`)
    return sql`(${sql.join([...row, ...extra])})`
  })
  const into = columns.length === 0 ? sql` (${columnOf(model.key[0]!)})` : sql` (${sql.join(columns)})`
  const values = columns.length === 0 ? sql.join(plans.map(() => sql`(DEFAULT)`)) : sql.join(rowsOf)
  return loggedCreate(first, sql`INSERT INTO ${model.table}${into} VALUES ${values}${returning(first, check)}`, check)
}

function assignments (values: ColumnValues): Sql[] {
  return [...values].map(([field, value]) => sql`${columnOf(field)} = ${value}`)
}

/** The update of a locked row; it updates nothing unless each record it names (references) is one the caller can read. */
export function compileUpdate (plan: WritePlan, check?: CheckedFilter): Sql {
  return updateRow(plan, [...assignments(plan.values), ...versionBump(plan.model)], [target(plan)], referenceConditions(plan), check)
}

/**
 * An update that carries its own preconditions (a live row inside `rows`, at one of `versions`
 * unless any version will do): with them it needs no lock, and no transaction around it.
 */
export function compileGuardedUpdate (plan: WritePlan, rows: CheckedFilter | undefined, versions: readonly string[] | '*'): Sql {
  const { model } = plan
  const guards = [target(plan, rows, true)]
  if (versions !== '*') guards.push(sql`${sql.ident(model.version!.column)} IN (${sql.join(versions.map((v) => sql`${v}`))})`)
  return updateRow(plan, [...assignments(plan.values), ...versionBump(model)], guards, referenceConditions(plan), undefined)
}

export function compileSoftDelete (plan: WritePlan, deleted: boolean, check?: CheckedFilter): Sql {
  const marker = sql.ident(plan.model.softDelete!)
  const assignment = deleted ? sql`${marker} = clock_timestamp()` : sql`${marker} = NULL`
  return updateRow(plan, [assignment, ...versionBump(plan.model)], [target(plan)], [], check)
}

/** The delete of the addressed row; logged, the row it returns is the image before and there is none after. */
export function compileDelete (plan: WritePlan): Sql {
  const remove = sql`DELETE FROM ${plan.model.table} WHERE ${target(plan)}${returning(plan, undefined)}`
  return plan.capture === false ? remove : logged(plan, remove, undefined, WRITTEN_IMAGE, NO_IMAGE)
}

/** Whether the addressed row, as it now stands in the transaction, matches a filter. */
export function compileVerify (plan: WritePlan, filter: CheckedFilter): Sql {
  return sql`SELECT 1 FROM ${plan.model.table} WHERE ${target(plan, filter)}`
}

/** The highest and lowest value of a column over the whole table (every tenant: an index may span them). */
export function compileBounds (model: ResourceModel, column: string): Sql {
  return sql`SELECT max(${sql.ident(column)})::text AS top, min(${sql.ident(column)})::text AS bottom FROM ${model.table}`
}

/**
 * A value set aside: the addressed row's column moved out of the range in use, with no version
 * bump and nothing returned, so the record's ETag does not move with it.
 */
export function compileSetAside (plan: WritePlan, column: string, value: string): Sql {
  return sql`UPDATE ${plan.model.table} SET ${sql.ident(column)} = ${value} WHERE ${target(plan)}`
}
