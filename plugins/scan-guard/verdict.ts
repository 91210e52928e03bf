// The scan guard's judgement of one list shape: would its queries read a large table row by row,
// and which index would stop that. Pure apart from the EXPLAINs it runs; no Fastify here.
import type { GuardCondition, GuardField, ListGuardView, Queryable } from '../../lib/public.js'
import { rowsAtLeast, sequentialScans, wholeReads, type ScannedTable } from './explain.js'

/** `suggestion` is undefined where no index of the table could serve the list (see suggestIndex). */
export type Verdict =
  | { readonly ok: true }
  | { readonly ok: false, readonly suggestion: string | undefined }

/** An identifier quoted for a suggestion's text, as PostgreSQL reads it. */
function quoteIdent (name: string): string {
  return `"${name.replace(/"/g, '""')}"`
}

/** A text as an SQL string literal, for suggestions an administrator runs (never for queries). */
function literal (text: string): string {
  return `'${text.replace(/'/g, "''")}'`
}

/** The index expression of a json path: what the filter compiles to, with the keys written out. */
function pathElement (field: GuardField, path: readonly string[], operator: '#>' | '#>>'): string {
  return `(${quoteIdent(field.column)} ${operator} ARRAY[${path.map(literal).join(', ')}])`
}

/** Index elements (quoted columns or expressions) by the index kind that serves them. */
interface FilterElements { equality: string[], range: string[], text: string[], keys: string[] }

function filterElements (conditions: readonly GuardCondition[]): FilterElements {
  const elements: FilterElements = { equality: [], range: [], text: [], keys: [] }
  for (const condition of conditions) {
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
        const { field, path, test, op } = condition
        if (test === 'like') elements.text.push(pathElement(field, path, '#>>'))
        else if (test === 'has') elements.keys.push(pathElement(field, path, '#>'))
        else (test === 'compare' && op !== '=' ? elements.range : elements.equality).push(pathElement(field, path, '#>'))
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
 * each arm of the OR. An order serves up to its first term on a related record's field
 * (`customer.name`), which no index of this table holds: an order that starts with one, on a list
 * without a filter an index could serve, has no index to suggest (undefined).
 */
export function suggestIndex (view: ListGuardView): string | undefined {
  const { equality, range, text, keys } = filterElements(view.conditions)
  const table = view.table.split('.').map(quoteIdent).join('.')
  const related = view.order.findIndex((t) => t.via !== undefined)
  const order = related < 0 ? view.order : view.order.slice(0, related)
  const elements = distinct([...equality, ...range, ...order.map((t) => quoteIdent(t.field.column))])
  if (equality.length === 0 && range.length === 0 && text.length > 0) return `CREATE INDEX ON ${table} USING gin (${distinct(text).map((e) => `${e} gin_trgm_ops`).join(', ')})`
  if (equality.length === 0 && range.length === 0 && keys.length > 0) return `CREATE INDEX ON ${table} USING gin (${distinct(keys).join(', ')})`
  return elements.length === 0 ? undefined : `CREATE INDEX ON ${table} (${elements.join(', ')})`
}

/**
 * Judges the queries this list will run: the page always, the filtered rows with a filter, the
 * count with count=exact. Planned with the indexes preferred, so the verdict is the shape's, not
 * the first values': a scan that remains has no index to serve it. A page ordered by a related
 * record's field sorts every row it reads, so there a whole read through an index counts too.
 */
export async function judge (view: ListGuardView, db: Queryable, seqScanRows: number): Promise<Verdict> {
  const scanned = new Map<string, ScannedTable>()
  const sorted = view.order.some((t) => t.via !== undefined)
  for (const { statement, plan } of await view.explain({ preferIndexes: true })) {
    const reads = sorted && statement === 'page' ? wholeReads(plan) : sequentialScans(plan)
    for (const table of reads) scanned.set(`${table.schema}.${table.table}`, table)
  }
  for (const table of scanned.values()) {
    if (await rowsAtLeast(db, table, seqScanRows) > seqScanRows) return { ok: false, suggestion: suggestIndex(view) }
  }
  return { ok: true }
}
