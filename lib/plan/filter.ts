// Filter and order_by text → checked values against the caller's query model, or the 400 problem
// with every issue and its span. Checks are kept per app, caller model and text (QueryChecks), so
// a repeated filter is parsed once. Lists, aggregates and seek share these.
import { endOfCodePoints } from '../text.js'
import { problem } from '../problems.js'
import type { BoundedCache } from '../cache.js'
import type { ResourceModel } from '../model/types.js'
import type { CheckedFilter, QueryModel } from '../query/filter/checked.js'
import { checkFilter, type CheckResult } from '../query/filter/checker.js'
import { parseFilter } from '../query/filter/parser.js'
import { parseOrderBy, type OrderResult, type OrderTerm } from '../query/order-by.js'
import { QuerySyntaxError, type QueryIssue } from '../query/span.js'

export const MAX_FILTER_QUERY = 10_000
export const MAX_FILTER_BODY = 200_000

/** An app's checked filters and orders, by caller model and text. */
export interface QueryChecks {
  readonly filters: BoundedCache<CheckResult>
  readonly orders: BoundedCache<OrderResult>
}

export function queryProblem (slug: 'invalid-filter' | 'invalid-order-by', parameter: string, issues: readonly QueryIssue[]): never {
  const detail = issues.length === 1 ? issues[0]!.message : `${parameter} has ${issues.length} problems.`
  throw problem(slug, detail, { parameter, errors: issues })
}

/**
 * A filter's text, checked: undefined for no filter. `maxLength` is 10,000 characters in a query
 * string and 200,000 in a body; longer is `too-long`, with the hint of where longer ones go when a
 * `searchPath` takes them.
 */
export function planFilter (text: string, query: QueryModel, checks: QueryChecks, maxLength: number, searchPath?: string): CheckedFilter | undefined {
  // Characters, not UTF-16 units: only a text longer in units than the limit can be over it.
  const end = text.length > maxLength ? endOfCodePoints(text, maxLength) : text.length
  if (end < text.length) {
    queryProblem('invalid-filter', 'filter', [{
      code: 'too-long',
      message: `The filter is longer than ${maxLength} characters.`,
      hint: searchPath === undefined ? undefined : `POST ${searchPath} takes filters up to ${MAX_FILTER_BODY} characters.`,
      span: { start: end, end: text.length },
    }])
  }
  // The caller's model is part of the key: callers who see other fields get other checks.
  const checked = checks.filters.getOrCreate(query.cacheKey + text, () => {
    try {
      return checkFilter(parseFilter(text), query)
    } catch (err) {
      if (err instanceof QuerySyntaxError) return { ok: false, issues: [err.issue] }
      throw err
    }
  })
  if (!checked.ok) queryProblem('invalid-filter', 'filter', checked.issues)
  return checked.filter
}

/** An order_by text, checked; it always ends with the key, so every row has one place. */
export function planOrder (text: string, model: ResourceModel, query: QueryModel, checks: QueryChecks): readonly OrderTerm[] {
  const ordered = checks.orders.getOrCreate(query.cacheKey + text, () => parseOrderBy(text, model, query))
  if (!ordered.ok) queryProblem('invalid-order-by', 'order_by', ordered.issues)
  return ordered.order
}
