// A resource kept per tenant through relations (docs/access.md "Tenants") has its tenant from the
// parent its first relation names: a create must name one, and an update may not clear it, else
// the row would belong to no tenant. Refused as a reference to no record is (the parent itself,
// when named, is checked as every reference is: a record the caller can read, so in their tenant).
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
