// Resource models: the frozen, checked form of resource definitions that every later stage reads.
import type { TSchema } from '@sinclair/typebox'
import type { Sql } from '../sql/sql.js'
import type { ResourceConfig } from '../config/schema.js'
import type { RowPresenter } from '../config/plugin-resources.js'

export type FieldType = 'string' | 'integer' | 'bigint' | 'number' | 'decimal' | 'boolean' | 'date' | 'timestamp' | 'uuid' | 'json'

/** What a column holds beyond its field type (lib/model/column-limits.ts reads and checks it). */
export type ColumnLimit =
  | { readonly kind: 'characters', readonly max: number }
  /** A string field's length where neither it nor its column sets one (config `textMaxLength`). */
  | { readonly kind: 'text', readonly max: number }
  | { readonly kind: 'integer', readonly min: bigint, readonly max: bigint }
  | { readonly kind: 'numeric', readonly precision: number, readonly scale: number }
  | { readonly kind: 'labels', readonly labels: readonly string[] }
  | { readonly kind: 'jsonb' }

/** Which managed column a field stands for, if any. */
export type ManagedRole = 'softDelete' | 'version' | 'tenant'

export interface FieldModel {
  readonly name: string
  readonly column: string
  readonly type: FieldType
  readonly readOnly: boolean
  readonly required: boolean
  readonly nullable: boolean
  readonly hasDefault: boolean
  readonly default: unknown
  readonly dbDefault: boolean
  readonly filterable: boolean
  readonly sortable: boolean
  readonly searchable: boolean
  /** The resource whose key this field's values name: a write may name only a record the caller can read. */
  readonly references: string | undefined
  readonly managed: ManagedRole | undefined
  /** The column is NOT NULL in the database (from introspection); keyset pages rely on it. */
  readonly notNull: boolean
  /** The column's base type name (pg_type.typname, `enum` for enums), from introspection. */
  readonly columnType: string | undefined
  /** The labels of an enum column, in order, from introspection. */
  readonly enumLabels?: readonly string[] | undefined
  /** What the column holds beyond the field type (varchar length, numeric precision, ...), from introspection. */
  readonly columnLimit: ColumnLimit | undefined
  /** The values the config's `enum` list allows, in order. */
  readonly enumValues?: readonly unknown[] | undefined
  /** Schema of one value of this field (body validation, and OpenAPI later). */
  readonly schema: TSchema
  /** The schema compiled: whether a value passes it (refusals are explained from `schema`). */
  readonly accepts: (value: unknown) => boolean
}

/**
 * A relation of a resource to another (docs/relations.md). To-one: this resource's `field`
 * references the target. To-many: the target's `by` field references this resource back; its
 * children come `pageSize` at a time in `orderBy`, then the target's key.
 */
export type RelationModel =
  | { readonly kind: 'one', readonly name: string, readonly target: string, readonly field: FieldModel }
  | { readonly kind: 'many', readonly name: string, readonly target: string, readonly by: FieldModel, readonly orderBy: readonly RelationOrder[], readonly pageSize: number }

export interface RelationOrder {
  readonly field: FieldModel
  readonly direction: 'ASC' | 'DESC'
}

/**
 * How a resource's rows belong to tenants: by a column of its own, or through to-one relations to a
 * resource that has one (`tenant: { through: 'task.project' }`), whose rows are read as stored.
 */
export type Tenancy =
  | { readonly kind: 'column', readonly column: string, readonly columnType?: string | undefined }
  | { readonly kind: 'through', readonly path: string, readonly hops: readonly TenantHop[], readonly column: string, readonly columnType?: string | undefined }

/* `columnType`: the tenant column's base type (pg_type.typname), from introspection: a tenant compares in it. */

/** One to-one step of a tenancy through relations: the column here that names a row there. */
export interface TenantHop {
  readonly relation: string
  readonly column: string
  readonly target: string
  readonly table: Sql
  /** The target's key column. */
  readonly key: string
}

export interface VersionColumn {
  readonly column: string
  /** `integer`: bumped by one; `timestamp`: set to a strictly later instant. */
  readonly kind: 'integer' | 'timestamp'
}

export interface ResourceModel {
  readonly name: string
  readonly table: Sql
  readonly tableText: string
  /** Every field in declaration order, including exposed managed columns. */
  readonly fields: ReadonlyMap<string, FieldModel>
  /** The same fields as a list: what a stored record holds. */
  readonly fieldList: readonly FieldModel[]
  readonly key: readonly FieldModel[]
  readonly softDelete: string | undefined
  /** The column of the table that holds the tenant (a `column` tenancy): creates fill it. */
  readonly tenant: string | undefined
  /** How rows belong to tenants, if they do: by that column, or through relations (./tenancy.ts). */
  readonly tenancy: Tenancy | undefined
  /**
   * The tenant column as a field, where the config does not list it: read and set on create only by
   * staff across tenants (config `allTenants`); to everyone else it is no field.
   */
  readonly tenantField: FieldModel | undefined
  readonly owner: string | undefined
  readonly version: VersionColumn | undefined
  /** The field of the version column (always a field: listed or added read-only). */
  readonly versionField: FieldModel | undefined
  /**
   * The table has a row trigger (BEFORE or INSTEAD OF) or a rule on UPDATE, which may change a
   * row past what the UPDATE says: its updates are verified on the row as written, never assumed.
   */
  readonly rewritesUpdates: boolean
  /** Columns some unique index covers (alone or with others): a reorder moves their values aside first. */
  readonly uniqueColumns: ReadonlySet<string>
  /** Columns that lead one of the table's valid indexes: a condition on one can start from it (lib/sql/selective.ts). */
  readonly leadingColumns: ReadonlySet<string>
  readonly validate: ResourceConfig['validate']
  readonly access: ResourceConfig['access']
  /** A plugin's resource whose rows hold other resources' records: how a caller sees them. */
  readonly present: RowPresenter | undefined
  /** The relations to other resources, by name (none unless the config declares them). */
  readonly relations: ReadonlyMap<string, RelationModel>
  /** How its writes reach the change log (config `changes`), if they do (docs/changes.md). */
  readonly changes: 'pipeline' | 'trigger' | undefined
}
