// CheckedFilter → SQL condition. Every value is a bound parameter; every column is quoted and
// qualified by its table. The text depends only on the filter's shape, never on its values.
// A condition across a relation is an EXISTS over the target's rows the caller may read.
import { sql, type Sql } from './sql.js'
import type { CheckedFilter, JsonTest, RelatedScope, TypedValue } from '../query/filter/checked.js'
import type { FieldModel, ResourceModel, Tenancy } from '../model/types.js'
import { fitsTenantColumn } from '../model/tenancy.js'

type RelatedCondition = Extract<CheckedFilter, { kind: 'related' }>

const INTEGER_COLUMNS = ['int2', 'int4', 'int8']

/**
 * The cast that types a value as its field, where the column's own type could not take every value
 * the checker accepts: 3000000000 for a bigint field on an int4 column must match no row, not fail.
 * Integer casts stay within one operator family, so indexes still serve; a number against an
 * integer column compares as numeric (exact, though an index on the column cannot serve it).
 */
function valueCast (field: FieldModel): Sql | undefined {
  const column = field.columnType ?? ''
  switch (field.type) {
    case 'integer': return column === 'int2' ? sql`::int4` : undefined
    case 'bigint': return column === 'int8' ? undefined : sql`::int8`
    case 'number':
    case 'decimal': return INTEGER_COLUMNS.includes(column) ? sql`::numeric` : undefined
    default: return undefined
  }
}

const HOUR_MS = 3_600_000

/**
 * An offset from now as interval text, in whole hours and the milliseconds left: PostgreSQL 14
 * reads each unit's number as a 32-bit integer, so '-2592000000 milliseconds' (30 days) overflows
 * there, while 1000 years (the longest duration) are 8,766,000 hours.
 */
export function offsetText (offsetMs: number): string {
  const sign = offsetMs < 0 ? '-' : ''
  const hours = Math.floor(Math.abs(offsetMs) / HOUR_MS)
  const rest = Math.abs(offsetMs) - hours * HOUR_MS
  if (hours === 0) return `${sign}${rest} milliseconds`
  return rest === 0 ? `${sign}${hours} hours` : `${sign}${hours} hours ${sign}${rest} milliseconds`
}

function valueOf (field: FieldModel, value: TypedValue): Sql {
  if (value.kind === 'value') return sql`${value.value}${valueCast(field) ?? sql.empty}`
  // now() is STABLE (clock_timestamp() is VOLATILE), so an index can serve placed_at > now() - 7d.
  const instant = sql`(now() + ${offsetText(value.offsetMs)}::interval)`
  // Today is the UTC day whatever the session's time zone (a pooled connection keeps the server's).
  return field.type === 'date' ? sql`(${instant} AT TIME ZONE 'UTC')::date` : instant
}

const JSON_VALUE = { string: sql`::text`, number: sql`::numeric`, boolean: sql`::boolean` } as const

/**
 * A test of the value at a json path. The path is one bound text[] and the comparand is built by
 * to_jsonb from a bound, typed value, so keys and values never reach the SQL text. jsonb orders
 * values of different types by type, so an order comparison also requires the literal's type.
 */
function jsonPathTest (document: Sql, path: readonly string[], test: JsonTest): Sql {
  const at = sql`(${document} #> ${path}::text[])`
  switch (test.kind) {
    case 'compare': {
      const comparison = sql`${at} ${sql.keyword(test.op)} to_jsonb(${test.value}${JSON_VALUE[test.type]})`
      return test.op === '=' || test.op === '<>' ? comparison : sql`(${comparison} AND jsonb_typeof(${at}) = ${test.type})`
    }
    case 'like': {
      const like = sql`(${document} #>> ${path}::text[]) ${sql.keyword('LIKE')} ${test.pattern}`
      return test.negated ? sql`NOT (${like})` : like
    }
    case 'null': return test.negated ? sql`${at} <> ${'null'}::jsonb` : sql`(${at} ${sql.keyword('IS NULL')} OR ${at} = ${'null'}::jsonb)`
    case 'present': return sql`${at} ${sql.keyword('IS NOT NULL')}`
    case 'has': return sql`${at} ? ${test.key}`
  }
}

/** The rows of a resource a caller may read, as a filter's scope or a related one's (ReadScope's shape). */
export interface ScopeOf {
  readonly tenant: string | undefined
  /** Staff across tenants (config `allTenants`): no tenant condition. */
  readonly everyTenant?: boolean | undefined
  readonly rows: CheckedFilter | undefined
  readonly showDeleted: boolean
}

/** The tenant column holds the caller's tenant: none, or one that is no value of the column, matches no row. */
function tenantEquals (column: Sql, tenancy: Tenancy, tenant: string | undefined): Sql {
  return tenant === undefined || !fitsTenantColumn(tenancy, tenant) ? sql`false` : sql`${column} = ${tenant}`
}

/**
 * The tenant condition of a tenancy through relations: the row these relations lead to, read as
 * stored (a soft-deleted parent still carries its tenant), holds the tenant. One EXISTS over the
 * hops' tables, each joined by its key, so every hop is one index lookup.
 */
function tenantThrough (tenancy: Tenancy & { kind: 'through' }, table: Sql, tenant: string | undefined): Sql {
  const { tables, links, column } = parentsOf(tenancy, table)
  return sql`EXISTS (SELECT 1 FROM ${sql.join(tables)} WHERE ${sql.join([...links, tenantEquals(column, tenancy, tenant)], sql` AND `)})`
}

/** The parents' tables a tenancy through relations reads, joined by their keys from `table`, and the tenant column at the end. */
function parentsOf (tenancy: Tenancy & { kind: 'through' }, table: Sql): { tables: Sql[], links: Sql[], column: Sql } {
  const tables: Sql[] = []
  const links: Sql[] = []
  let from = table
  tenancy.hops.forEach((hop, i) => {
    const alias = sql.ident(`__tenant_${i + 1}`)
    tables.push(sql`${hop.table} AS ${alias}`)
    links.push(sql`${alias}.${sql.ident(hop.key)} = ${from}.${sql.ident(hop.column)}`)
    from = alias
  })
  return { tables, links, column: sql`${from}.${sql.ident(tenancy.column)}` }
}

/** The tenant a row of `model` belongs to, as text: what staff across tenants touched (WriteEvent.tenant). */
export function tenantOf (model: ResourceModel): Sql {
  const { tenancy } = model
  if (tenancy === undefined) return sql`NULL::text`
  if (tenancy.kind === 'column') return sql`${model.table}.${sql.ident(tenancy.column)}::text`
  const { tables, links, column } = parentsOf(tenancy, model.table)
  return sql`(SELECT ${column}::text FROM ${sql.join(tables)} WHERE ${sql.join(links, sql` AND `)})`
}

/**
 * The conditions that keep a query to the rows a caller may read: their tenant, live rows unless
 * `showDeleted`, the read rule's row filter. `table` qualifies the columns where the query reads
 * the resource under an alias (a related condition's); by default the tenant and soft-delete
 * columns are unqualified, as every query of one table writes them.
 */
export function scopeConditions (model: ResourceModel, scope: ScopeOf, table?: Sql, depth = 0, substitute?: Substitute): Sql[] {
  const column = (name: string): Sql => table === undefined ? sql.ident(name) : sql`${table}.${sql.ident(name)}`
  const conditions: Sql[] = []
  const tenancy = scope.everyTenant === true ? undefined : model.tenancy
  if (tenancy?.kind === 'column') conditions.push(tenantEquals(column(tenancy.column), tenancy, scope.tenant))
  if (tenancy?.kind === 'through') conditions.push(tenantThrough(tenancy, table ?? model.table, scope.tenant))
  if (model.softDelete !== undefined && !scope.showDeleted) conditions.push(sql`${column(model.softDelete)} IS NULL`)
  if (scope.rows !== undefined) conditions.push(compileFilter(model, scope.rows, table, depth, substitute))
  return conditions
}

/**
 * The conditions on a relation's target that a related condition or a path reads under: the
 * caller's rows there (live ones only: show_deleted is the top level's), or none for a rule's
 * path, which reads the rows as stored.
 */
export function relatedScopeConditions (target: ResourceModel, scope: RelatedScope, table: Sql, depth: number): Sql[] {
  switch (scope.kind) {
    case 'caller': return scopeConditions(target, { tenant: scope.tenant, everyTenant: scope.everyTenant, rows: scope.rows, showDeleted: false }, table, depth)
    case 'stored': return []
    case 'unattached': throw new Error(`a path to ${target.name} reached SQL without the caller's scope there`)
  }
}

/** A related condition as SQL's parts: the target's rows it reads and how they link to this row. */
interface RelatedParts {
  /** `target AS "__related_<n>"`. */
  readonly from: Sql
  /** The link, then the target's scope, then the condition on the target. */
  readonly conditions: readonly Sql[]
  /** This row's column the link reads: a to-one's field, a to-many's parent key. */
  readonly column: Sql
  /** The target's column it equals: a to-one's key, a to-many's `by`. */
  readonly targetColumn: Sql
}

/**
 * The alias is the nesting depth's, so a second level (or a relation of a table to itself) never
 * names the outer table's columns; a to-one links the target's key to this row's field, a to-many
 * the target's `by` to this row's key.
 */
function relatedParts (model: ResourceModel, table: Sql, node: RelatedCondition, depth: number): RelatedParts {
  const { relation, target } = node
  const alias = sql.ident(`__related_${depth + 1}`)
  const targetColumn = relation.kind === 'one' ? sql`${alias}.${sql.ident(target.key[0]!.column)}` : sql`${alias}.${sql.ident(relation.by.column)}`
  const column = relation.kind === 'one' ? sql`${table}.${sql.ident(relation.field.column)}` : sql`${table}.${sql.ident(model.key[0]!.column)}`
  const conditions = [sql`${targetColumn} = ${column}`, ...relatedScopeConditions(target, node.scope, alias, depth + 1), compileFilter(target, node.condition, alias, depth + 1)]
  return { from: sql`${target.table} AS ${alias}`, conditions, column, targetColumn }
}

/** `EXISTS (SELECT 1 FROM target AS alias WHERE link AND scope AND condition)`. */
function relatedCondition (model: ResourceModel, table: Sql, node: RelatedCondition, depth: number): Sql {
  const { from, conditions } = relatedParts(model, table, node, depth)
  return sql`EXISTS (SELECT 1 FROM ${from} WHERE ${sql.join(conditions, sql` AND `)})`
}

/**
 * A top-level related condition of a list's rows (lib/sql/selective.ts) read from either side:
 * `passing`, the target's rows that pass it (`SELECT 1 FROM target WHERE scope AND condition`,
 * without the link), to count; `collected`, this row's column among their linked values;
 * `probed`, the EXISTS with OFFSET 0, which PostgreSQL cannot turn into a join and so checks row
 * by row as it walks the list's own order.
 */
export interface RelatedSides {
  readonly passing: Sql
  readonly collected: Sql
  readonly probed: Sql
}

export function relatedSides (model: ResourceModel, node: RelatedCondition): RelatedSides {
  const { from, conditions, column, targetColumn } = relatedParts(model, model.table, node, 0)
  const where = sql.join(conditions.slice(1), sql` AND `)
  return {
    passing: sql`SELECT 1 FROM ${from} WHERE ${where}`,
    collected: sql`${column} = ANY (ARRAY(SELECT ${targetColumn} FROM ${from} WHERE ${where}))`,
    probed: sql`EXISTS (SELECT 1 FROM ${from} WHERE ${sql.join(conditions, sql` AND `)} OFFSET 0)`,
  }
}

/** A node of the filter to compile as the given SQL instead: one related condition read another way. */
export interface Substitute {
  readonly node: CheckedFilter
  readonly sql: Sql
}

/** The filter as a condition on `table` (the resource's table, or the alias a related condition reads it under). */
export function compileFilter (model: ResourceModel, filter: CheckedFilter, table: Sql = model.table, depth = 0, substitute?: Substitute): Sql {
  const column = (field: FieldModel): Sql => sql`${table}.${sql.ident(field.column)}`
  // Text matching reads an enum column as text: enums have no LIKE, ~ or % operator.
  const text = (field: FieldModel): Sql => field.columnType === 'enum' ? sql`${column(field)}::text` : column(field)
  const walk = (node: CheckedFilter): Sql => {
    if (node === substitute?.node) return substitute.sql
    switch (node.kind) {
      case 'and':
      case 'or':
        return sql`(${sql.join(node.children.map(walk), node.kind === 'and' ? sql` AND ` : sql` OR `)})`
      case 'not':
        return sql`NOT ${walk(node.child)}`
      case 'compare':
        return sql`${column(node.field)} ${sql.keyword(node.op)} ${valueOf(node.field, node.value)}`
      case 'null':
        return sql`${column(node.field)} ${sql.keyword(node.negated ? 'IS NOT NULL' : 'IS NULL')}`
      case 'like': {
        const like = sql`${text(node.field)} ${sql.keyword(node.caseInsensitive ? 'ILIKE' : 'LIKE')} ${node.pattern}`
        return node.negated ? sql`NOT (${like})` : like
      }
      case 'in':
        return sql`${column(node.field)} IN (${sql.join(node.values.map((v) => valueOf(node.field, v)))})`
      case 'search':
        return sql`(${sql.join(node.fields.map((f) => sql`${text(f)} ILIKE ${node.pattern}`), sql` OR `)})`
      case 'similar':
        return sql`${text(node.field)} % ${node.text}`
      case 'regex':
        return sql`${text(node.field)} ${sql.keyword('~')} ${node.pattern}`
      case 'has-key':
        return sql`${column(node.field)}::jsonb ? ${node.key}`
      case 'json-path':
        return jsonPathTest(sql`${column(node.field)}::jsonb`, node.path, node.test)
      case 'related':
        return relatedCondition(model, table, node, depth)
    }
  }
  return walk(filter)
}
