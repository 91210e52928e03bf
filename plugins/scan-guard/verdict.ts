// The scan guard's judgement of one list shape: would its queries read a large table row by row,
// and which index would stop that. Pure apart from the EXPLAINs it runs; no Fastify here.
import { compile } from '../../lib/sql/sql.js'
import { quoteIdent } from '../../lib/sql/sql.js'
import { compileCount, compileFiltered, compileList } from '../../lib/sql/read.js'
import { rowsAtLeast, sequentialScans, withIndexesPreferred, type ScannedTable } from '../../lib/db/explain.js'
import type { Pool } from '../../lib/db/pool.js'
import type { ListPlan } from '../../lib/plan/types.js'
import { conditionsOf, filterStructure, type CheckedFilter } from '../../lib/query/filter/checked.js'
import type { FieldModel } from '../../lib/model/types.js'

export type Verdict =
  | { readonly ok: true }
  | { readonly ok: false, readonly suggestion: string }

/**
 * The shape of a list or seek: resource, filter without its values, order and options. Values never
 * matter; json key paths do (they are bound, like values, but each path wants its own index).
 */
export function shapeKey (plan: ListPlan): string {
  const paths = (plan.filter === undefined ? [] : conditionsOf(plan.filter)).flatMap((c) => c.kind === 'json-path' ? [JSON.stringify(c.path)] : [])
  return `${plan.kind}\0${plan.model.name}\0${compile(compileFiltered(plan)).text}\0${paths.join(',')}\0${orderText(plan)}\0${plan.count}`
}

function orderText (plan: ListPlan): string {
  return plan.order.map((t) => `${t.field.name} ${t.direction}`).join(',')
}

/**
 * What decides a list's shape, values left out: cheaper to build than the shape's SQL. The caller's
 * row filter counts by its structure, not by whose it is: callers narrowed alike (each to their own
 * rows) share one entry, where keying by caller held one for each.
 */
export function listStructure (plan: ListPlan): string {
  const filter = plan.filter === undefined ? '' : filterStructure(plan.filter)
  const rows = plan.scope.rows === undefined ? '' : filterStructure(plan.scope.rows)
  return `${plan.kind}\0${plan.count}\0${plan.model.name}\0${plan.scope.showDeleted}\0${rows}\0${orderText(plan)}\0${filter}`
}

/** A text as an SQL string literal, for suggestions an administrator runs (never for queries). */
function literal (text: string): string {
  return `'${text.replace(/'/g, "''")}'`
}

/** The index expression of a json path: what the filter compiles to, with the keys written out. */
function pathElement (field: FieldModel, path: readonly string[], operator: '#>' | '#>>'): string {
  return `(${quoteIdent(field.column)} ${operator} ARRAY[${path.map(literal).join(', ')}])`
}

/** Index elements (quoted columns or expressions) by the index kind that serves them. */
interface FilterElements { equality: string[], range: string[], text: string[], keys: string[] }

function filterElements (filter: CheckedFilter | undefined): FilterElements {
  const elements: FilterElements = { equality: [], range: [], text: [], keys: [] }
  for (const condition of filter === undefined ? [] : conditionsOf(filter)) {
    switch (condition.kind) {
      case 'compare': (condition.op === '=' ? elements.equality : elements.range).push(quoteIdent(condition.field.column)); break
      case 'in':
      case 'null': elements.equality.push(quoteIdent(condition.field.column)); break
      case 'has-key': elements.keys.push(quoteIdent(condition.field.column)); break
      case 'like':
      case 'similar':
      case 'regex': elements.text.push(quoteIdent(condition.field.column)); break
      case 'search': elements.text.push(...condition.fields.map((f) => quoteIdent(f.column))); break
      case 'json-path': {
        const { field, path, test } = condition
        if (test.kind === 'like') elements.text.push(pathElement(field, path, '#>>'))
        else if (test.kind === 'has') elements.keys.push(pathElement(field, path, '#>'))
        else (test.kind === 'compare' && test.op !== '=' ? elements.range : elements.equality).push(pathElement(field, path, '#>'))
      }
    }
  }
  return elements
}

function distinct (elements: readonly string[]): string[] {
  return [...new Set(elements)]
}

/**
 * The index to suggest: equality columns first, then range columns, then the order (a b-tree);
 * without either, a trigram GIN index for text matching, or a GIN index for json keys. A GIN
 * index takes every text (or key) element: a search over several fields is an OR of one match
 * each, which an index on one of them cannot serve, while one GIN index over all of them serves
 * each arm of the OR.
 */
export function suggestIndex (plan: ListPlan): string {
  const { equality, range, text, keys } = filterElements(plan.filter)
  const table = plan.model.tableText.split('.').map(quoteIdent).join('.')
  const elements = distinct([...equality, ...range, ...plan.order.map((t) => quoteIdent(t.field.column))])
  if (equality.length === 0 && range.length === 0 && text.length > 0) return `CREATE INDEX ON ${table} USING gin (${distinct(text).map((e) => `${e} gin_trgm_ops`).join(', ')})`
  if (equality.length === 0 && range.length === 0 && keys.length > 0) return `CREATE INDEX ON ${table} USING gin (${distinct(keys).join(', ')})`
  return `CREATE INDEX ON ${table} (${elements.join(', ')})`
}

/**
 * Judges the queries this list will run: the page always, the filtered rows with a filter, the
 * count with count=exact. Planned with the indexes preferred, so the verdict is the shape's, not
 * the first values': a scan that remains has no index to serve it.
 */
export async function judge (pool: Pool, plan: ListPlan, seqScanRows: number): Promise<Verdict> {
  const queries = [compileList(plan)]
  if (plan.filter !== undefined) queries.push(compileFiltered(plan))
  if (plan.count) queries.push(compileCount(plan))
  const scanned = new Map<string, ScannedTable>()
  await withIndexesPreferred(pool, async (db) => {
    for (const query of queries) {
      for (const table of await sequentialScans(db, query)) scanned.set(`${table.schema}.${table.table}`, table)
    }
  })
  for (const table of scanned.values()) {
    if (await rowsAtLeast(pool, table, seqScanRows) > seqScanRows) return { ok: false, suggestion: suggestIndex(plan) }
  }
  return { ok: true }
}
