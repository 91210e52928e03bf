// What every read plan shares: what planners need of the app, the caller's read scope, what a
// page token is bound to, and the get plan. Pure: no I/O.
import type { AccessPlan } from '../access/types.js'
import { readScope } from './scope.js'
import { planReadMask, type ReadMask } from './embed.js'
import type { BoundedCache } from '../cache.js'
import type { Selections } from '../model/selection.js'
import type { PageTokens, RelationPage } from '../query/page-token.js'
import { orderName, type OrderTerm } from '../query/order-by.js'
import { parseShowDeleted } from '../query/params.js'
import type { AccessOf, QueryChecks } from './filter.js'
import type { GetPlan, PermissionPlan, ReadScope } from './types.js'
import type { ResourceModel } from '../model/types.js'

export { readScope }

/** The app's services a planner uses: interned selections, cached checks, the page-token codec. */
export interface PlanServices {
  readonly selections: Selections
  readonly checks: QueryChecks
  readonly pageTokens: PageTokens
  /** `fields` masks that embed, by caller and text (none kept without it). */
  readonly readMasks?: BoundedCache<ReadMask>
}

/** Whether the caller sees only some rows of the table, whatever their filter: a row filter or a tenant. */
export function narrowed (model: ResourceModel, scope: ReadScope): boolean {
  return scope.rows !== undefined || model.tenancy !== undefined
}

/**
 * What a page token is bound to: a token replayed with another resource, filter, order (paths
 * included: `customer.name` is not `name`) or show_deleted is refused. Seek tokens and list
 * tokens share it, so either route takes both.
 */
export function pageTokenBinding (resource: string, filterText: string, order: readonly OrderTerm[], showDeleted: boolean): string {
  return JSON.stringify([resource, filterText, order.map((t) => [orderName(t), t.direction]), showDeleted])
}

/**
 * What the token of a to-many embed's children is bound to: the child resource, the parent
 * (resource, relation, key) and the relation's order. It is never a list's binding, so such a
 * token turns no other list, and another parent's is another binding.
 */
export function relationTokenBinding (resource: string, parent: RelationPage, order: readonly OrderTerm[]): string {
  return JSON.stringify([resource, [parent.resource, parent.relation, parent.key], order.map((t) => [t.field.name, t.direction])])
}

/** Whether deciding permissions needs the whole stored record (a record check reads it). */
export function needsStoredRecord (plan: PermissionPlan | undefined): boolean {
  if (plan === undefined) return false
  return [plan.update, plan.delete].some((access) => access.allowed && access.check !== undefined)
}

export interface GetInput {
  readonly fields?: unknown
  readonly show_deleted?: unknown
}

/**
 * What a read answers with for each record: the `fields` mask, what its query fetches, permissions,
 * and the to-one relations its paths embed (followed with `accessOf`, the caller's other plans).
 */
export function recordsRead (access: AccessPlan, fields: unknown, services: PlanServices, permissions: PermissionPlan | undefined, accessOf?: AccessOf): Pick<GetPlan, 'model' | 'select' | 'fetch' | 'readable' | 'permissions' | 'embeds'> {
  const mask = planReadMask(access, fields, services.selections, accessOf, services.readMasks)
  const select = services.selections.of(access.model, mask.fields)
  return {
    model: access.model,
    select,
    fetch: services.selections.fetch(select, access.readable, needsStoredRecord(permissions)),
    readable: access.readable,
    permissions,
    embeds: mask.embeds,
  }
}

/** A get of one record by its (checked) key parts. */
export function planGet (key: readonly string[], input: GetInput, access: AccessPlan, services: PlanServices, rowPermissions: boolean, accessOf?: AccessOf): GetPlan {
  const read = recordsRead(access, input.fields, services, rowPermissions ? access.permissions.get : undefined, accessOf)
  // Written out, not spread: a plan built by spreading is slower to build and to read (lib/plan/list.ts).
  return {
    kind: 'get',
    model: read.model,
    select: read.select,
    fetch: read.fetch,
    readable: read.readable,
    permissions: read.permissions,
    scope: readScope(access, parseShowDeleted(access.model, input.show_deleted)),
    key,
    embeds: read.embeds,
  }
}
