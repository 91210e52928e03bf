// Plans are data: what a request will read or write, decided before any I/O. Each carries what
// its queries fetch (a Selection), so the SQL compilers need nothing but the plan.
import type { FieldModel, RelationModel, ResourceModel } from '../model/types.js'
import type { Selection } from '../model/selection.js'
import type { CheckedFilter } from '../query/filter/checked.js'
import type { OrderTerm } from '../query/order-by.js'
import type { PageCursor, RelationPage } from '../query/page-token.js'
import type { OperationAccess, PermissionPlan, RuleContext } from '../access/types.js'
import type { RecordWriteOperation } from '../../hooks/types.js'

export type { OrderTerm, PermissionPlan }

/** Rows a caller may see: the tenant, the read rule's row filter, and whether soft-deleted rows count. */
export interface ReadScope {
  readonly tenant: string | undefined
  /** Staff across tenants (config `allTenants`): every tenant's rows. */
  readonly everyTenant?: boolean | undefined
  readonly rows: CheckedFilter | undefined
  readonly showDeleted: boolean
  /** How the caller sees each row, where the resource says (AccessPlan.present). */
  readonly present?: ((row: Record<string, unknown>) => Record<string, unknown>) | undefined
}

/**
 * A relation embedded through a `fields` path. To-one: the target record as the caller reads it, or
 * null when the reference is null or names a row outside the caller's read access on the target.
 * To-many: `{ items, next_page_token }`, the first `pageSize` children the caller may read.
 */
export type EmbedPlan = ToOneEmbed | ToManyEmbed

interface EmbedBase {
  /** The path from the top record: `customer`, `customer.region`. */
  readonly path: string
  /**
   * Its columns' names in the row: to-one, `<column>` is true where the row is there, `<column>_<i>`
   * the i-th field of `fetch`; to-many, `<column>` holds the children as JSON. Short and numbered,
   * so no name nears PostgreSQL's 63-byte limit.
   */
  readonly column: string
  readonly model: ResourceModel
  /** The target's fields the embedded record carries. */
  readonly select: Selection
  /** The target's fields the query reads: the selected ones and what the ETag needs. */
  readonly fetch: Selection
  /** The target's fields the caller may read: what its ETag covers. */
  readonly readable: readonly FieldModel[]
  /** The target's rows the caller may read: tenant, row filter, live rows only. */
  readonly scope: ReadScope
  /** Relations of the target embedded in turn (one level more at most). */
  readonly embeds: readonly EmbedPlan[]
}

export interface ToOneEmbed extends EmbedBase {
  readonly kind: 'one'
  readonly relation: RelationModel & { readonly kind: 'one' }
}

export interface ToManyEmbed extends EmbedBase {
  readonly kind: 'many'
  readonly relation: RelationModel & { readonly kind: 'many' }
  /** The resource the relation goes from: its key is what the children's `by` holds. */
  readonly parent: ResourceModel
  /** The relation's order, ending with the target's key: the children's order and their tokens'. */
  readonly order: readonly OrderTerm[]
  readonly pageSize: number
  /** The caller's scope, which its `next_page_token` is bound to (lib/query/page-token.ts). */
  readonly tokenScope: string
}

export interface GetPlan {
  readonly kind: 'get'
  readonly model: ResourceModel
  /** The fields the response carries. */
  readonly select: Selection
  /** The fields the query reads: the selected ones and what the ETag and permissions need. */
  readonly fetch: Selection
  readonly readable: readonly FieldModel[]
  readonly scope: ReadScope
  readonly key: readonly string[]
  readonly permissions: PermissionPlan | undefined
  /** Relations the `fields` paths embed; none without a path. */
  readonly embeds: readonly EmbedPlan[]
}

/**
 * A page of records: a list (`GET /{resource}`, `:search`) or a seek (`:seek`), which answers with
 * a previous-page token and nothing about the rows beyond its page.
 */
export interface ListPlan {
  readonly kind: 'list' | 'seek'
  readonly model: ResourceModel
  readonly select: Selection
  readonly fetch: Selection
  readonly readable: readonly FieldModel[]
  readonly scope: ReadScope
  /** Always ends with the key fields, so every row has one place in the order. */
  readonly order: readonly OrderTerm[]
  readonly filter: CheckedFilter | undefined
  /** The filter as the caller wrote it (spans in errors point into it). */
  readonly filterText: string
  /** The row a page token reads on from, and which way; undefined for the first page or a seek by position. */
  readonly cursor: PageCursor | undefined
  /** Rows of the filtered, ordered set skipped before the page (a seek's `position`); 0 for lists. */
  readonly position: number
  readonly pageSize: number
  /** `count=exact`: also count the filtered rows. */
  readonly count: boolean
  /** What a page token is bound to: resource, filter text, order and show_deleted. */
  readonly tokenBinding: string
  /** The caller's scope (shape and tenant) a page token is bound to besides: another's is refused. */
  readonly tokenScope: string
  /** The filtered rows' identity for the cached estimate: the binding and the caller (row filters). */
  readonly estimateKey: string
  /** The caller's key where a row filter or tenant narrows their rows, else '': callers who see every row share samples. */
  readonly narrowedTo: string
  readonly permissions: PermissionPlan | undefined
  /** Relations the `fields` paths embed; none without a path. */
  readonly embeds: readonly EmbedPlan[]
  /**
   * The parent whose children a to-many embed's token continues (`filter` then holds the link):
   * the page's own tokens carry it too. Undefined for any other list.
   */
  readonly parent?: RelationPage | undefined
}

/** Field → value as sent to PostgreSQL (json stringified, int8/numeric as text). */
export type ColumnValues = ReadonlyMap<FieldModel, unknown>

/**
 * A value that names a record of another resource (or its own): the write happens only if the
 * caller can read that record now (its read filter, tenant, not soft-deleted).
 */
export interface ReferenceCheck {
  readonly field: FieldModel
  /** The value as bound, the key of the record it names. */
  readonly value: unknown
  readonly target: ResourceModel
  /** False when the caller cannot read the target at all: no record of it exists for them. */
  readonly readable: boolean
  /** The caller's read filter on the target. */
  readonly rows: CheckedFilter | undefined
  /** The caller's tenant, where the target is kept per tenant. */
  readonly tenant: string | undefined
  /** Staff across tenants: a record of any tenant. */
  readonly everyTenant?: boolean | undefined
}

/**
 * A write whose request is checked (docs/resources.md, "The write pipeline", steps 1 and 2): what
 * remains needs the database.
 */
export interface WritePlan {
  readonly kind: 'write'
  readonly operation: RecordWriteOperation
  readonly model: ResourceModel
  /** Key parts (decoded); absent on create. */
  readonly key: readonly string[] | undefined
  /** The caller's tenant: the tenant column's value, and a condition of every statement. */
  readonly tenant: string | undefined
  /**
   * Staff across tenants (config `allTenants`): no tenant condition, and the stored row's tenant is
   * read for the write's event (`WriteEvent.tenant`); a create into a tenant column names its tenant.
   */
  readonly everyTenant?: boolean | undefined
  readonly ifMatch: '*' | readonly string[] | undefined
  readonly access: OperationAccess & { readonly allowed: true }
  readonly ruleContext: RuleContext
  /** The fields the caller may read: what the answer carries and its ETag covers. */
  readonly readable: readonly FieldModel[]
  /**
   * The rows the lock and a guarded update may find: those the caller may read and this
   * operation may write. A row outside them does not exist for the caller.
   */
  readonly scope: CheckedFilter | undefined
  /** What the answer carries: the fields `fields` names, else every field the caller may read. */
  readonly select: Selection
  /**
   * What the lock and the write read back: the stored record when a record check or a write hook
   * needs it, else what the answer and its ETag need.
   */
  readonly fetch: Selection
  /** The columns the write sets, as bound values. */
  readonly values: ColumnValues
  /** Values of reference fields the write sets: each must name a record the caller can read. */
  readonly references: readonly ReferenceCheck[]
  /** The record as the caller sent it, for record checks and `validate`. */
  readonly sent: Readonly<Record<string, unknown>>
  /** Write hooks hear of this write: they run, and they need the stored rows. */
  readonly hooked: boolean
  /**
   * The write is recorded in the change log by the pipeline (config `changes`, capture `pipeline`),
   * its update's image before read from the row it writes over where the server's RETURNING can
   * (`returning`, PostgreSQL 18), else by a locking read in the same statement (`locking`); false
   * where it is not recorded.
   */
  readonly capture: false | 'returning' | 'locking'
  /** `permissions` of the record as written, as on a get (a batch answers with them), read back with it. */
  readonly permissions: PermissionPlan | undefined
  /** To-one relations the `fields` paths embed in the answer, read after the write in its transaction; none without a path. */
  readonly embeds: readonly EmbedPlan[]
}
