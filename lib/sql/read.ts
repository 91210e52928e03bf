// Read plans → SQL. Pages are keyset pages: the WHERE clause starts after the previous page's last
// row, so page N costs what page 1 costs.
import { sql, type Sql } from './sql.js'
import { keyCondition, qualifiedColumnOf, readOf, recordSelect } from './record.js'
import type { GetPlan, ListPlan, OrderTerm, ReadScope } from '../plan/types.js'
import type { ResourceModel } from '../model/types.js'

export function scopeConditions (model: ResourceModel, scope: ReadScope): Sql[] {
  const conditions: Sql[] = []
  if (model.tenant !== undefined) conditions.push(sql`${sql.ident(model.tenant)} = ${scope.tenant ?? null}`)
  if (model.softDelete !== undefined && !scope.showDeleted) conditions.push(sql`${sql.ident(model.softDelete)} IS NULL`)
  return conditions
}

function where (conditions: readonly Sql[]): Sql {
  return conditions.length === 0 ? sql.empty : sql` WHERE ${sql.join(conditions, sql` AND `)}`
}

export function compileGet (plan: GetPlan): Sql {
  return sql`SELECT ${recordSelect(plan.model, plan.select, plan.readable)} FROM ${plan.model.table}${where([keyCondition(plan.model, plan.key), ...scopeConditions(plan.model, plan.scope)])}`
}

/** `(a > $1) OR (a = $1 AND b > $2) ...`: after the given row in a mixed-direction order. */
function afterCondition (model: ResourceModel, order: readonly OrderTerm[], values: readonly string[]): Sql {
  const alternatives = order.map((term, i) => {
    const equal = order.slice(0, i).map((prior, j) => sql`${qualifiedColumnOf(model, prior.field)} = ${values[j]}`)
    const beyond = sql`${qualifiedColumnOf(model, term.field)} ${sql.keyword(term.direction === 'ASC' ? '>' : '<')} ${values[i]}`
    return sql`(${sql.join([...equal, beyond], sql` AND `)})`
  })
  return sql`(${sql.join(alternatives, sql` OR `)})`
}

/** The page query; it reads one row more than the page to learn whether another page follows. */
export function compileList (plan: ListPlan): Sql {
  const conditions = scopeConditions(plan.model, plan.scope)
  if (plan.after !== undefined) conditions.push(afterCondition(plan.model, plan.order, plan.after))
  const orderValues = plan.order.map((term, i) => sql`${readOf(term.field)} AS ${sql.ident(`__order_${i}`)}`)
  const orderBy = sql.join(plan.order.map((term) => sql`${qualifiedColumnOf(plan.model, term.field)} ${sql.keyword(term.direction)}`))
  return sql`SELECT ${recordSelect(plan.model, plan.select, plan.readable)}, ${sql.join(orderValues)} FROM ${plan.model.table}${where(conditions)} ORDER BY ${orderBy} LIMIT ${plan.pageSize + 1}`
}

/** The planner's row estimate for the scope: cheap, never a count(*). */
export function compileEstimate (plan: ListPlan): Sql {
  return sql`EXPLAIN (FORMAT JSON) SELECT 1 FROM ${plan.model.table}${where(scopeConditions(plan.model, plan.scope))}`
}
