// Filter and order_by text → checked values against the caller's query model, or the 400 problem
// with every issue and its span. Checks are kept per app, caller model and text (QueryChecks), so
// a repeated filter is parsed once. Lists, aggregates and seek share these.
import { endOfCodePoints } from '../text.js'
import { problem } from '../problems.js'
import type { BoundedCache } from '../cache.js'
import type { AccessPlan } from '../access/types.js'
import { followable } from '../access/relations.js'
import { readRows } from '../access/row-filter.js'
import type { CheckedFilter, FilterRelation, RelationsOf } from '../query/filter/checked.js'
import { checkFilter, MAX_HOPS, type CheckResult } from '../query/filter/checker.js'
import { filterKey } from '../query/filter/equal.js'
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

/** The caller's plan of any resource (RouteInput's `ctx.access`): a filter follows relations with it. */
export type AccessOf = (resource: string) => AccessPlan

/**
 * The relations the caller may follow from each resource (lib/access/relations.ts), each with the
 * target's query model and the rows of it the caller may read (read rule and tenant; live rows).
 */
export function relationsFor (accessOf: AccessOf): RelationsOf {
  const found = new Map<string, ReadonlyMap<string, FilterRelation>>()
  return (resource) => {
    let relations = found.get(resource)
    if (relations === undefined) {
      relations = new Map(followable(accessOf(resource), accessOf).map((relation) => {
        const target = accessOf(relation.target)
        // readScope's tenant and rows, without show_deleted: the related side is always live rows.
        return [relation.name, { relation, target: target.model, query: target.query, scope: { tenant: target.context.tenant, rows: readRows(target) } }]
      }))
      found.set(resource, relations)
    }
    return relations
  }
}

/**
 * What a check of a filter on `resource` depends on beyond its own query model: which relations
 * the caller may follow and, of each target up to the depth a filter reaches, what they may filter
 * there and which rows they read (the SQL embeds those rows' filter and tenant, values and all).
 * Two callers whose related sides differ never share a check.
 */
function relationsKey (resource: string, relationsOf: RelationsOf, hopsLeft: number): string {
  return [...relationsOf(resource)].map(([name, { target, query, scope }]) => {
    if (hopsLeft === 0) return name
    const tenant = target.tenant === undefined ? '' : JSON.stringify(scope.tenant ?? null)
    const rows = scope.rows === undefined ? '' : filterKey(scope.rows)
    return `${name}(${query.cacheKey}\0${tenant}\0${rows}\0${relationsKey(target.name, relationsOf, hopsLeft - 1)})`
  }).join(',')
}

/** The plans a relations key was made of, by resource, and the key: kept with the caller's plan of the resource. */
interface KnownKey { readonly plans: ReadonlyMap<string, AccessPlan>, readonly key: string }
const knownKeys = new WeakMap<AccessPlan, KnownKey>()

/**
 * relationsKey for the caller, made again only when a plan it was made of is no longer the one
 * `accessOf` gives: the key is a function of those plans alone, and making it reads a few of them
 * and writes their row filters out: 6.9 µs a cached check on the relations fixture, 1.9 µs so).
 */
function relatedKey (access: AccessPlan, accessOf: AccessOf): string {
  const known = knownKeys.get(access)
  if (known !== undefined && [...known.plans].every(([resource, plan]) => accessOf(resource) === plan)) return known.key
  const plans = new Map<string, AccessPlan>()
  const recorded: AccessOf = (resource) => {
    const plan = accessOf(resource)
    plans.set(resource, plan)
    return plan
  }
  const key = relationsKey(access.resource, relationsFor(recorded), MAX_HOPS)
  knownKeys.set(access, { plans, key })
  return key
}

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
  // where the resource has relations, callers who see other related fields or rows too.
  // No filter (the common list) resolves no other resource's plan.
  const related = access.model.relations.size === 0 || text === '' ? '' : `${relatedKey(access, accessOf)}\0`
  const checked = checks.filters.getOrCreate(query.cacheKey + related + text, () => {
    try {
      return checkFilter(parseFilter(text), query, relationsFor(accessOf))
    } catch (err) {
      if (err instanceof QuerySyntaxError) return { ok: false, issues: [err.issue] }
      throw err
    }
  })
  if (!checked.ok) queryProblem('invalid-filter', 'filter', checked.issues)
  return checked.filter
}

/**
 * An order_by text, checked; it always ends with the key, so every row has one place. A path
 * (`customer.name`) is checked against the relations the caller may follow and the target's
 * sortable fields, so the check is kept per related side as a filter's is.
 */
export function planOrder (text: string, access: AccessPlan, accessOf: AccessOf, checks: QueryChecks): readonly OrderTerm[] {
  const { model, query } = access
  const related = model.relations.size === 0 || !text.includes('.') ? '' : `${relatedKey(access, accessOf)}\0`
  const ordered = checks.orders.getOrCreate(query.cacheKey + related + text, () => parseOrderBy(text, model, query, relationsFor(accessOf)))
  if (!ordered.ok) queryProblem('invalid-order-by', 'order_by', ordered.issues)
  return ordered.order
}
