// Access values: rules as configured (lib/config/rules.ts), and the AccessPlan one resolution
// turns them into.
import type { FieldModel, ResourceModel } from '../model/types.js'
import type { CheckedFilter, QueryModel } from '../query/filter/checked.js'
import type { Operation, RuleContext, FilterSpec, RecordCheck, RuleOutcome, Rule, FieldRule } from '../config/rules.js'

export type { Operation, RuleContext, FilterSpec, RecordCheck, RuleOutcome, Rule, FieldRule }

export const OPERATIONS: readonly Operation[] = ['read', 'create', 'update', 'delete', 'undelete', 'export']

/**
 * Operations that judge no record: a `{ check }` runs in a write transaction with the stored
 * record, and a read or an export has neither, so such a rule would let every row through.
 */
export const RECORDLESS = ['read', 'export'] as const satisfies readonly Operation[]

export function recordlessRule (operation: typeof RECORDLESS[number]): string {
  return `${operation === 'export' ? 'an' : 'a'} ${operation} judges no record, so its rule takes true, false, roles or { filter }, not { check }`
}

/** One operation for one caller: denied, or allowed for rows matching `rows` and records passing `check`. */
export type OperationAccess =
  | { readonly allowed: false }
  | { readonly allowed: true, readonly rows: CheckedFilter | undefined, readonly check: RecordCheck | undefined }

export const DENIED: OperationAccess = { allowed: false }
/** Allowed on every row, with no record check. */
export const ALLOWED: OperationAccess = { allowed: true, rows: undefined, check: undefined }

/**
 * `permissions` of a caller's records: decided in the page's own query, record checks after it.
 * An operation narrowed by exactly the read filter is allowed on every row the caller can see.
 */
export interface PermissionPlan {
  readonly update: OperationAccess
  readonly delete: OperationAccess
  /** Per-field `edit`/`read` (get only): the fields the caller may write. */
  readonly writable: readonly FieldModel[] | undefined
  readonly readable: readonly FieldModel[]
  readonly context: Omit<RuleContext, 'operation'>
  /**
   * A get's four forms (update and delete each allowed or not), as objects and as JSON, made on
   * first use. Undefined for list items: theirs are the same for every caller (lib/read/permissions.ts).
   */
  readonly forms: Array<{ readonly object: Record<string, unknown>, readonly json: string } | undefined> | undefined
}

export interface AccessPlan {
  readonly resource: string
  readonly model: ResourceModel
  /** False when the caller can do nothing with the resource: it does not exist for them. */
  readonly visible: boolean
  readonly operations: Readonly<Record<Operation, OperationAccess>>
  readonly readable: readonly FieldModel[]
  /** The fields the caller may set on update (field write rules see `update`). */
  readonly writable: readonly FieldModel[]
  /** The fields the caller may set on create (field write rules see `create`). */
  readonly writableOnCreate: readonly FieldModel[]
  /** Whether the caller may read soft-deleted records (`show_deleted=true`): a soft-delete resource they read, and its `showDeleted` rule. */
  readonly showDeleted: boolean
  /** What the caller may filter, sort and search: their readable fields, nothing else. */
  readonly query: QueryModel
  /** `permissions` of list items and of a get. */
  readonly permissions: { readonly list: PermissionPlan, readonly get: PermissionPlan }
  /** `.own` on create: the owner field to fill with the caller's id when the body leaves it out. */
  readonly ownerField: FieldModel | undefined
  readonly context: Omit<RuleContext, 'operation'>
  /** The caller's shape (id, roles, tenant) as text: plans, and what depends on them, are kept by it. */
  readonly callerKey: string
  /** The scope the caller's page tokens are bound to (lib/query/page-token.ts), made once with the plan. */
  readonly tokenScope: string
  /** How this caller sees a row, for a plugin's resource that says (ResourceModel.present). */
  readonly present: ((row: Record<string, unknown>) => Record<string, unknown>) | undefined
}
