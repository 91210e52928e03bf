// The rows of a resource a caller may see, as every read plan states them (a page, a get, an
// aggregate, an export, and each embedded relation's target).
import type { AccessPlan } from '../access/types.js'
import { readRows } from '../access/row-filter.js'
import { problem } from '../problems.js'
import type { ReadScope } from './types.js'

/**
 * Rows the caller may see: their tenant, the read rule's row filter, and soft-deleted rows or not
 * (only where the `showDeleted` rule lets them: else 403).
 */
export function readScope (access: AccessPlan, showDeleted: boolean, rows = readRows(access)): ReadScope {
  if (showDeleted && !access.showDeleted) throw problem('access-denied', `You may not read deleted ${access.resource} records (show_deleted=true).`)
  return { tenant: access.context.tenant, everyTenant: access.context.allTenants, rows, showDeleted, present: access.present }
}
