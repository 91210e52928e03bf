// Plans are data: what a request will read or write, decided before any I/O.
import type { FieldModel, ResourceModel } from '../model/types.js'
import type { CheckedFilter } from '../query/filter/checked.js'
import type { OperationAccess, RuleContext } from '../access/types.js'

/** Rows a caller may see: the tenant, the read rule's row filter, and whether soft-deleted rows count. */
export interface ReadScope {
  readonly tenant: string | undefined
  readonly rows: CheckedFilter | undefined
  readonly showDeleted: boolean
}

/** `permissions` of each record: decided in the page's own query, record checks after it. */
export interface PermissionPlan {
  readonly update: OperationAccess
  readonly delete: OperationAccess
  /** Per-field `edit`/`read` (get only): the fields the caller may write. */
  readonly writable: readonly FieldModel[] | undefined
  readonly readable: readonly FieldModel[]
  readonly context: Omit<RuleContext, 'operation'>
}

export interface OrderTerm {
  readonly field: FieldModel
  readonly direction: 'ASC' | 'DESC'
}

export interface GetPlan {
  readonly kind: 'get'
  readonly model: ResourceModel
  readonly select: readonly FieldModel[]
  readonly readable: readonly FieldModel[]
  readonly scope: ReadScope
  readonly key: readonly string[]
  readonly permissions: PermissionPlan | undefined
}

export interface ListPlan {
  readonly kind: 'list'
  readonly model: ResourceModel
  readonly select: readonly FieldModel[]
  readonly readable: readonly FieldModel[]
  readonly scope: ReadScope
  /** Always ends with the key fields, so every row has one place in the order. */
  readonly order: readonly OrderTerm[]
  readonly filter: CheckedFilter | undefined
  /** The filter as the caller wrote it (spans in errors point into it). */
  readonly filterText: string
  /** Order values (as text, null for NULL) of the last row of the previous page. */
  readonly after: readonly (string | null)[] | undefined
  readonly pageSize: number
  /** `count=exact`: also count the filtered rows. */
  readonly count: boolean
  /** What a page token is bound to: resource, filter text, order and show_deleted. */
  readonly shape: string
  /** The filtered rows' identity for the cached estimate: the shape and the caller (row filters). */
  readonly estimateKey: string
  readonly permissions: PermissionPlan | undefined
}
