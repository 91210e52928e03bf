// Where a write's row belongs (docs/access.md "Tenants" and "Staff across tenants").
// - A resource kept per tenant through relations has its tenant from the parent its first relation
//   names: a create must name one, and an update may not clear it, else the row would belong to no
//   tenant. Refused as a reference to no record is (the parent itself, when named, is checked as
//   every reference is: a record the caller can read, so in their tenant).
// - Staff across tenants (config `allTenants`) have no tenant of their own: a create into a tenant
//   column names its tenant as a field of the body (ResourceModel.tenantField).
import type { ColumnValues } from '../plan/types.js'
import type { ResourceModel } from '../model/types.js'
import { invalidRecord } from './validate-body.js'

export function requireTenantParent (model: ResourceModel, values: ColumnValues, operation: 'create' | 'update'): void {
  const { tenancy } = model
  if (tenancy?.kind !== 'through') return
  const relation = model.relations.get(tenancy.hops[0]!.relation)
  if (relation?.kind !== 'one') return
  const { field } = relation
  const value = values.get(field)
  if (operation === 'create' ? value === undefined || value === null : value === null) {
    invalidRecord([{ field: field.name, code: 'not-found', message: `${field.name} names no ${relation.target} record.` }])
  }
}

/** The tenant a staff create names, as text (undefined where the resource has no tenant column field). */
export function namedTenant (model: ResourceModel, values: ColumnValues): string | undefined {
  const value = model.tenantField === undefined ? undefined : values.get(model.tenantField)
  return value === undefined || value === null ? undefined : String(value)
}
