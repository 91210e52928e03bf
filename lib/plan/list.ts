// List parameters (query string or :search body) → ListPlan, with no I/O: limits, the cached
// filter and order_by checks, the field mask, and the page token bound to the list's shape.
import { problem } from '../problems.js'
import type { ResourceModel } from '../model/types.js'
import type { QueryModel } from '../query/filter/checked.js'
import type { AccessPlan } from '../access/types.js'
import { checkFilter, type CheckResult } from '../query/filter/checker.js'
import { parseFilter } from '../query/filter/parser.js'
import { parseOrderBy, type OrderResult } from '../query/order-by.js'
import { QuerySyntaxError, type QueryIssue } from '../query/span.js'
import { parseFieldMask, parsePageSize, parseShowDeleted } from '../query/params.js'
import type { PageTokens } from '../query/page-token.js'
import type { BoundedCache } from '../query/cache.js'
import type { ListPlan } from './types.js'
import { permissionPlans } from './permissions.js'
import { readRows } from '../access/row-filter.js'

export const MAX_FILTER_QUERY = 10_000
export const MAX_FILTER_BODY = 200_000

export interface ListInput {
  readonly filter?: unknown
  readonly order_by?: unknown
  readonly page_size?: unknown
  readonly page_token?: unknown
  readonly fields?: unknown
  readonly show_deleted?: unknown
  readonly count?: unknown
}

export interface ListContext {
  readonly model: ResourceModel
  readonly access: AccessPlan
  /** The caller's restricted model: what they may filter, sort and search. */
  readonly query: QueryModel
  /** Whether records carry `permissions` (config `rowPermissions`). */
  readonly rowPermissions: boolean
  readonly tokens: PageTokens
  readonly filters: BoundedCache<CheckResult>
  readonly orders: BoundedCache<OrderResult>
  /** 10,000 characters in a query string, 200,000 in a :search body. */
  readonly maxFilterLength: number
}

function text (parameter: string, value: unknown): string {
  if (value === undefined) return ''
  if (typeof value === 'string') return value
  throw problem('invalid-parameter', `${parameter} must be text.`, { errors: [{ parameter, message: `${parameter} must be text.` }] })
}

function parseCount (value: unknown): boolean {
  if (value === undefined) return false
  if (value === 'exact') return true
  throw problem('invalid-parameter', 'count takes one value: exact.', { errors: [{ parameter: 'count', message: 'count takes one value: exact.' }] })
}

function queryProblem (slug: 'invalid-filter' | 'invalid-order-by', parameter: string, issues: readonly QueryIssue[]): never {
  const detail = issues.length === 1 ? issues[0]!.message : `${parameter} has ${issues.length} problems.`
  throw problem(slug, detail, { parameter, errors: issues })
}

export function planList (input: ListInput, context: ListContext): ListPlan {
  const { model, access, query } = context
  const filterText = text('filter', input.filter)
  if (filterText.length > context.maxFilterLength) {
    queryProblem('invalid-filter', 'filter', [{ code: 'too-long', message: `The filter is longer than ${context.maxFilterLength} characters.`, hint: context.maxFilterLength === MAX_FILTER_QUERY ? `POST /${model.name}:search takes filters up to ${MAX_FILTER_BODY} characters.` : undefined, span: { start: context.maxFilterLength, end: filterText.length } }])
  }
  const orderText = text('order_by', input.order_by)
  // The caller's model is part of the key: callers who see other fields get other checks.
  const scopeKey = query.cacheKey
  const checked = context.filters.getOrCreate(scopeKey + filterText, () => {
    try {
      return checkFilter(parseFilter(filterText), query)
    } catch (err) {
      if (err instanceof QuerySyntaxError) return { ok: false, issues: [err.issue] }
      throw err
    }
  })
  if (!checked.ok) queryProblem('invalid-filter', 'filter', checked.issues)
  const ordered = context.orders.getOrCreate(scopeKey + orderText, () => parseOrderBy(orderText, model, query))
  if (!ordered.ok) queryProblem('invalid-order-by', 'order_by', ordered.issues)

  const showDeleted = parseShowDeleted(model, input.show_deleted)
  const shape = JSON.stringify([model.name, filterText, ordered.order.map((t) => [t.field.name, t.direction]), showDeleted])
  const token = text('page_token', input.page_token)
  return {
    kind: 'list',
    model,
    readable: access.readable,
    select: parseFieldMask(access.readable, input.fields),
    scope: { tenant: access.context.tenant, rows: readRows(access), showDeleted },
    filter: checked.filter,
    filterText,
    order: ordered.order,
    after: token === '' ? undefined : context.tokens.decode(shape, token),
    pageSize: parsePageSize(input.page_size),
    count: parseCount(input.count),
    shape,
    estimateKey: `${shape}\0${access.callerKey}`,
    permissions: context.rowPermissions ? permissionPlans(access).list : undefined,
  }
}
