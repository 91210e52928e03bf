// A tenant-scoped resource needs a caller with a tenant: one check for reads and writes alike.
import { problem } from '../problems.js'
import type { ResourceModel } from '../model/types.js'

export function requireTenant (model: ResourceModel, tenant: string | undefined): void {
  if (model.tenant !== undefined && tenant === undefined) {
    throw problem('tenant-required', `${model.name} is kept per tenant, and this caller has no tenant.`)
  }
}
