// Plans are data: what a request will read or write, decided before any I/O.
import type { FieldModel, ResourceModel } from '../model/types.js'

/** Rows a caller may see: the tenant, and whether soft-deleted rows count. */
export interface ReadScope {
  readonly tenant: string | undefined
  readonly showDeleted: boolean
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
}

export interface ListPlan {
  readonly kind: 'list'
  readonly model: ResourceModel
  readonly select: readonly FieldModel[]
  readonly readable: readonly FieldModel[]
  readonly scope: ReadScope
  /** Always ends with the key fields, so every row has one place in the order. */
  readonly order: readonly OrderTerm[]
  /** Order values (as text) of the last row of the previous page. */
  readonly after: readonly string[] | undefined
  readonly pageSize: number
}
