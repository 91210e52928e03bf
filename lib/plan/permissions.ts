// The permission plan of a caller's records. An operation narrowed by exactly the read filter is
// allowed on every row the caller can see at all: the database need not decide it row by row.
// Built once per access plan (access plans are cached per caller shape).
import { sameFilter } from '../query/filter/equal.js'
import type { AccessPlan, OperationAccess } from '../access/types.js'
import type { PermissionPlan } from './types.js'

/** The operation as seen from rows the caller can already read. */
function withinRead (operation: OperationAccess, read: OperationAccess): OperationAccess {
  if (!operation.allowed || !read.allowed || !sameFilter(operation.rows, read.rows)) return operation
  return { allowed: true, rows: undefined, check: operation.check }
}

const cache = new WeakMap<AccessPlan, { list: PermissionPlan, get: PermissionPlan }>()

export function permissionPlans (access: AccessPlan): { list: PermissionPlan, get: PermissionPlan } {
  let plans = cache.get(access)
  if (plans === undefined) {
    const read = access.operations.read
    const base = {
      update: withinRead(access.operations.update, read),
      delete: withinRead(access.operations.delete, read),
      readable: access.readable,
      context: access.context,
    }
    plans = { list: { ...base, writable: undefined }, get: { ...base, writable: access.writable } }
    cache.set(access, plans)
  }
  return plans
}
