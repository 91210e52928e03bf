// AIP-132 order_by: `field [asc|desc], ...` over the caller's sortable fields, a resource's own or
// a related record's through to-one relations (`customer.name desc`, ./path.ts). The key always
// ends the order as a tiebreaker, so every row has exactly one place and keyset pages are exact.
import { span, type QueryIssue } from './span.js'
import { UNATTACHED, type QueryModel } from './filter/checked.js'
import type { FieldModel, ResourceModel } from '../model/types.js'
import { MAX_HOPS, NO_RELATIONS, pathName, resolvePath, type PathFailure, type PathPurpose, type RelationGraph, type ScopedHop } from './paths.js'

export interface OrderTerm {
  readonly field: FieldModel
  readonly direction: 'ASC' | 'DESC'
  /**
   * The to-one relations followed to `field`, a field of the record they lead to (`customer.name`);
   * absent for a field of the resource's own. Such a value is NULL where the reference is null or
   * names a row the caller may not read there. Parsed, each hop's scope is unattached; the plan
   * gives it the caller's rows there (lib/plan/graph.ts).
   */
  readonly via?: readonly ScopedHop[] | undefined
}

/** The term's field as the caller named it: `title`, `customer.name`. */
export function orderName (term: OrderTerm): string {
  return pathName(term.field, term.via)
}

/** The field of the resource's own the term orders by, or undefined for a related record's. */
export function ownField (term: OrderTerm): FieldModel | undefined {
  return term.via === undefined || term.via.length === 0 ? term.field : undefined
}

/** Whether the term's value may be NULL: a nullable field, or any related one. */
export function nullable (term: OrderTerm): boolean {
  return ownField(term) === undefined || !term.field.notNull
}

/**
 * Every order_by issue says how to fix it (docs/queries.md, "Ordering"): the fields named are
 * sortable ones the caller reads.
 */
type OrderIssue = QueryIssue & { readonly hint: string }

export type OrderResult = { readonly ok: true, readonly order: readonly OrderTerm[] } | { readonly ok: false, readonly issues: readonly OrderIssue[] }

/** order_by's paths: through to-one relations to a field the caller may sort by. */
export const ORDER_PATHS: PathPurpose = { fields: (query: QueryModel): ReadonlyMap<string, FieldModel> => query.sortable, toMany: false, endOnRelation: false, keys: false }

/** The issue of a path that is no field the caller may order by; an unknown one reads as today's unknown field. */
function pathIssue (name: string, failure: PathFailure, at: QueryIssue['span']): OrderIssue {
  switch (failure.reason) {
    case 'unknown':
      return {
        code: 'unknown-field',
        message: `There is no field '${name}' to order by.`,
        hint: failure.suggestion !== undefined ? `Did you mean '${failure.suggestion}'?` : `Fields you can order by: ${failure.fields.join(', ') || 'none'}.`,
        span: at,
      }
    case 'relation':
      return { code: 'invalid-path', message: `'${failure.written}' is a relation: order by one of its fields.`, hint: `Name a field of it: ${failure.written}.${failure.example ?? 'field'}.`, span: at }
    case 'to-many':
      return { code: 'invalid-path', message: `'${failure.written}' is a to-many relation: order_by follows to-one relations only.`, hint: 'Order by a field of the record or of a to-one relation (customer.name); filter on the to-many one instead.', span: at }
    case 'too-deep':
      return { code: 'invalid-path', message: `A path in order_by follows at most ${MAX_HOPS} relations.`, hint: 'Order by a field at most two relations away: customer.region.name.', span: at }
  }
}

/** `graph`: the relations a path may follow from each resource (lib/query/paths.ts); none by default. */
export function parseOrderBy (text: string, model: ResourceModel, query: QueryModel, graph: RelationGraph = NO_RELATIONS): OrderResult {
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
    const resolved = resolvePath(name![0].split('.'), query, graph, ORDER_PATHS)
    if (!resolved.ok) {
      issues.push(pathIssue(name![0], resolved.failure, nameSpan))
      continue
    }
    const field = resolved.path.field!
    const via = resolved.path.hops.map((hop) => ({ ...hop, scope: UNATTACHED }))
    const written = pathName(field, via)
    const dir = direction?.[0].toLowerCase()
    if (dir !== undefined && dir !== 'asc' && dir !== 'desc') {
      const at = pieceStart + direction!.index!
      issues.push({ code: 'syntax', message: 'A direction is asc or desc.', hint: `Write '${written} asc' or '${written} desc' (asc when left out).`, span: span(at, at + direction![0].length) })
      continue
    }
    if (seen.has(written)) {
      issues.push({ code: 'duplicate-field', message: `'${written}' is already in order_by.`, hint: `Name each field once: remove this term or the earlier '${written}'.`, span: nameSpan })
      continue
    }
    seen.add(written)
    const ordered = dir === 'desc' ? 'DESC' : 'ASC'
    order.push(via.length === 0 ? { field, direction: ordered } : { field, direction: ordered, via })
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
