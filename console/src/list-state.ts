// A list's state as the hash's query keeps it, so Back, Forward and reload restore it:
//   q=<text>                 the search box, sent as search("text")
//   f.<field>=<JSON value>   a chip: the facet value chosen for a field (JSON, so null, numbers and
//                            booleans come back as they were)
//   show_deleted=true        deleted records too
//   order_by=<field [desc]>  a sort chosen on a column header (the view's sort otherwise)
//   filter=<AIP-160 text>    a filter a link brings (a record's "More" to its related list),
//                            shown as a chip of its own and ANDed with the rest
// Page tokens stay in memory: they are bound to the list's parameters and expire.
import { isNumeric, type FieldMeta } from './meta.js'

export type FacetValue = string | number | boolean | null

export interface ListState {
  readonly search: string
  readonly filter: string
  readonly chips: ReadonlyArray<{ readonly field: string, readonly value: FacetValue }>
  readonly showDeleted: boolean
  readonly orderBy: string | undefined
}

const CHIP = 'f.'

function facetValue (text: string): FacetValue | undefined {
  try {
    const value: unknown = JSON.parse(text)
    return value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? value : undefined
  } catch { return undefined }
}

/** The state in `query`, keeping only chips on `filters` (a link may name a field the caller lost). */
export function readState (query: URLSearchParams, filters: readonly string[]): ListState {
  const chips: Array<{ field: string, value: FacetValue }> = []
  for (const [name, text] of query) {
    if (!name.startsWith(CHIP)) continue
    const field = name.slice(CHIP.length)
    const value = facetValue(text)
    if (filters.includes(field) && value !== undefined && !chips.some((chip) => chip.field === field)) chips.push({ field, value })
  }
  const orderBy = query.get('order_by') ?? undefined
  return { search: query.get('q') ?? '', filter: query.get('filter') ?? '', chips, showDeleted: query.get('show_deleted') === 'true', orderBy: orderBy === '' ? undefined : orderBy }
}

export function writeState (state: ListState): URLSearchParams {
  const query = new URLSearchParams()
  if (state.search !== '') query.set('q', state.search)
  if (state.filter !== '') query.set('filter', state.filter)
  for (const chip of state.chips) query.set(CHIP + chip.field, JSON.stringify(chip.value))
  if (state.showDeleted) query.set('show_deleted', 'true')
  if (state.orderBy !== undefined) query.set('order_by', state.orderBy)
  return query
}

const QUOTED = /[\\"*\n\r\t]/g
const ESCAPES: Record<string, string> = { '\\': '\\\\', '"': '\\"', '*': '\\*', '\n': '\\n', '\r': '\\r', '\t': '\\t' }

/** A string literal of the filter language (docs/queries.md): quoted, with `*` a literal star. */
export function quoted (text: string): string {
  return `"${text.replace(QUOTED, (c) => ESCAPES[c]!)}"`
}

const NUMBER = /^-?\d+(\.\d+)?([eE][-+]?\d+)?$/

/** `field = value` typed as the field is: numbers and booleans bare, text quoted, null as isNull. */
export function condition (field: string, value: FacetValue, meta: FieldMeta | undefined): string {
  if (value === null) return `isNull(${field})`
  if (typeof value === 'boolean' || typeof value === 'number') return `${field} = ${String(value)}`
  if (meta !== undefined && isNumeric(meta.type) && NUMBER.test(value)) return `${field} = ${value}`
  return `${field} = ${quoted(value)}`
}

/** The list's filter: the search and every chip but `except`'s (a facet counts without its own), ANDed. */
export function filterOf (state: ListState, fields: Readonly<Record<string, FieldMeta>>, except?: string): string {
  const parts = state.search.trim() === '' ? [] : [`search(${quoted(state.search.trim())})`]
  if (state.filter.trim() !== '') parts.push(`(${state.filter.trim()})`)
  for (const chip of state.chips) if (chip.field !== except) parts.push(condition(chip.field, chip.value, fields[chip.field]))
  return parts.join(' AND ')
}
