// `:seek` parameters → a ListPlan of kind 'seek': the page whose first row is at `position` of the
// caller's filtered, ordered rows, or the page a seek's own token names. Everything else (filter,
// order, field mask, show_deleted, page size, the token's binding) is planned as a list's.
import { invalidParameter } from '../query/params.js'
import { planPage, type ListContext, type PageInput } from './list.js'
import type { ListPlan } from './types.js'

export interface SeekInput extends PageInput {
  readonly position?: unknown
}

/**
 * A 0-based row position: a whole number, given once, up to 2^53 - 1 (the document's maximum:
 * more rows than any table holds, and the most a JSON number says exactly).
 */
function parsePosition (value: unknown): number {
  if (Array.isArray(value)) return invalidParameter('position', 'position must be given once.')
  if (typeof value !== 'string' || !/^[0-9]+$/.test(value) || Number(value) > Number.MAX_SAFE_INTEGER) {
    return invalidParameter('position', `position must be a whole number from 0 to ${Number.MAX_SAFE_INTEGER}: the 0-based row the page starts at.`)
  }
  return Number(value)
}

export function planSeek (input: SeekInput, context: ListContext): ListPlan {
  const hasToken = input.page_token !== undefined && input.page_token !== ''
  if (hasToken && input.position !== undefined) {
    invalidParameter('position', 'Send position or page_token, not both: a page token already names where its page starts.')
  }
  if (!hasToken && input.position === undefined) {
    invalidParameter('position', 'position is required: the 0-based row the page starts at (or page_token, to turn a page).')
  }
  return planPage(input, context, { kind: 'seek', position: hasToken ? 0 : parsePosition(input.position), count: false })
}
