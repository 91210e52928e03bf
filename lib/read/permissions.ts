// `permissions` on records: the row conditions came back as `__can_update` / `__can_delete` from
// the page's own query; record-level checks (functions) run here on the record as read.
// Informational only: every write is checked again.
import type { PermissionPlan } from '../plan/types.js'
import type { OperationAccess } from '../access/types.js'
import type { FieldModel } from '../model/types.js'

type Row = Record<string, unknown>

async function decide (access: OperationAccess, byRows: unknown, record: Row, plan: PermissionPlan, operation: 'update' | 'delete'): Promise<boolean> {
  if (!access.allowed || byRows !== true) return false
  if (access.check === undefined) return true
  // A check answering with a filter can only be settled against the row as written: count it as allowed here.
  const verdict = await access.check(record, { ...plan.context, operation })
  return verdict !== false
}

/** Whether deciding permissions needs the whole readable record (a record check reads it). */
export function needsWholeRecord (plan: PermissionPlan | undefined): boolean {
  if (plan === undefined) return false
  return [plan.update, plan.delete].some((access) => access.allowed && access.check !== undefined)
}

/**
 * Adds `permissions` to each row. When record checks ran on the whole readable record, `select`
 * is the caller's `fields` mask, applied afterwards.
 */
export async function attachPermissions (rows: Row[], plan: PermissionPlan | undefined, select?: readonly FieldModel[]): Promise<void> {
  if (plan === undefined) return
  const masked = select === undefined ? [] : plan.readable.filter((f) => !select.includes(f)).map((f) => f.name)
  for (const row of rows) {
    const { __can_update: byUpdate, __can_delete: byDelete } = row
    delete row.__can_update
    delete row.__can_delete
    const update = await decide(plan.update, byUpdate, row, plan, 'update')
    const permissions: Row = { update, delete: await decide(plan.delete, byDelete, row, plan, 'delete') }
    if (plan.writable !== undefined) {
      const writable = new Set(plan.writable)
      permissions.fields = Object.fromEntries(plan.readable.map((f) => [f.name, update && writable.has(f) ? 'edit' : 'read']))
    }
    for (const name of masked) delete row[name]
    row.permissions = permissions
  }
}
