// The scan guard's judgement of one list shape: would its queries read a large table row by row,
// and which index would stop that. Pure apart from the EXPLAINs it runs; no Fastify here.
import type { ExplainedStatement, GuardCondition, GuardEmbed, GuardField, GuardFilter, ListGuardView, Queryable } from '../../lib/public.js'
import { tableKey, wholeReads, type ScannedTable, type TableSizes } from './explain.js'

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

function tableName (table: string): string {
  return table.split('.').map(quoteIdent).join('.')
}

/**
 * The index to suggest on a table read for `conditions`: `leading` columns first (what links it
 * to the list), then equality columns, then range columns, then `order` (a b-tree); with nothing
 * else to lead, a trigram GIN index for text matching, or a GIN index for json keys. A GIN index
 * takes every text (or key) element: a search over several fields is an OR of one match each,
 * which an index on one of them cannot serve, while one GIN index over all of them serves each
 * arm of the OR. Undefined when there is nothing to index.
 */
function indexOn (table: string, leading: readonly string[], conditions: readonly GuardCondition[], order: readonly string[]): string | undefined {
  const { equality, range, text, keys } = filterElements(conditions)
  const elements = distinct([...leading, ...equality, ...range, ...order])
  if (leading.length === 0 && equality.length === 0 && range.length === 0 && text.length > 0) return `CREATE INDEX ON ${tableName(table)} USING gin (${distinct(text).map((e) => `${e} gin_trgm_ops`).join(', ')})`
  if (leading.length === 0 && equality.length === 0 && range.length === 0 && keys.length > 0) return `CREATE INDEX ON ${tableName(table)} USING gin (${distinct(keys).join(', ')})`
  return elements.length === 0 ? undefined : `CREATE INDEX ON ${tableName(table)} (${elements.join(', ')})`
}

/**
 * The index that serves the list's own filter and order on its table. An order serves up to its
 * first term on a related record's field (`customer.name`), which no index of this table holds: an
 * order that starts with one, on a list without a filter an index could serve, has no index to
 * suggest (undefined).
 */
export function suggestIndex (view: ListGuardView): string | undefined {
  const related = view.order.findIndex((t) => t.via !== undefined)
  const order = related < 0 ? view.order : view.order.slice(0, related)
  return indexOn(view.table, [], view.conditions, order.map((t) => quoteIdent(t.field.column)))
}

type RelatedCondition = Extract<GuardCondition, { kind: 'related' }>

/** The conditions of a filter that cross a relation, at any depth (a second level nests in the first). */
function relatedConditions (conditions: readonly GuardCondition[]): RelatedCondition[] {
  return conditions.flatMap((c) => c.kind === 'related' ? [c, ...relatedConditions(conditionsOf(c.condition))] : [])
}

function conditionsOf (filter: GuardFilter): GuardCondition[] {
  switch (filter.kind) {
    case 'and':
    case 'or': return filter.children.flatMap(conditionsOf)
    case 'not': return conditionsOf(filter.child)
    default: return [filter]
  }
}

function allEmbeds (embeds: readonly GuardEmbed[]): GuardEmbed[] {
  return embeds.flatMap((embed) => [embed, ...allEmbeds(embed.embeds)])
}

/** Whether EXPLAIN's table is the one a config names (`name` in any schema, or `schema.name`). */
function sameTable (configured: string, scanned: ScannedTable): boolean {
  const parts = configured.split('.')
  return parts.length === 1 ? parts[0] === scanned.table : parts[0] === scanned.schema && parts[1] === scanned.table
}

/**
 * The index for the table EXPLAIN would scan: the list's own; a related resource's that a filter
 * crosses to, led by the column that links it (a to-many's `by`), then that relation's own
 * conditions; or an embedded to-many's, its `by` then its order. Any other table (a row rule's
 * subquery) gets the list's own index: what the caller asked of it is all the guard may speak of.
 */
function suggestionFor (view: ListGuardView, scanned: ScannedTable): string | undefined {
  if (!sameTable(view.table, scanned)) {
    const related = relatedConditions(view.conditions).filter((c) => sameTable(c.table, scanned))
    if (related.length > 0) {
      const leading = distinct(related.flatMap((c) => c.by === undefined ? [] : [quoteIdent(c.by.column)]))
      const own = related.flatMap((c) => conditionsOf(c.condition).filter((inner) => inner.kind !== 'related'))
      return indexOn(related[0]!.table, leading, own, [])
    }
    const embedded = allEmbeds(view.embeds).find((embed) => embed.by !== undefined && sameTable(embed.table, scanned))
    if (embedded !== undefined) return indexOn(embedded.table, [quoteIdent(embedded.by!.column)], [], embedded.order.map((f) => quoteIdent(f.column)))
  }
  return suggestIndex(view)
}

/**
 * Judges the queries this list will run: the page always, the filtered rows with a filter, the
 * count with count=exact. First as they would run: a plan that reads no table whole is also the
 * plan with sequential scans priced out (pricing out what a plan does not use leaves it the
 * cheapest), so most shapes are settled by one EXPLAIN a statement, all in one round trip with
 * no transaction around them. The statements that do read a table whole are planned again with
 * the indexes preferred, so the verdict is the shape's, not the first values': a scan that
 * remains has no index to serve it. A page ordered by a related record's field sorts every row it
 * reads, so there a whole read through an index counts too.
 */
export async function judge (view: ListGuardView, db: Queryable, sizes: TableSizes): Promise<Verdict> {
  const sorted = view.order.some((t) => t.via !== undefined)
  const wholeReadsOf = ({ statement, plan }: ExplainedStatement): ScannedTable[] => wholeReads(plan, sorted && statement === 'page')
  // Only a statement whose plan reads a table whole is planned again: pricing out sequential scans
  // leaves any other plan the cheapest, so its verdict would be the same.
  const reading = (await view.explain()).filter((explained) => wholeReadsOf(explained).length > 0).map((explained) => explained.statement)
  if (reading.length === 0) return { ok: true }
  const scanned = new Map<string, ScannedTable>()
  for (const table of (await view.explain({ preferIndexes: true, statements: reading })).flatMap(wholeReadsOf)) scanned.set(tableKey(table), table)
  for (const table of scanned.values()) {
    if (await sizes.large(db, table)) return { ok: false, suggestion: suggestionFor(view, table) }
  }
  return { ok: true }
}
