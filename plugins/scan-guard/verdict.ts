// The scan guard's judgement of one list shape: would its queries read a large table row by row,
// and which index would stop that. Pure apart from the EXPLAINs it runs; no Fastify here.
import { compile } from '../../lib/sql/sql.js'
import { quoteIdent } from '../../lib/sql/sql.js'
import { compileCount, compileFiltered, compileList } from '../../lib/sql/read.js'
import { rowsAtLeast, sequentialScans, type ScannedTable } from '../../lib/db/explain.js'
import type { Queryable } from '../../lib/db/query.js'
import type { ListPlan } from '../../lib/plan/types.js'
import { conditionsOf, type CheckedFilter } from '../../lib/query/filter/checked.js'
import type { FieldModel } from '../../lib/model/types.js'

export type Verdict =
  | { readonly ok: true }
  | { readonly ok: false, readonly table: string, readonly rows: number, readonly suggestion: string }

/** The shape of a list or seek: resource, filter without its values, order and options. Values never matter. */
export function shapeKey (plan: ListPlan): string {
  return `${plan.kind}\0${plan.model.name}\0${compile(compileFiltered(plan)).text}\0${plan.order.map((t) => `${t.field.name} ${t.direction}`).join(',')}\0${plan.count}`
}

interface FilterColumns { equality: FieldModel[], range: FieldModel[], text: FieldModel[] }

function filterColumns (filter: CheckedFilter | undefined): FilterColumns {
  const columns: FilterColumns = { equality: [], range: [], text: [] }
  for (const condition of filter === undefined ? [] : conditionsOf(filter)) {
    switch (condition.kind) {
      case 'compare': (condition.op === '=' ? columns.equality : columns.range).push(condition.field); break
      case 'in':
      case 'null':
      case 'has-key': columns.equality.push(condition.field); break
      case 'like':
      case 'similar':
      case 'regex': columns.text.push(condition.field); break
      case 'search': columns.text.push(...condition.fields); break
    }
  }
  return columns
}

/**
 * The index to suggest: equality columns first, then range columns, then the order (a b-tree);
 * for text matching without either, a trigram GIN index.
 */
export function suggestIndex (plan: ListPlan): string {
  const { equality, range, text } = filterColumns(plan.filter)
  const table = plan.model.tableText.split('.').map(quoteIdent).join('.')
  const columns: string[] = []
  for (const field of [...equality, ...range, ...plan.order.map((t) => t.field)]) {
    if (!columns.includes(field.column)) columns.push(field.column)
  }
  if (equality.length === 0 && range.length === 0 && text.length > 0) {
    return `CREATE INDEX ON ${table} USING gin (${quoteIdent(text[0]!.column)} gin_trgm_ops)`
  }
  return `CREATE INDEX ON ${table} (${columns.map(quoteIdent).join(', ')})`
}

/** Judges the queries this list will run: the page always, the filtered rows with a filter, the count with count=exact. */
export async function judge (db: Queryable, plan: ListPlan, seqScanRows: number): Promise<Verdict> {
  const queries = [compileList(plan)]
  if (plan.filter !== undefined) queries.push(compileFiltered(plan))
  if (plan.count) queries.push(compileCount(plan))
  const scanned = new Map<string, ScannedTable>()
  for (const query of queries) {
    for (const table of await sequentialScans(db, query)) scanned.set(`${table.schema}.${table.table}`, table)
  }
  for (const [name, table] of scanned) {
    const rows = await rowsAtLeast(db, table, seqScanRows)
    if (rows > seqScanRows) return { ok: false, table: name, rows, suggestion: suggestIndex(plan) }
  }
  return { ok: true }
}
