// The permission plans of a caller's records, made once per access plan. An operation narrowed by
// exactly the read filter is allowed on every row the caller can see at all: the database need
// not decide it row by row.
import { sameFilter } from '../query/filter/equal.js'
import { ALLOWED, type OperationAccess, type PermissionPlan, type RuleContext } from './types.js'
import type { FieldModel, ResourceModel } from '../model/types.js'

/** The operation as seen from rows the caller can already read. */
export function withinRead (operation: OperationAccess, read: OperationAccess): OperationAccess {
  if (!operation.allowed || !read.allowed || !sameFilter(operation.rows, read.rows)) return operation
  return operation.check === undefined ? ALLOWED : { allowed: true, rows: undefined, check: operation.check }
}

export function permissionPlans (operations: Readonly<Record<'read' | 'update' | 'delete', OperationAccess>>, readable: readonly FieldModel[], writable: readonly FieldModel[], context: Omit<RuleContext, 'operation'>): { list: PermissionPlan, get: PermissionPlan } {
  const update = withinRead(operations.update, operations.read)
  const remove = withinRead(operations.delete, operations.read)
  // Written out, not spread from one base: a spread's object kept its last two properties apart.
  return {
    list: { update, delete: remove, readable, context, writable: undefined, forms: undefined },
    get: { update, delete: remove, readable, context, writable, forms: [] },
  }
}

/**
 * Whether the database must decide an operation row by row: a row filter, or soft delete (a
 * soft-deleted record can be neither updated nor deleted, only undeleted). Otherwise it is the
 * same for every row and no column is read.
 */
export function decidedByRows (model: ResourceModel, access: OperationAccess): boolean {
  return access.allowed && (access.rows !== undefined || model.softDelete !== undefined)
}
