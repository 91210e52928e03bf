// AIP-132 order_by: `field [asc|desc], ...` over the caller's sortable fields. The key always ends
// the order as a tiebreaker, so every row has exactly one place and keyset pages are exact.
import { nearest } from '../text.js'
import { span, type QueryIssue } from './span.js'
import type { QueryModel } from './filter/checked.js'
import type { FieldModel, ResourceModel } from '../model/types.js'

export interface OrderTerm {
  readonly field: FieldModel
  readonly direction: 'ASC' | 'DESC'
}

/**
 * Every order_by issue says how to fix it (docs/queries.md, "Ordering"): the fields named are
 * sortable ones the caller reads.
 */
type OrderIssue = QueryIssue & { readonly hint: string }

export type OrderResult = { readonly ok: true, readonly order: readonly OrderTerm[] } | { readonly ok: false, readonly issues: readonly OrderIssue[] }

export function parseOrderBy (text: string, model: ResourceModel, query: QueryModel): OrderResult {
  const issues: OrderIssue[] = []
  const order: OrderTerm[] = []
  const seen = new Set<string>()
  let offset = 0
  for (const piece of text.split(',')) {
    // Word indexes count from the piece's own start, leading spaces included.
    const pieceStart = offset
    const start = offset + (piece.length - piece.trimStart().length)
    offset += piece.length + 1
    const words = [...piece.matchAll(/\S+/g)]
    if (words.length === 0) {
      if (text.trim() !== '') issues.push({ code: 'syntax', message: 'An empty term in order_by.', hint: 'Separate terms with one comma: a desc, b.', span: span(start, start) })
      continue
    }
    const [name, direction, extra] = words
    const nameSpan = span(start, start + name![0].length)
    if (extra !== undefined) {
      const at = pieceStart + extra.index!
      issues.push({ code: 'syntax', message: 'A term of order_by is a field and an optional direction.', hint: 'Separate terms with commas: a desc, b.', span: span(at, at + extra[0].length) })
      continue
    }
    const field = query.sortable.get(name![0])
    if (field === undefined) {
      const suggestion = nearest(name![0], query.sortable.keys())
      issues.push({
        code: 'unknown-field',
        message: `There is no field '${name![0]}' to order by.`,
        hint: suggestion !== undefined ? `Did you mean '${suggestion}'?` : `Fields you can order by: ${[...query.sortable.keys()].join(', ') || 'none'}.`,
        span: nameSpan,
      })
      continue
    }
    const dir = direction?.[0].toLowerCase()
    if (dir !== undefined && dir !== 'asc' && dir !== 'desc') {
      const at = pieceStart + direction!.index!
      issues.push({ code: 'syntax', message: 'A direction is asc or desc.', hint: `Write '${field.name} asc' or '${field.name} desc' (asc when left out).`, span: span(at, at + direction![0].length) })
      continue
    }
    if (seen.has(field.name)) {
      issues.push({ code: 'duplicate-field', message: `'${field.name}' is already in order_by.`, hint: `Name each field once: remove this term or the earlier '${field.name}'.`, span: nameSpan })
      continue
    }
    seen.add(field.name)
    order.push({ field, direction: dir === 'desc' ? 'DESC' : 'ASC' })
  }
  if (issues.length > 0) return { ok: false, issues }
  // The key follows the last term's direction: `placed_at desc` ends `id desc`, which the common
  // (placed_at DESC, id DESC) index serves without a sort, and keyset pages stay one row comparison.
  const direction = order.at(-1)?.direction ?? 'ASC'
  for (const keyField of model.key) {
    if (!seen.has(keyField.name)) order.push({ field: keyField, direction })
  }
  return { ok: true, order }
}
