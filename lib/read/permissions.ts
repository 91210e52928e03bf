// `permissions` on records: the row conditions came back as `__can_update` / `__can_delete` from
// the page's own query; record-level checks (functions) run here on the readable record.
// Informational only: every write is checked again.
import type { PermissionPlan } from '../plan/types.js'
import type { OperationAccess } from '../access/types.js'
import { storedRecord, type Row } from '../serialize/record.js'
import { decidedByRows } from '../sql/read.js'
import type { FieldModel, ResourceModel } from '../model/types.js'

/** Whether deciding permissions needs the whole stored record (a record check reads it). */
export function needsWholeRecord (plan: PermissionPlan | undefined): boolean {
  if (plan === undefined) return false
  return [plan.update, plan.delete].some((access) => access.allowed && access.check !== undefined)
}

/** The row conditions' answer: from the query's column, or the same for every row when there is none. */
function byRows (model: ResourceModel, access: OperationAccess, column: unknown): boolean {
  if (!access.allowed) return false
  return decidedByRows(model, access) ? column === true : true
}

async function decide (model: ResourceModel, access: OperationAccess, column: unknown, record: Row, plan: PermissionPlan, operation: 'update' | 'delete'): Promise<boolean> {
  if (!access.allowed || !byRows(model, access, column)) return false
  if (access.check === undefined) return true
  // A check answering with a filter can only be settled against the row as written: count it as allowed here.
  const verdict = await access.check(record, { ...plan.context, operation })
  return verdict !== false
}

// The per-field map has two forms per caller (update allowed or not), made once each.
const fieldMaps = new WeakMap<readonly FieldModel[], { edit: Row, read: Row }>()

function fieldMap (plan: PermissionPlan & { writable: readonly FieldModel[] }, update: boolean): Row {
  let maps = fieldMaps.get(plan.writable)
  if (maps === undefined) {
    const writable = new Set(plan.writable)
    maps = {
      edit: Object.fromEntries(plan.readable.map((f) => [f.name, writable.has(f) ? 'edit' : 'read'])),
      read: Object.fromEntries(plan.readable.map((f) => [f.name, 'read'])),
    }
    fieldMaps.set(plan.writable, maps)
  }
  return { ...(update ? maps.edit : maps.read) }
}

function withFields (plan: PermissionPlan, update: boolean, remove: boolean): Row {
  const permissions: Row = { update, delete: remove }
  if (plan.writable !== undefined) permissions.fields = fieldMap(plan as PermissionPlan & { writable: readonly FieldModel[] }, update)
  return permissions
}

/** Permissions decided by the row conditions alone (no record check): no await per row. */
export function permissionsByRows (model: ResourceModel, row: Row, plan: PermissionPlan): Row {
  return withFields(plan, byRows(model, plan.update, row.__can_update), byRows(model, plan.delete, row.__can_delete))
}

/** Permissions with record checks, which judge the whole stored record. */
export async function permissionsOf (model: ResourceModel, row: Row, plan: PermissionPlan): Promise<Row> {
  const stored = storedRecord(model, row)
  const update = await decide(model, plan.update, row.__can_update, stored, plan, 'update')
  return withFields(plan, update, await decide(model, plan.delete, row.__can_delete, stored, plan, 'delete'))
}
