// Checks every read and write route makes first, the same way for both.
import { NO_ROUTE_DETAIL, problem } from '../problems.js'
import type { ResourceModel } from '../model/types.js'
import { fitsTenantColumn } from '../model/tenancy.js'
import type { AccessPlan, Operation, OperationAccess } from './types.js'

/** The operation as the caller may do it; a denied operation is 403 access-denied. */
export function requireOperation (access: AccessPlan, model: ResourceModel, operation: Operation): OperationAccess & { allowed: true } {
  const allowed = access.operations[operation]
  if (!allowed.allowed) throw problem('access-denied', `You may not ${operation} ${model.name} records.`)
  return allowed
}

/**
 * A tenant-scoped resource needs a caller with a tenant; a create into a tenant column, one that
 * can be a value of it (reads by a tenant that cannot be one simply match nothing).
 */
export function requireTenant (model: ResourceModel, tenant: string | undefined, creates = false, everyTenant = false): void {
  const { tenancy } = model
  if (tenancy === undefined || everyTenant) return
  if (tenant === undefined) throw problem('tenant-required', `${model.name} is kept per tenant, and this caller has no tenant.`)
  if (creates && tenancy.kind === 'column' && !fitsTenantColumn(tenancy, tenant)) {
    throw problem('tenant-required', `${model.name} is kept per tenant in a column of type ${tenancy.columnType ?? 'unknown'}, and this caller's tenant is not a value of it.`)
  }
}

/** A resource the caller can do nothing with does not exist for them: the unknown-route 404. */
export function requireVisible (access: AccessPlan): AccessPlan {
  if (!access.visible) throw problem('not-found', NO_ROUTE_DETAIL)
  return access
}

/**
 * The one gate of every route, reads and writes alike, in this order: the resource visible (else
 * the unknown-route 404), each operation allowed (403 access-denied; an export must be a read
 * too), a tenant when the resource is kept per tenant (403 tenant-required; staff across tenants
 * need none). The last operation
 * as the caller may do it.
 */
export function admit (access: AccessPlan, model: ResourceModel, operations: Operation | readonly Operation[], tenant: string | undefined): OperationAccess & { allowed: true } {
  requireVisible(access)
  let allowed: OperationAccess & { allowed: true } | undefined
  const asked = typeof operations === 'string' ? [operations] : operations
  for (const operation of asked) allowed = requireOperation(access, model, operation)
  requireTenant(model, tenant, asked.includes('create'), access.context.allTenants === true)
  return allowed!
}
