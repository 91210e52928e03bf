// Filter and order_by text → checked values against the caller's query model, or the 400 problem
// with every issue and its span. Checks are kept per app, caller model, relation graph and text
// (QueryChecks), so a repeated filter is parsed once; a path's hops then get the caller's rows of
// each target (lib/plan/graph.ts), which no check holds. Lists, aggregates and seek share these.
import { endOfCodePoints } from '../text.js'
import { problem } from '../problems.js'
import type { BoundedCache } from '../cache.js'
import type { AccessPlan } from '../access/types.js'
import { traverses, type CheckedFilter } from '../query/filter/checked.js'
import { checkFilter, type CheckResult } from '../query/filter/checker.js'
import { parseFilter } from '../query/filter/parser.js'
import { parseOrderBy, type OrderResult, type OrderTerm } from '../query/order-by.js'
import { QuerySyntaxError, type QueryIssue } from '../query/span.js'
import { attachHops, attachScopes, callerGraph, callerGraphKey, type AccessOf } from './graph.js'

export const MAX_FILTER_QUERY = 10_000
export const MAX_FILTER_BODY = 200_000

/** An app's checked filters and orders, by caller model and text. */
export interface QueryChecks {
  readonly filters: BoundedCache<CheckResult>
  readonly orders: BoundedCache<OrderResult>
  /** The relation graph's key (lib/plan/graph.ts) by caller shape and resource. */
  readonly graphs: BoundedCache<string>
}

export function queryProblem (slug: 'invalid-filter' | 'invalid-order-by', parameter: string, issues: readonly QueryIssue[]): never {
  const detail = issues.length === 1 ? issues[0]!.message : `${parameter} has ${issues.length} problems.`
  throw problem(slug, detail, { parameter, errors: issues })
}

export type { AccessOf }

/**
 * A filter's text, checked: undefined for no filter. `maxLength` is 10,000 characters in a query
 * string and 200,000 in a body; longer is `too-long`, with the hint of where longer ones go when a
 * `searchPath` takes them.
 */
export function planFilter (text: string, access: AccessPlan, accessOf: AccessOf, checks: QueryChecks, maxLength: number, searchPath?: string): CheckedFilter | undefined {
  const { query } = access
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
  // The caller's model is part of the key: callers who see other fields get other checks, and
  // where the resource has relations, callers who may follow other relations or name other fields
  // there too. No filter (the common list) resolves no other resource's plan.
  const graph = text === '' ? '' : `${callerGraphKey(access, accessOf, checks.graphs)}\0`
  const checked = checks.filters.getOrCreate(query.cacheKey + graph + text, () => {
    try {
      return checkFilter(parseFilter(text), query, callerGraph(accessOf))
    } catch (err) {
      if (err instanceof QuerySyntaxError) return { ok: false, issues: [err.issue] }
      throw err
    }
  })
  if (!checked.ok) queryProblem('invalid-filter', 'filter', checked.issues)
  const { filter } = checked
  return filter !== undefined && traverses(filter) ? attachScopes(filter, accessOf) : filter
}

/**
 * An order_by text, checked; it always ends with the key, so every row has one place. A path
 * (`customer.name`) is checked against the relations the caller may follow and the target's
 * sortable fields, so the check is kept per graph as a filter's is.
 */
export function planOrder (text: string, access: AccessPlan, accessOf: AccessOf, checks: QueryChecks): readonly OrderTerm[] {
  const { model, query } = access
  const graph = text.includes('.') ? `${callerGraphKey(access, accessOf, checks.graphs)}\0` : ''
  const ordered = checks.orders.getOrCreate(query.cacheKey + graph + text, () => parseOrderBy(text, model, query, callerGraph(accessOf)))
  if (!ordered.ok) queryProblem('invalid-order-by', 'order_by', ordered.issues)
  const { order } = ordered
  return graph === '' ? order : order.map((term) => term.via === undefined ? term : { ...term, via: attachHops(term.via, accessOf) })
}
