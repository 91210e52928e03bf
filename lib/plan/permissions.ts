// The permission plan of a caller's records. An operation narrowed by exactly the read filter is
// allowed on every row the caller can see at all: the database need not decide it row by row.
// Built once per access plan (access plans are cached per caller shape).
import { compile } from '../sql/sql.js'
import { compileFilter } from '../sql/filter.js'
import type { AccessPlan, OperationAccess } from '../access/types.js'
import type { ResourceModel } from '../model/types.js'
import type { CheckedFilter } from '../query/filter/checked.js'
import type { PermissionPlan } from './types.js'

function sameRows (model: ResourceModel, a: CheckedFilter | undefined, b: CheckedFilter | undefined): boolean {
  if (a === undefined || b === undefined) return a === b
  const x = compile(compileFilter(model, a))
  const y = compile(compileFilter(model, b))
  return x.text === y.text && JSON.stringify(x.values) === JSON.stringify(y.values)
}

/** The operation as seen from rows the caller can already read. */
function withinRead (model: ResourceModel, operation: OperationAccess, read: OperationAccess): OperationAccess {
  if (!operation.allowed || !read.allowed || !sameRows(model, operation.rows, read.rows)) return operation
  return { allowed: true, rows: undefined, check: operation.check }
}

const cache = new WeakMap<AccessPlan, { list: PermissionPlan, get: PermissionPlan }>()

export function permissionPlans (model: ResourceModel, access: AccessPlan): { list: PermissionPlan, get: PermissionPlan } {
  let plans = cache.get(access)
  if (plans === undefined) {
    const read = access.operations.read
    const base = {
      update: withinRead(model, access.operations.update, read),
      delete: withinRead(model, access.operations.delete, read),
      readable: access.readable,
      context: access.context,
    }
    plans = { list: { ...base, writable: undefined }, get: { ...base, writable: access.writable } }
    cache.set(access, plans)
  }
  return plans
}
