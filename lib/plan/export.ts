// Export parameters → ExportPlan, with no I/O: the same checks as a list (the caller's fields,
// filter and order_by against their restricted model, tenant, row filter, soft delete), but no
// page: every matching row, in order, with the selected fields only (no etag, no permissions).
// The rows are those the caller reads that the export rule's own filter allows. `fields` paths
// embed relations as a get does (./embed.ts), read in the same statement; CSV refuses to-many ones
// (docs/relations.md, "Export").
import type { AccessPlan } from '../access/types.js'
import { exportRows } from '../access/row-filter.js'
import type { Selection } from '../model/selection.js'
import type { CheckedFilter } from '../query/filter/checked.js'
import { fieldMaskItems, fieldMaskName, invalidParameter, parseShowDeleted, textParameter } from '../query/params.js'
import { MAX_FILTER_QUERY, planFilter, planOrder } from './filter.js'
import { callerGraph, type AccessOf } from './graph.js'
import { resolvePath, type RelationGraph } from '../query/paths.js'
import { readScope, type PlanServices } from './read.js'
import { FIELDS_PATHS, planReadMask } from './embed.js'
import type { EmbedPlan, OrderTerm, ReadScope } from './types.js'
import type { ResourceModel } from '../model/types.js'

export type ExportFormat = 'ndjson' | 'csv'

export const EXPORT_TYPES: Readonly<Record<ExportFormat, string>> = {
  ndjson: 'application/x-ndjson',
  csv: 'text/csv; charset=utf-8',
}

export interface ExportInput {
  readonly format?: unknown
  readonly filter?: unknown
  readonly order_by?: unknown
  readonly fields?: unknown
  readonly show_deleted?: unknown
}

export interface ExportPlan {
  readonly kind: 'export'
  readonly model: ResourceModel
  readonly format: ExportFormat
  readonly select: Selection
  /** The fields the statement reads: `select`, and the key where a to-many's token needs it. */
  readonly fetch: Selection
  readonly scope: ReadScope
  readonly filter: CheckedFilter | undefined
  readonly filterText: string
  readonly order: readonly OrderTerm[]
  /** Relations the `fields` paths embed: CSV columns `customer.name` (to-one only), NDJSON objects. */
  readonly embeds: readonly EmbedPlan[]
}

const ACCEPTED: Readonly<Record<string, ExportFormat>> = { 'text/csv': 'csv', 'application/x-ndjson': 'ndjson', 'application/ndjson': 'ndjson' }

/**
 * `format` when given; else the one of ours (`text/csv`, `application/x-ndjson` or
 * `application/ndjson`) the Accept header prefers, by its `q` (RFC 9110: the first of equal
 * weights, none with `q=0`); else NDJSON.
 */
function formatOf (parameter: unknown, accept: string | undefined): ExportFormat {
  if (parameter !== undefined) {
    const text = textParameter('format', parameter)
    if (text === 'ndjson' || text === 'csv') return text
    return invalidParameter('format', 'format is ndjson or csv.')
  }
  let best: { format: ExportFormat, q: number } | undefined
  for (const range of (accept ?? '').split(',')) {
    const [type = '', ...params] = range.split(';')
    const format = ACCEPTED[type.trim().toLowerCase()]
    if (format === undefined) continue
    const weight = params.map((p) => /^\s*q\s*=\s*([0-9.]+)\s*$/i.exec(p)?.[1]).find((q) => q !== undefined)
    const q = weight === undefined ? 1 : Number(weight)
    if (q > 0 && (best === undefined || q > best.q)) best = { format, q }
  }
  return best?.format ?? 'ndjson'
}

/**
 * The to-many relation a `fields` path goes through, as far as the caller may follow it: a path
 * they may not take is left to the mask, which refuses it as an unknown field.
 */
function toManyIn (name: string, access: AccessPlan, graph: RelationGraph): string | undefined {
  const resolved = resolvePath(name.split('.'), access.query, graph, FIELDS_PATHS)
  if (!resolved.ok) return undefined
  const many = resolved.path.hops.findIndex((hop) => hop.relation.kind === 'many')
  return many < 0 ? undefined : resolved.path.hops.slice(0, many + 1).map((hop) => hop.relation.name).join('.')
}

/** Refuses paths through a to-many in CSV: no column holds many records (NDJSON embeds them). */
function refuseToManyInCsv (value: unknown, access: AccessPlan, accessOf: AccessOf): void {
  if (value === undefined || access.model.relations.size === 0) return
  const graph = callerGraph(accessOf)
  for (const raw of fieldMaskItems(value)) {
    const name = fieldMaskName(raw)
    const many = toManyIn(name, access, graph)
    if (many !== undefined) invalidParameter('fields', `fields: '${name}': ${many} is a to-many relation, which cannot be a CSV column: a column holds one value a record.`)
  }
}

/** Whether an embed exports a field (`customer.etag` alone exports nothing: exports carry no etag). */
function namesAField (embed: EmbedPlan): boolean {
  return embed.select.fields.length > 0 || embed.embeds.some(namesAField)
}

/**
 * A to-many's token names its parent by key (lib/serialize/embed-many.ts), so where the record's
 * own level embeds one, the statement reads the key too, which the line does not carry. Embedded
 * records below read theirs anyway (an embed's `fetch`).
 */
function fetchOf (select: Selection, embeds: readonly EmbedPlan[], services: PlanServices): Selection {
  const { model } = select
  if (!embeds.some((embed) => embed.kind === 'many') || model.key.every((field) => select.fields.includes(field))) return select
  return services.selections.of(model, model.fieldList.filter((field) => select.fields.includes(field) || model.key.includes(field)))
}

export function planExport (input: ExportInput, accept: string | undefined, access: AccessPlan, accessOf: AccessOf, services: PlanServices): ExportPlan {
  const { model } = access
  const format = formatOf(input.format, accept)
  if (format === 'csv') refuseToManyInCsv(input.fields, access, accessOf)
  const mask = planReadMask(access, input.fields, services.selections, accessOf, services.readMasks)
  if (mask.fields.length === 0 && !mask.embeds.some(namesAField)) invalidParameter('fields', 'fields must name at least one field to export.')
  const filterText = textParameter('filter', input.filter)
  const select = services.selections.of(model, mask.fields)
  return {
    kind: 'export',
    model,
    format,
    select,
    fetch: fetchOf(select, mask.embeds, services),
    embeds: mask.embeds,
    scope: readScope(access, parseShowDeleted(model, input.show_deleted), exportRows(access)),
    filter: planFilter(filterText, access, accessOf, services.checks, MAX_FILTER_QUERY),
    filterText,
    order: planOrder(textParameter('order_by', input.order_by), access, accessOf, services.checks),
  }
}
