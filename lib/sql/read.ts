// Read plans → SQL. Pages are keyset pages: the WHERE clause starts after the previous page's last
// row, so page N costs what page 1 costs.
import { sql, type Sql } from './sql.js'
import { jsonCast, keyCondition, qualifiedColumnOf, recordColumns } from './record.js'
import { compileFilter, scopeConditions, type Substitute } from './filter.js'
import { selectiveForm, selectiveSide, type SelectiveBranch, type Side } from './selective.js'
import { toManyColumn, type EmbedsSql } from './embed-many.js'
import { pathValue } from './path.js'
import { nullable, ownField } from '../query/order-by.js'
import type { EmbedPlan, GetPlan, ListPlan, OrderTerm, PermissionPlan, ReadScope, ToOneEmbed } from '../plan/types.js'
import type { Selection } from '../model/selection.js'
import type { OperationAccess } from '../access/types.js'
import { decidedByRows } from '../access/permissions.js'
import type { CheckedFilter } from '../query/filter/checked.js'
import type { FieldModel, ResourceModel } from '../model/types.js'

export { scopeConditions }

/** An operation's row condition as a boolean column: the database decides it for every row at once. */
function allowedFor (model: ResourceModel, access: OperationAccess): Sql {
  if (!access.allowed) return sql`false`
  return access.rows === undefined ? sql`true` : sql`(${compileFilter(model, access.rows)})`
}


/** The operations whose permission rows decide, and the column each is read into. */
function decidedPermissions (model: ResourceModel, permissions: PermissionPlan | undefined): Array<[OperationAccess, string]> {
  if (permissions === undefined) return []
  const decided: Array<[OperationAccess, string]> = []
  if (decidedByRows(model, permissions.update)) decided.push([permissions.update, '__can_update'])
  if (decidedByRows(model, permissions.delete)) decided.push([permissions.delete, '__can_delete'])
  return decided
}

/** `, (…) AS "__can_update"`, `, (…) AS "__can_delete"`: the operations rows decide, as columns of a read or a RETURNING. */
export function permissionColumns (model: ResourceModel, permissions: PermissionPlan | undefined): Sql {
  const live = model.softDelete === undefined ? sql.empty : sql` AND ${sql.ident(model.softDelete)} IS NULL`
  return sql.join(decidedPermissions(model, permissions).map(([access, name]) => sql`, (${allowedFor(model, access)}${live}) AS ${sql.ident(name)}`), sql.empty)
}

/** The names of permissionColumns' columns. */
export function permissionNames (model: ResourceModel, permissions: PermissionPlan | undefined): string[] {
  return decidedPermissions(model, permissions).map(([, name]) => name)
}

function where (conditions: readonly Sql[]): Sql {
  return conditions.length === 0 ? sql.empty : sql` WHERE ${sql.join(conditions, sql` AND `)}`
}

export function compileGet (plan: GetPlan): Sql {
  const embeds = plan.embeds.length === 0 ? undefined : embedsSql(plan.model, plan.embeds)
  return sql`SELECT ${recordColumns(plan.fetch)}${permissionColumns(plan.model, plan.permissions)}${embeds?.columns ?? sql.empty} FROM ${plan.model.table}${embeds?.joins ?? sql.empty}${where([keyCondition(plan.model, plan.key), ...scopeConditions(plan.model, plan.scope)])}`
}

// To-one embeds (docs/relations.md, "Embedding"): each is a LEFT JOIN LATERAL of its target's row,
// read under the target's own scope, whose columns come into the parent row flattened under the
// embed's numbered column names (`__e0_1` its second field), so the record's type parsers read
// them as a get of the target would. The row is there where its key's column is not null: the
// join is on that key, which null never equals, and every fetch carries the key
// (lib/model/selection.ts). A level below is joined inside its parent's subquery. The target's
// table goes by an alias of its own (`__t0`): a relation may join a resource to itself. To-many
// embeds are columns of their own (./embed-many.ts).

/** The names of an embed's columns in the row: its fields, its own embeds'; a to-many's one column. */
export function embedOutputs (embed: EmbedPlan): string[] {
  if (embed.kind === 'many') return [embed.column]
  return [...embed.fetch.fields.map((_, i) => `${embed.column}_${i}`), ...embed.embeds.flatMap(embedOutputs)]
}

/** The column of a to-one embed's key: not null exactly where its row is there for the caller. */
export function presenceColumn (embed: ToOneEmbed): string {
  return `${embed.column}_${embed.fetch.fields.indexOf(embed.model.key[0]!)}`
}

function lateralOf (embed: EmbedPlan): Sql {
  return sql.ident(`__l${embed.column.slice(3)}`)
}

/** `, "__l0"."__e0_1", …`: the embeds' columns of a parent's select list. */
function embedColumns (parent: ResourceModel, embeds: readonly EmbedPlan[]): Sql {
  if (embeds.length === 0) return sql.empty
  // A to-many's subquery binds its scope's values, so only the to-one columns are frozen.
  return sql.join(embeds.map((embed) => embed.kind === 'many'
    ? toManyColumn(parent, embed, NESTED)
    : sql.freeze(sql.join(embedOutputs(embed).map((name) => sql`, ${lateralOf(embed)}.${sql.ident(name)}`), sql.empty))), sql.empty)
}

// A caller's embeds are the same objects request after request (lib/plan/embed.ts keeps their
// masks), so their SQL is built once per caller and mask, and goes with them.
const builtEmbeds = new WeakMap<readonly EmbedPlan[], { readonly columns: Sql, readonly joins: Sql }>()

export function embedsSql (model: ResourceModel, embeds: readonly EmbedPlan[]): { readonly columns: Sql, readonly joins: Sql } {
  let built = builtEmbeds.get(embeds)
  if (built === undefined) {
    built = embedsOn(model, embeds)
    builtEmbeds.set(embeds, built)
  }
  return built
}

/** The embeds' SQL for a parent row that `model.table` names otherwise (a change's image): never cached, as embedsSql's are. */
export function embedsOn (model: ResourceModel, embeds: readonly EmbedPlan[]): { readonly columns: Sql, readonly joins: Sql } {
  return { columns: embedColumns(model, embeds), joins: embedJoins(model, embeds) }
}

/**
 * The embeds of one record read by its key in the caller's tenant, as a get would embed them: a
 * write's answer reads them after the write, in its transaction, so they see what it wrote.
 */
export function compileEmbedsOf (model: ResourceModel, key: readonly string[], tenant: string | undefined, everyTenant: boolean | undefined, embeds: readonly EmbedPlan[]): Sql {
  const { columns, joins } = embedsSql(model, embeds)
  return sql`SELECT true AS "__row"${columns} FROM ${model.table}${joins}${where([keyCondition(model, key), ...scopeConditions(model, { tenant, everyTenant, rows: undefined, showDeleted: true })])}`
}

/** The joins of `parent`'s embeds; `parent.table` is how the statement names the parent's row. */
function embedJoins (parent: ResourceModel, embeds: readonly EmbedPlan[]): Sql {
  if (embeds.length === 0) return sql.empty
  return sql.join(embeds.map((embed) => {
    if (embed.kind === 'many') return sql.empty
    const target: ResourceModel = { ...embed.model, table: sql.ident(`__t${embed.column.slice(3)}`) }
    const fields = embed.fetch.fields.map((f, i) => sql`${qualifiedColumnOf(target, f)}${jsonCast(f)} AS ${sql.ident(`${embed.column}_${i}`)}`)
    const conditions = [sql`${qualifiedColumnOf(target, embed.model.key[0]!)} = ${qualifiedColumnOf(parent, embed.relation.field)}`, ...scopeConditions(target, embed.scope, target.table)]
    return sql` LEFT JOIN LATERAL (SELECT ${sql.join(fields, sql`, `)}${embedColumns(target, embed.embeds)} FROM ${embed.model.table} AS ${target.table}${embedJoins(target, embed.embeds)}${where(conditions)}) AS ${lateralOf(embed)} ON true`
  }), sql.empty)
}

/** How a to-many's children read their own embeds. */
const NESTED: EmbedsSql = { columns: embedColumns, joins: embedJoins, outputs: embedOutputs }

/**
 * What an order sorts by: each term's value, a column of the row (`__o<i>` for a path's, joined
 * by `joins`). Numbered by the term's place in the plan's order, which a reversed order keeps.
 */
interface OrderSource {
  readonly joins: Sql
  readonly values: readonly Sql[]
}

function orderSource (model: ResourceModel, order: readonly OrderTerm[]): OrderSource {
  const joins: Sql[] = []
  const values = order.map((term, i) => {
    const own = ownField(term)
    if (own !== undefined) return qualifiedColumnOf(model, own)
    const path = pathValue(model, term.via!, term.field, `__o${i}`)
    joins.push(path.join)
    return path.value
  })
  return { joins: sql.join(joins, sql.empty), values }
}

/**
 * Rows after the given one in the order. PostgreSQL sorts NULL last ascending and first
 * descending, and the predicate follows that. When every column is NOT NULL and the directions
 * agree, it is one row comparison, which an index on the order columns serves directly.
 */
function afterCondition (order: readonly OrderTerm[], columns: readonly Sql[], values: readonly (string | null)[]): Sql {
  const column = (i: number): Sql => columns[i]!
  const uniform = order.every((t) => t.direction === order[0]!.direction && !nullable(t)) && values.every((v) => v !== null)
  if (uniform) {
    const op = sql.keyword(order[0]!.direction === 'ASC' ? '>' : '<')
    return sql`(${sql.join(columns)}) ${op} (${sql.join(values.map((v) => sql`${v}`))})`
  }
  const equal = (i: number, v: string | null): Sql => v === null ? sql`${column(i)} IS NULL` : sql`${column(i)} = ${v}`
  const beyond = (term: OrderTerm, i: number, v: string | null): Sql | undefined => {
    if (term.direction === 'ASC') {
      if (v === null) return undefined
      return nullable(term) ? sql`(${column(i)} > ${v} OR ${column(i)} IS NULL)` : sql`${column(i)} > ${v}`
    }
    return v === null ? sql`${column(i)} IS NOT NULL` : sql`${column(i)} < ${v}`
  }
  const alternatives: Sql[] = []
  order.forEach((term, i) => {
    const past = beyond(term, i, values[i] ?? null)
    if (past === undefined) return
    alternatives.push(sql`(${sql.join([...order.slice(0, i).map((_, j) => equal(j, values[j] ?? null)), past], sql` AND `)})`)
  })
  return alternatives.length === 0 ? sql`false` : sql`(${sql.join(alternatives, sql` OR `)})`
}

/** The rows a read covers: the caller's scope and a filter. */
export interface FilteredRows {
  readonly model: ResourceModel
  readonly scope: ReadScope
  readonly filter: CheckedFilter | undefined
}

/**
 * The conditions every query of a list (and of an aggregate) shares: scope and filter; with
 * `substitute`, one related condition of theirs read as a selective form's branch says.
 */
export function listConditions ({ model, scope, filter }: FilteredRows, substitute?: Substitute): Sql[] {
  const conditions = scopeConditions(model, scope, undefined, 0, substitute)
  if (filter !== undefined) conditions.push(compileFilter(model, filter, model.table, 0, substitute))
  return conditions
}

/** The conditions of one branch of a selective form (./selective.ts): in the statement that chooses, its one-time condition first. */
function branchConditions (rows: FilteredRows, branch: SelectiveBranch | undefined): Sql[] {
  if (branch === undefined) return listConditions(rows)
  return branch.runs === undefined ? listConditions(rows, branch.substitute) : [branch.runs, ...listConditions(rows, branch.substitute)]
}

/** The order read the other way: row for row the reverse, NULLs included (they sort last ascending, first descending). */
export function reversed (order: readonly OrderTerm[]): OrderTerm[] {
  return order.map((term) => ({ ...term, direction: term.direction === 'ASC' ? 'DESC' : 'ASC' }))
}

/**
 * The page query; it reads one row more than the page to learn whether another page follows. A
 * backward cursor reads the rows before it in the reversed order (the caller turns them round);
 * a seek skips `position` rows first. With `countUpTo`, each row also carries `__estimate`: the
 * filtered rows the caller may see, counted up to that cap by an uncorrelated subquery, which
 * PostgreSQL runs once, in the same round trip. A related condition among the top-level
 * conditions makes it two such queries, of which one runs, and each row says which
 * (./selective.ts); with `side`, the one that side reads, alone.
 */
export function compileList (plan: ListPlan, countUpTo?: number, side?: Side): Sql {
  if (side !== undefined) return pageQuery(plan, countUpTo, selectiveSide(plan.model, plan.filter, plan.scope.rows, side))
  const form = selectiveForm(plan.model, plan.filter, plan.scope.rows, plan.pageSize + 1 + plan.position)
  if (form === undefined) return pageQuery(plan, countUpTo, undefined)
  return sql`${form.with}SELECT * FROM ((${pageQuery(plan, countUpTo, form.collected)}) UNION ALL (${pageQuery(plan, countUpTo, form.walked)})) AS "__page"`
}

function pageQuery (plan: ListPlan, countUpTo: number | undefined, branch: SelectiveBranch | undefined): Sql {
  const estimate = countUpTo === undefined ? sql.empty : sql`, (${countQuery(plan, countUpTo, branch)}) AS ${sql.ident('__estimate')}`
  const conditions = branchConditions(plan, branch)
  const backward = plan.cursor?.direction === 'backward'
  const order = backward ? reversed(plan.order) : plan.order
  const source = orderSource(plan.model, plan.order)
  if (plan.cursor !== undefined) conditions.push(afterCondition(order, source.values, plan.cursor.values))
  // Keyset values of own fields the query fetches anyway come from the record; others (a path's
  // among them: its field is another row's) are extra columns.
  const fetched = plan.fetch.fields
  const orderValues = plan.order.flatMap((term, i) => {
    const own = ownField(term)
    return own !== undefined && fetched.includes(own) ? [] : [sql`, ${source.values[i]!} AS ${sql.ident(`__order_${i}`)}`]
  })
  const skip = plan.position > 0 ? sql` OFFSET ${plan.position}` : sql.empty
  const embeds = plan.embeds.length === 0 ? undefined : embedsSql(plan.model, plan.embeds)
  return sql`SELECT ${recordColumns(plan.fetch)}${permissionColumns(plan.model, plan.permissions)}${sql.join(orderValues, sql.empty)}${embeds?.columns ?? sql.empty}${estimate}${branch?.marks ?? sql.empty} FROM ${plan.model.table}${embeds?.joins ?? sql.empty}${source.joins}${where(conditions)} ORDER BY ${orderBy(order, source.values)} LIMIT ${sql.int(plan.pageSize + 1)}${skip}`
}

function orderBy (order: readonly OrderTerm[], values: readonly Sql[]): Sql {
  return sql.join(order.map((term, i) => sql`${values[i]!} ${sql.keyword(term.direction)}`))
}

/** Every filtered row the caller may see, in order, with the fetched fields only (the selected ones, and the key a to-many's token needs): an export. */
export function compileExport (plan: FilteredRows & { readonly fetch: Selection, readonly order: readonly OrderTerm[], readonly embeds: readonly EmbedPlan[] }): Sql {
  const embeds = plan.embeds.length === 0 ? undefined : embedsSql(plan.model, plan.embeds)
  const source = orderSource(plan.model, plan.order)
  // `fields=customer.name` exports no field of the record's own.
  const own = plan.fetch.fields.length === 0 ? sql`true AS "__row"` : recordColumns(plan.fetch)
  return sql`SELECT ${own}${embeds?.columns ?? sql.empty} FROM ${plan.model.table}${embeds?.joins ?? sql.empty}${source.joins}${where(listConditions(plan))} ORDER BY ${orderBy(plan.order, source.values)}`
}

/** The filtered rows without page or order: what the scan guard and the estimate look at. */
export function compileFiltered (rows: FilteredRows): Sql {
  return sql`SELECT 1 FROM ${rows.model.table}${where(listConditions(rows))}`
}

/**
 * The filtered rows' count; with `cap`, it stops counting there (an index-only walk of at most
 * `cap` rows), and a related condition at the top level is read as the selective form says.
 */
export function compileCount (rows: FilteredRows, cap?: number): Sql {
  if (cap === undefined) return sql`SELECT count(*)::int AS total FROM ${rows.model.table}${where(listConditions(rows))}`
  const form = selectiveForm(rows.model, rows.filter, rows.scope.rows, cap)
  if (form === undefined) return countQuery(rows, cap, undefined)
  const visible = (branch: SelectiveBranch): Sql => sql`SELECT 1 FROM ${rows.model.table}${where(branchConditions(rows, branch))} LIMIT ${sql.int(cap)}`
  return sql`${form.with}SELECT count(*)::int AS total FROM ((${visible(form.collected)}) UNION ALL (${visible(form.walked)})) AS visible`
}

function countQuery (rows: FilteredRows, cap: number, branch: SelectiveBranch | undefined): Sql {
  return sql`SELECT count(*)::int AS total FROM (SELECT 1 FROM ${rows.model.table}${where(branchConditions(rows, branch))} LIMIT ${sql.int(cap)}) AS visible`
}

// The statements of total_size_estimate (lib/read/estimate/), beside the capped compileCount and
// compileList's `countUpTo`: the planner's figure, and a sample of the caller's rows.

/** The planner's row estimate for the filtered rows: cheap, never a count(*). */
export function compileEstimate (rows: FilteredRows): Sql {
  return sql`EXPLAIN (FORMAT JSON) ${compileFiltered(rows)}`
}

/**
 * How a sampled field's values arrive, as lib/read/estimate/filter-evaluator.ts reads them: numbers
 * as float8, instants and dates as epoch milliseconds (a date at its midnight), booleans, text, and
 * uuids as lower-case hex without hyphens.
 */
export type SampleKind = 'number' | 'instant' | 'day' | 'boolean' | 'text' | 'uuid'

const SAMPLE_VALUE: Readonly<Record<SampleKind, (column: Sql) => Sql>> = {
  number: (column) => sql`${column}::float8`,
  instant: (column) => sql`(extract(epoch FROM ${column}) * 1000)::float8`,
  day: (column) => sql`(extract(epoch FROM ${column}::timestamp) * 1000)::float8`,
  boolean: (column) => column,
  text: (column) => sql`${column}::text`,
  uuid: (column) => sql`replace(${column}::text, '-', '')`,
}

/**
 * Up to `size` of the caller's rows drawn at random, with `fields` as columns `__s0`, `__s1`, …,
 * and on each row `__visible`: how many rows the caller may see, counted up to `cap` (the sample
 * is drawn from those). Scope only, no filter: the filter is what the sample is for.
 */
export function compileSample (rows: Pick<FilteredRows, 'model' | 'scope'>, fields: readonly FieldModel[], kinds: readonly SampleKind[], size: number, cap: number): Sql {
  const names = fields.map((_, i) => sql.ident(`__s${i}`))
  const values = fields.map((field, i) => sql`${SAMPLE_VALUE[kinds[i]!](qualifiedColumnOf(rows.model, field))} AS ${names[i]!}`)
  const visible = sql`SELECT ${sql.join(values)} FROM ${rows.model.table}${where(scopeConditions(rows.model, rows.scope))} LIMIT ${sql.int(cap)}`
  return sql`SELECT ${sql.join(names)}, count(*) OVER ()::int AS ${sql.ident('__visible')} FROM (${visible}) AS ${sql.ident('visible')} ORDER BY random() LIMIT ${sql.int(size)}`
}
