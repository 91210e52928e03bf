// Export parameters → ExportPlan, with no I/O: the same checks as a list (the caller's fields,
// filter and order_by against their restricted model, tenant, row filter, soft delete), but no
// page: every matching row, in order, with the selected fields only (no etag, no permissions).
// The rows are those the caller reads that the export rule's own filter allows.
import type { AccessPlan } from '../access/types.js'
import { exportRows } from '../access/row-filter.js'
import type { Selection } from '../model/selection.js'
import type { CheckedFilter } from '../query/filter/checked.js'
import { invalidParameter, parseFieldMask, parseShowDeleted, textParameter } from '../query/params.js'
import { MAX_FILTER_QUERY, planFilter, planOrder, type AccessOf } from './filter.js'
import { readScope, type PlanServices } from './read.js'
import type { OrderTerm, ReadScope } from './types.js'
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
  readonly scope: ReadScope
  readonly filter: CheckedFilter | undefined
  readonly filterText: string
  readonly order: readonly OrderTerm[]
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

export function planExport (input: ExportInput, accept: string | undefined, access: AccessPlan, accessOf: AccessOf, services: PlanServices): ExportPlan {
  const { model } = access
  const fields = parseFieldMask(access.readable, input.fields)
  if (fields.length === 0) invalidParameter('fields', 'fields must name at least one field to export.')
  const filterText = textParameter('filter', input.filter)
  return {
    kind: 'export',
    model,
    format: formatOf(input.format, accept),
    select: services.selections.of(model, fields),
    scope: readScope(access, parseShowDeleted(model, input.show_deleted), exportRows(access)),
    filter: planFilter(filterText, access, accessOf, services.checks, MAX_FILTER_QUERY),
    filterText,
    order: planOrder(textParameter('order_by', input.order_by), access, accessOf, services.checks),
  }
}
