// What a list guard sees of a list: a small, documented view of its plan (docs/plugins.md, "A
// list-guard plugin"), so a plan may gain fields without changing a public type. Built only where
// guards are added, and lazily: a guard that reads only the page size pays for nothing else.
import type { Pool } from '../db/pool.js'
import type { Queryable } from '../db/query.js'
import { explainPlans, type ExplainNode } from '../db/explain.js'
import type { Sql } from '../sql/sql.js'
import { compileCount, compileFiltered, compileList } from '../sql/read.js'
import type { EmbedPlan, ListPlan } from '../plan/types.js'
import { narrowed } from '../plan/read.js'
import { conditionsOf, filterStructure, scopeStructure, type CheckedFilter, type FilterCondition, type SqlComparator } from '../query/filter/checked.js'
import type { FieldModel } from '../model/types.js'
import { orderName, ownField } from '../query/order-by.js'

export type { ExplainNode }

/**
 * Runs before a list's queries: may refuse the list (throw a problem) or return a warning for the
 * `X-Service-Warning` header. It gets the list's view and the read database. The scan guard is one.
 */
export type ListGuard = (view: ListGuardView, db: Queryable) => Promise<string | undefined>

/** A field as a guard sees it: its name in the API and its column in the table. */
export interface GuardField {
  readonly name: string
  readonly column: string
}

/** A condition of a list's filter, without its values. */
export type GuardCondition =
  | { readonly kind: 'compare', readonly field: GuardField, readonly op: SqlComparator }
  | { readonly kind: 'in' | 'null' | 'like' | 'similar' | 'regex' | 'has-key', readonly field: GuardField }
  /** A bare text: any of the searchable fields contains it. */
  | { readonly kind: 'search', readonly fields: readonly GuardField[] }
  /** A test of the value at a key path inside a json field; `op` for a comparison. */
  | { readonly kind: 'json-path', readonly field: GuardField, readonly path: readonly string[], readonly test: 'compare' | 'like' | 'null' | 'present' | 'has', readonly op: SqlComparator | undefined }
  /**
   * A condition across a relation (`customer.country = "DE"`, docs/relations.md): some row of the
   * `target` resource the caller may read is linked to the row and passes `condition`, whose
   * fields are the target's, and `table` its table as its config names it. `link` is the field
   * of the list's resource that a to-one follows (to the target's key); a to-many follows the
   * list's key to `by`, the target's field that references it, and its `link` is undefined.
   */
  | { readonly kind: 'related', readonly relation: string, readonly target: string, readonly table: string, readonly link: GuardField | undefined, readonly by: GuardField | undefined, readonly condition: GuardFilter }

/** A list's filter as the caller wrote it, checked, values left out. */
export type GuardFilter =
  | { readonly kind: 'and' | 'or', readonly children: readonly GuardFilter[] }
  | { readonly kind: 'not', readonly child: GuardFilter }
  | GuardCondition

/**
 * A relation a list embeds through `fields` (docs/relations.md, "Embedding"): its page statement
 * reads `table` for each row, by the target's key (a to-one, `by` undefined) or by `by`, the
 * target's field that references the row, in `order` (a to-many).
 */
export interface GuardEmbed {
  readonly relation: string
  readonly target: string
  readonly table: string
  readonly by: GuardField | undefined
  readonly order: readonly GuardField[]
  readonly embeds: readonly GuardEmbed[]
}

/** A statement the list runs, and its plan. */
export interface ExplainedStatement {
  /** `page`: the page itself; `filtered`: the filtered rows (the estimate counts them); `count`: `count=exact`. */
  readonly statement: 'page' | 'filtered' | 'count'
  readonly plan: ExplainNode
}

export interface ListGuardView {
  readonly resource: string
  /** The resource's table as its config names it: `name` or `schema.name`. */
  readonly table: string
  /** `list`: `GET /{resource}` and `:search`; `seek`: `:seek`. */
  readonly kind: 'list' | 'seek'
  readonly filter: GuardFilter | undefined
  /** The filter's conditions in order, without the AND, OR and NOT around them; empty without a filter. */
  readonly conditions: readonly GuardCondition[]
  /**
   * The order, ending with the key fields. A term on a related record's field (`customer.name`,
   * docs/relations.md) has `via`, the to-one relations followed, and its `field` is the target's:
   * no index of the list's table serves it.
   */
  readonly order: ReadonlyArray<{ readonly field: GuardField, readonly direction: 'asc' | 'desc', readonly via?: readonly string[] }>
  /** The relations its records embed, each with those it embeds in turn; empty without `fields` paths. */
  readonly embeds: readonly GuardEmbed[]
  readonly pageSize: number
  /** `count=exact`. */
  readonly count: boolean
  readonly showDeleted: boolean
  /** The caller sees only some rows: a row rule or a tenant narrows them. */
  readonly narrowed: boolean
  /**
   * Equal for two lists exactly when they run the same statements with other bound values: kind,
   * resource, filter and row rule without their values, order, count and show_deleted. Callers
   * narrowed alike (each to their own rows) share it. A key for a guard's cache per shape.
   */
  readonly shape: string
  /**
   * The plans of the statements the list runs (not run), in one round trip: the page, the filtered
   * rows with a filter, the count with `count=exact`.
   */
  explain (options?: ExplainOptions): Promise<readonly ExplainedStatement[]>
}

export interface ExplainOptions {
  /** Planned with sequential scans priced out (`enable_seqscan` off): a scan that remains has no index to serve it. */
  readonly preferIndexes?: boolean
  /** Only these of the list's statements; all it runs when absent. */
  readonly statements?: ReadonlyArray<ExplainedStatement['statement']>
}

class PlanView implements ListGuardView {
  readonly #plan: ListPlan
  readonly #pool: Pool
  #shape: string | undefined
  #filter: GuardFilter | undefined
  /** The planner's row figure of the filtered rows, once a guard had them explained as they run. */
  plannedRows: number | undefined

  constructor (plan: ListPlan, pool: Pool) {
    this.#plan = plan
    this.#pool = pool
  }

  get resource (): string { return this.#plan.model.name }
  get table (): string { return this.#plan.model.tableText }
  get kind (): 'list' | 'seek' { return this.#plan.kind }
  get pageSize (): number { return this.#plan.pageSize }
  get count (): boolean { return this.#plan.count }
  get showDeleted (): boolean { return this.#plan.scope.showDeleted }
  get narrowed (): boolean { return narrowed(this.#plan.model, this.#plan.scope) }

  get filter (): GuardFilter | undefined {
    if (this.#plan.filter !== undefined) this.#filter ??= guardFilter(this.#plan.filter)
    return this.#filter
  }

  get conditions (): readonly GuardCondition[] {
    return this.#plan.filter === undefined ? [] : conditionsOf(this.#plan.filter).map(guardCondition)
  }

  get order (): ListGuardView['order'] {
    return this.#plan.order.map((term) => {
      const direction = term.direction === 'ASC' ? 'asc' : 'desc'
      return ownField(term) !== undefined ? { field: guardField(term.field), direction } : { field: guardField(term.field), direction, via: term.via!.map((hop) => hop.relation.name) }
    })
  }

  get embeds (): readonly GuardEmbed[] {
    return this.#plan.embeds.map(guardEmbed)
  }

  get shape (): string {
    const plan = this.#plan
    if (this.#shape === undefined) {
      const filter = plan.filter === undefined ? '' : filterStructure(plan.filter)
      const rows = plan.scope.rows === undefined ? '' : filterStructure(plan.scope.rows)
      // A path's term reads the target under its row filter: its structure is part of the shape.
      const order = plan.order.map((t) => `${orderName(t)} ${t.direction}${(t.via ?? []).map((hop) => `[${scopeStructure(hop.target, hop.scope)}]`).join('')}`).join(',')
      // Embeds join more tables into the page's statement: a list with them is a shape of its own.
      const embeds = plan.embeds.length === 0 ? '' : `\0${embedsShape(plan.embeds)}`
      this.#shape = `${plan.kind}\0${plan.count}\0${plan.model.name}\0${plan.scope.showDeleted}\0${rows}\0${order}\0${filter}${embeds}`
    }
    return this.#shape
  }

  async explain (options: ExplainOptions = {}): Promise<readonly ExplainedStatement[]> {
    const plan = this.#plan
    const statements: Array<{ readonly statement: ExplainedStatement['statement'], readonly query: Sql }> = [{ statement: 'page', query: compileList(plan) }]
    if (plan.filter !== undefined) statements.push({ statement: 'filtered', query: compileFiltered(plan) })
    if (plan.count) statements.push({ statement: 'count', query: compileCount(plan) })
    const asked = options.statements === undefined ? statements : statements.filter((s) => options.statements!.includes(s.statement))
    const plans = await explainPlans(this.#pool, asked.map((s) => s.query), options)
    const explained = asked.flatMap(({ statement }, i) => plans[i] === undefined ? [] : [{ statement, plan: plans[i] }])
    if (options.preferIndexes !== true) {
      // The estimate's planner's figure is this very EXPLAIN's (lib/sql/read.ts compileEstimate): kept, it is not asked for again.
      const filtered = explained.find((e) => e.statement === 'filtered')?.plan['Plan Rows']
      if (typeof filtered === 'number') this.plannedRows = filtered
    }
    return explained
  }
}

/** The embeds' paths, each with its target's row filter structure: what their joins read. */
function embedsShape (embeds: ListPlan['embeds']): string {
  return embeds.map((embed) => `${embed.path}:${embed.scope.rows === undefined ? '' : filterStructure(embed.scope.rows)}(${embedsShape(embed.embeds)})`).join(',')
}

function guardField (field: FieldModel): GuardField {
  return { name: field.name, column: field.column }
}

function guardEmbed (embed: EmbedPlan): GuardEmbed {
  return {
    relation: embed.relation.name,
    target: embed.relation.target,
    table: embed.model.tableText,
    by: embed.kind === 'many' ? guardField(embed.relation.by) : undefined,
    order: embed.kind === 'many' ? embed.order.map((term) => guardField(term.field)) : [],
    embeds: embed.embeds.map(guardEmbed),
  }
}

function guardFilter (filter: CheckedFilter): GuardFilter {
  switch (filter.kind) {
    case 'and':
    case 'or': return { kind: filter.kind, children: filter.children.map(guardFilter) }
    case 'not': return { kind: 'not', child: guardFilter(filter.child) }
    default: return guardCondition(filter)
  }
}

function guardCondition (condition: FilterCondition): GuardCondition {
  switch (condition.kind) {
    case 'compare': return { kind: 'compare', field: guardField(condition.field), op: condition.op }
    case 'search': return { kind: 'search', fields: condition.fields.map(guardField) }
    case 'json-path': {
      const { test } = condition
      return { kind: 'json-path', field: guardField(condition.field), path: condition.path, test: test.kind, op: test.kind === 'compare' ? test.op : undefined }
    }
    case 'related': {
      const { relation, target } = condition
      return {
        kind: 'related',
        relation: relation.name,
        target: relation.target,
        table: target.tableText,
        link: relation.kind === 'one' ? guardField(relation.field) : undefined,
        by: relation.kind === 'many' ? guardField(relation.by) : undefined,
        condition: guardFilter(condition.condition),
      }
    }
    default: return { kind: condition.kind, field: guardField(condition.field) }
  }
}

/** What the list guards left for the list: their warnings, and the planner's figure of its filtered rows where one had them explained. */
export interface GuardsPassed {
  readonly warnings: readonly string[]
  readonly plannedRows: number | undefined
}

const NO_GUARDS: GuardsPassed = { warnings: [], plannedRows: undefined }

/** The list's guards run in the order they were added; the warnings they return, in that order. */
export async function runListGuards (guards: readonly ListGuard[], plan: ListPlan, db: Pool): Promise<GuardsPassed> {
  if (guards.length === 0) return NO_GUARDS
  const warnings: string[] = []
  const view = new PlanView(plan, db)
  for (const guard of guards) {
    const warning = await guard(view, db)
    if (warning !== undefined) warnings.push(warning)
  }
  return { warnings, plannedRows: view.plannedRows }
}

/** The view a guard gets of a list. */
export function listGuardView (plan: ListPlan, db: Pool): ListGuardView {
  return new PlanView(plan, db)
}
