// The value of a field reached through to-one relations (lib/query/paths.ts), for order_by and the
// aggregates: a LEFT JOIN LATERAL of one column, the field of the related row the caller may read
// there (its tenant, its read rule's row filter, live rows only), NULL where the reference is null
// or the row is outside that scope. The join is by the target's key, so each level is one index
// lookup; computing it once per row in the FROM clause lets ORDER BY, a keyset condition and the
// select list (or GROUP BY) all name the same column.
import { sql, type Sql } from './sql.js'
import { qualifiedColumnOf } from './record.js'
import { relatedScopeConditions } from './filter.js'
import type { ScopedHop } from '../query/paths.js'
import type { FieldModel, ResourceModel } from '../model/types.js'

/** The one column of a path's lateral. */
const VALUE = sql.ident('__value')

export interface PathValue {
  /** ` LEFT JOIN LATERAL (…) AS "<alias>" ON true`, to follow the top table in a FROM clause. */
  readonly join: Sql
  /** `"<alias>"."__value"`: the value, a column of the row. */
  readonly value: Sql
}

/**
 * `field` of the row the relations `via` lead to from a row of `model`, joined as `alias`. Each
 * level reads its table under an alias of its own (`__path_1`, `__path_2`), so a relation of a
 * table to itself never names the outer row's columns; every level's scope is in the subquery, so
 * an invisible row anywhere on the way leaves no row, which the LEFT JOIN makes a NULL.
 */
export function pathValue (model: ResourceModel, via: readonly ScopedHop[], field: FieldModel, alias: string): PathValue {
  const tables: Sql[] = []
  const conditions: Sql[] = []
  let from = model
  via.forEach((hop, i) => {
    const table = sql.ident(`__path_${i + 1}`)
    const target: ResourceModel = { ...hop.target, table }
    if (hop.relation.kind !== 'one') throw new Error(`pathValue: ${hop.relation.name} is not a to-one relation`)
    tables.push(sql`${hop.target.table} AS ${table}`)
    conditions.push(sql`${qualifiedColumnOf(target, target.key[0]!)} = ${qualifiedColumnOf(from, hop.relation.field)}`)
    conditions.push(...relatedScopeConditions(target, hop.scope, table, i + 1))
    from = target
  })
  const name = sql.ident(alias)
  const join = sql` LEFT JOIN LATERAL (SELECT ${qualifiedColumnOf(from, field)} AS ${VALUE} FROM ${sql.join(tables)} WHERE ${sql.join(conditions, sql` AND `)}) AS ${name} ON true`
  return { join, value: sql`${name}.${VALUE}` }
}
