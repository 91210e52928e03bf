// `permissions` on records: the row conditions came back as `__can_update` / `__can_delete` from
// the page's own query; record-level checks (functions) run here on the readable record.
// Informational only: every write is checked again.
import type { OperationAccess, PermissionPlan } from '../access/types.js'
import { decidedByRows } from '../access/permissions.js'
import { needsStoredRecord } from '../plan/read.js'
import { storedRecord, type Row } from '../serialize/record.js'
import type { ResourceModel } from '../model/types.js'

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

function permissionsObject (plan: PermissionPlan, update: boolean, remove: boolean): Row {
  const permissions: Row = { update, delete: remove }
  if (plan.writable !== undefined) {
    const writable = new Set(plan.writable)
    permissions.fields = Object.fromEntries(plan.readable.map((f) => [f.name, update && writable.has(f) ? 'edit' : 'read']))
  }
  return permissions
}

/** A record's `permissions`: the object (pages build their records as objects) and its JSON (single records). */
export type PermissionsForm = NonNullable<NonNullable<PermissionPlan['forms']>[number]>

function formOf (object: Row): PermissionsForm {
  return { object, json: JSON.stringify(object) }
}

// `permissions` have four forms (update and delete each allowed or not). A list item's are
// `{ update, delete }` alone, the same for every caller. A get's name the caller's fields, and
// plans are kept per caller: each form is made, and written as JSON, once, into the plan.
// Frozen: every caller's pages hold them.
const LIST_FORMS: readonly PermissionsForm[] = [[false, false], [false, true], [true, false], [true, true]]
  .map(([update, remove]) => Object.freeze(formOf(Object.freeze({ update, delete: remove }))))

function permissionsForm (plan: PermissionPlan, update: boolean, remove: boolean): PermissionsForm {
  const form = (update ? 2 : 0) + (remove ? 1 : 0)
  if (plan.forms === undefined) return LIST_FORMS[form]!
  return plan.forms[form] ??= formOf(permissionsObject(plan, update, remove))
}

/** A row's permissions; a promise only where a record check (a function) runs. */
export type RowPermissions = (row: Row) => PermissionsForm | Promise<PermissionsForm>

/**
 * How a page's rows get their `permissions`, worked out once per page: the same form for every
 * row when no row condition decides them, the query's columns when one does, and the record
 * checks, awaited, when the rule has them (then the query fetched whole stored records).
 */
export function rowPermissions (model: ResourceModel, plan: PermissionPlan): RowPermissions {
  if (needsStoredRecord(plan)) {
    return async (row) => {
      const stored = storedRecord(model, row)
      const update = await decide(model, plan.update, row.__can_update, stored, plan, 'update')
      return permissionsForm(plan, update, await decide(model, plan.delete, row.__can_delete, stored, plan, 'delete'))
    }
  }
  if (!decidedByRows(model, plan.update) && !decidedByRows(model, plan.delete)) {
    const same = permissionsForm(plan, plan.update.allowed, plan.delete.allowed)
    return () => same
  }
  return (row) => permissionsForm(plan, byRows(model, plan.update, row.__can_update), byRows(model, plan.delete, row.__can_delete))
}
