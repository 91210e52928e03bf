// List parameters (query string or :search body) → ListPlan, with no I/O: limits, the cached
// filter and order_by checks, the field mask, and the page token bound to the list's shape. A seek
// (plan/seek.ts) is planned the same way, with a position instead of a count.
import type { AccessPlan } from '../access/types.js'
import { parseCount, parsePageSize, parseShowDeleted, textParameter } from '../query/params.js'
import { planFilter, planOrder, type AccessOf } from './filter.js'
import { traverses } from '../query/filter/checked.js'
import { narrowed, pageTokenBinding, readScope, recordsRead, type PlanServices } from './read.js'
import { childrenPage } from './relation-page.js'
import { cursorOf } from '../query/page-token.js'
import type { ListPlan } from './types.js'

export { MAX_FILTER_BODY, MAX_FILTER_QUERY } from './filter.js'

/** What a list and a seek both take. */
export interface PageInput {
  readonly filter?: unknown
  readonly order_by?: unknown
  readonly page_size?: unknown
  readonly page_token?: unknown
  readonly fields?: unknown
  readonly show_deleted?: unknown
}

export interface ListInput extends PageInput {
  readonly count?: unknown
}

export interface ListContext {
  readonly access: AccessPlan
  /** The caller's plan of any resource (`ctx.access`): filters and `fields` paths follow relations with it. */
  readonly accessOf: AccessOf
  readonly services: PlanServices
  /** Whether records carry `permissions` (config `rowPermissions`). */
  readonly rowPermissions: boolean
  /** 10,000 characters in a query string, 200,000 in a :search body. */
  readonly maxFilterLength: number
  /** Where a filter too long for the query string fits: the list's `:search` path, if it has one. */
  readonly searchPath?: string | undefined
}

export function planList (input: ListInput, context: ListContext): ListPlan {
  return planPage(input, context, { kind: 'list', position: 0, count: parseCount(input.count) })
}

/** A page of records: what lists and seeks plan alike, given what is theirs alone. */
export function planPage (input: PageInput, context: ListContext, page: Pick<ListPlan, 'kind' | 'position' | 'count'>): ListPlan {
  const { access, services } = context
  const { model } = access
  const token = textParameter('page_token', input.page_token)
  const opened = token === '' ? undefined : services.pageTokens.open(token)
  // A to-many embed's token: the following children of its parent (./relation-page.ts).
  const children = opened?.parent === undefined ? undefined : childrenPage(opened.parent, input, access, context.accessOf)
  const filterText = children === undefined ? textParameter('filter', input.filter) : ''
  const filter = children?.filter ?? planFilter(filterText, access, context.accessOf, services.checks, context.maxFilterLength, context.searchPath)
  const order = children?.order ?? planOrder(textParameter('order_by', input.order_by), access, context.accessOf, services.checks)
  const showDeleted = children === undefined && parseShowDeleted(model, input.show_deleted)
  const tokenBinding = children?.binding ?? pageTokenBinding(model.name, filterText, order, showDeleted)
  const scope = access.tokenScope
  const read = recordsRead(access, input.fields, services, context.rowPermissions ? access.permissions.list : undefined, context.accessOf)
  const rows = readScope(access, showDeleted)
  const own = narrowed(read.model, rows)
  // Written out, not spread: a plan built by spreading was 60 µs slower a list page (dictionary
  // properties in every reader), measured with `npm run bench -- --only "list page"`.
  return {
    kind: page.kind,
    position: page.position,
    count: page.count,
    model: read.model,
    select: read.select,
    fetch: read.fetch,
    readable: read.readable,
    permissions: read.permissions,
    scope: rows,
    filter,
    filterText,
    order,
    cursor: opened === undefined ? undefined : cursorOf(opened, tokenBinding, scope),
    pageSize: parsePageSize(input.page_size),
    tokenBinding,
    tokenScope: scope,
    // Callers who see every row share a list's estimate and samples; one a row filter or tenant narrows has their own,
    // and so has one whose filter follows a relation: it counts the related rows they may read
    // (and so does the statement whose side lib/read/sides.ts remembers under this key).
    estimateKey: own || traverses(filter) ? `${tokenBinding}\0${access.callerKey}` : tokenBinding,
    narrowedTo: own ? access.callerKey : '',
    embeds: read.embeds,
    parent: opened?.parent,
  }
}
