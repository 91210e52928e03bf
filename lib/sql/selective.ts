// A related condition every row of a list must pass (`customer.country = "DE"`, a top-level
// conjunct of the filter or of the read rule's row filter) can be read from either side, and which
// is cheap depends on how many target rows pass it, which only the values tell:
// - few: collect their keys and read the list's rows by them (`customer_id = ANY (keys)`), then
//   sort those: about `matches` rows read;
// - many: walk the list in its order and check each row (`EXISTS … OFFSET 0`): about
//   `limit × rows / matches` rows read before the page is full.
// The two cost the same at `matches = sqrt(limit × rows)`; below it collecting wins, above it
// walking. PostgreSQL cannot choose by the values once a prepared statement's plan is generic (it
// plans an EXISTS for a typical value, an ANY for ten keys), so the statement carries both, each
// behind a one-time filter that a CTE decides as the statement runs: it counts the passing target
// rows up to the threshold (plus one, to tell "more"; from their index alone where it holds every
// column the condition tests), and only the branch that fits the count runs, so the keys are read
// only where they are collected. Either branch reads at most about sqrt(limit × rows) rows,
// whatever the value.
//
// The threshold is in target rows: a to-one's keys each stand for `rows / target rows` list rows
// (the table's statistics, pg_class.reltuples, read as the statement runs), a to-many's target rows
// are each one list row at most. Each row of that statement says which branch ran
// (`__collected`), and a page whose side is known (lib/read/sides.ts) sends that branch alone: no
// count, no statistics, a third of the text. docs/decisions.md, "Traversed filters", has the
// measurements.
import { sql, type Sql } from './sql.js'
import { relatedSides, type Substitute } from './filter.js'
import type { CheckedFilter } from '../query/filter/checked.js'
import type { ResourceModel } from '../model/types.js'

type RelatedCondition = Extract<CheckedFilter, { kind: 'related' }>

/** The top-level conjuncts of a filter. */
function conjuncts (filter: CheckedFilter): CheckedFilter[] {
  return filter.kind === 'and' ? filter.children.flatMap(conjuncts) : [filter]
}

/**
 * Whether the target rows that pass a condition can be found from an index of the target's table:
 * one of its conjuncts is an equality, range, list or null test of a column that leads an index
 * (the table's indexes as the start found them). Elsewhere collecting them would read the target
 * row by row, which the walk never does, so the condition stays one EXISTS.
 */
function startsFromIndex (target: ResourceModel, condition: CheckedFilter): boolean {
  return conjuncts(condition).some((c) => (c.kind === 'compare' || c.kind === 'in' || c.kind === 'null') && target.leadingColumns.has(c.field.column))
}

/** The first related condition among the top-level conjuncts of a filter whose target rows an index finds. */
function conjunctRelated (filter: CheckedFilter | undefined): RelatedCondition | undefined {
  if (filter === undefined) return undefined
  return conjuncts(filter).find((c): c is RelatedCondition => c.kind === 'related' && startsFromIndex(c.target, c.condition))
}

/** The side a related condition is read from: its target's keys collected, or the list walked. */
export type Side = 'collected' | 'walked'

/** The column of the choosing statement's rows that says which branch ran: true where it collected. */
export const SIDE_COLUMN = '__collected'

/** One way to read the rows: the related condition's SQL in it, and where the statement chooses, the one-time condition that selects it. */
export interface SelectiveBranch {
  readonly substitute: Substitute
  readonly runs?: Sql
  /** `, true AS "__collected"` (false where it walks), a column of the choosing statement's rows. */
  readonly marks?: Sql
}

/** A list statement's two ways to read a related condition, and the CTE that chooses between them. */
export interface SelectiveForm {
  /** `WITH "__keys" AS MATERIALIZED (…) `, to start the statement that chooses. */
  readonly with: Sql
  readonly collected: Required<SelectiveBranch>
  readonly walked: Required<SelectiveBranch>
}

const KEYS = sql.ident('__keys')
const FEW = sql.ident('__few')
const MOST = sql.ident('__most')
const MARK = sql.ident(SIDE_COLUMN)

/** The most target rows the collecting branch takes, from the two tables' statistics. */
function threshold (model: ResourceModel, node: RelatedCondition, limit: number): Sql {
  const rows = sql`greatest(p.reltuples, 1)`
  if (node.relation.kind === 'many') {
    return sql`(SELECT floor(sqrt(${limit}::float8 * ${rows}))::int8 FROM pg_class p WHERE p.oid = ${model.tableText}::regclass)`
  }
  return sql`(SELECT floor(greatest(t.reltuples, 1) * sqrt(${limit}::float8 / ${rows}))::int8 FROM pg_class p, pg_class t WHERE p.oid = ${model.tableText}::regclass AND t.oid = ${node.target.tableText}::regclass)`
}

/** The related condition a list's statement reads from either side (its filter's first, else its row filter's), if any. */
export function selectiveCondition (filter: CheckedFilter | undefined, rows: CheckedFilter | undefined): RelatedCondition | undefined {
  return conjunctRelated(filter) ?? conjunctRelated(rows)
}

/**
 * One side of a list's related condition, alone: for a list whose side is known (lib/read/sides.ts),
 * whose statement neither counts nor chooses. Undefined where the list has no such condition.
 */
export function selectiveSide (model: ResourceModel, filter: CheckedFilter | undefined, rows: CheckedFilter | undefined, side: Side): SelectiveBranch | undefined {
  const node = selectiveCondition(filter, rows)
  if (node === undefined) return undefined
  const sides = relatedSides(model, node)
  return { substitute: { node, sql: side === 'collected' ? sides.collected : sides.probed } }
}

/**
 * The selective form of a list's statement reading at most `limit` rows (a page and the one more,
 * or a count's cap), where its filter or row filter has a related condition at the top level;
 * undefined where neither has one.
 */
export function selectiveForm (model: ResourceModel, filter: CheckedFilter | undefined, rows: CheckedFilter | undefined, limit: number): SelectiveForm | undefined {
  const node = selectiveCondition(filter, rows)
  if (node === undefined) return undefined
  const sides = relatedSides(model, node)
  // The threshold is read once, for the LIMIT and the comparison alike.
  const most = sql`(SELECT "__n" FROM ${MOST})`
  const counted = sql`SELECT count(*) <= ${most} AS ${FEW} FROM (${sides.passing} LIMIT ${most} + 1) AS "__counted"`
  return {
    with: sql`WITH ${MOST} AS MATERIALIZED (SELECT greatest(1, ${threshold(model, node, limit)}) AS "__n"), ${KEYS} AS MATERIALIZED (${counted}) `,
    collected: { runs: sql`(SELECT ${FEW} FROM ${KEYS})`, marks: sql`, true AS ${MARK}`, substitute: { node, sql: sides.collected } },
    walked: { runs: sql`(SELECT NOT ${FEW} FROM ${KEYS})`, marks: sql`, false AS ${MARK}`, substitute: { node, sql: sides.probed } },
  }
}
