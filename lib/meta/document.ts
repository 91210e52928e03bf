// GET /api/meta for one caller (docs/meta.md): the restricted models, views, permissions, pages and
// menu, all derived from the caller's access plans, so a front end can build itself from it and
// nothing it holds names a field or resource the caller cannot see.
import type { AccessPlan, Operation, OperationAccess } from '../access/types.js'
import { withinRead } from '../access/permissions.js'
import { followable } from '../access/relations.js'
import type { FieldConfig, ResourceConfig } from '../config/schema.js'
import type { FieldModel, FieldType, RelationModel } from '../model/types.js'
import type { ClientMetadata } from './check.js'
import { trimMenu, trimPages, trimViews, type VisiblePlans } from './trim.js'

export interface MetaField {
  readonly type: FieldType
  /** Not writable on update (what an edit form shows as read-only). */
  readonly readOnly: boolean
  /** Only where a write rule tells create from update: whether a create may not set the field either. */
  readonly readOnlyOnCreate?: boolean
  readonly required: boolean
  readonly nullable: boolean
  readonly filterable: boolean
  readonly sortable: boolean
  readonly searchable: boolean
  readonly enum?: readonly unknown[]
  readonly minLength?: number
  readonly maxLength?: number
  readonly pattern?: string
  readonly minimum?: number
  readonly maximum?: number
  readonly default?: { readonly value: unknown } | { readonly db: true }
}

/**
 * A relation the caller can follow. A to-many's `orderBy` is left out: it may name fields of the
 * related resource the caller cannot read.
 */
export type MetaRelation =
  | { readonly kind: 'one', readonly resource: string, readonly field: string }
  | { readonly kind: 'many', readonly resource: string, readonly by: string, readonly pageSize: number }

export interface MetaResource {
  readonly key: readonly string[]
  readonly softDelete: boolean
  /** The readable field whose value marks a deleted record, so a client can mark show_deleted's rows. */
  readonly softDeleteField?: string
  readonly version: boolean
  readonly fields: Readonly<Record<string, MetaField>>
  /** Absent when the caller can follow none (as for a resource without relations). */
  readonly relations?: Readonly<Record<string, MetaRelation>>
  /** The field holding the tenant, where the caller reads it (staff across tenants only, docs/access.md). */
  readonly tenantField?: string
  /** `GET {resource}:changes` follows the resource's changes (config `changes`, docs/changes.md); absent where it does not. */
  readonly changes?: true
}

export const META_OPERATIONS = ['read', 'create', 'update', 'delete', 'export'] as const satisfies readonly Operation[]
export type MetaOperation = typeof META_OPERATIONS[number]

export type MetaPermissions = Readonly<Record<MetaOperation, boolean>> & {
  readonly conditional: readonly MetaOperation[]
  /** Whether `show_deleted=true` is for the caller (never on a resource without soft delete). */
  readonly showDeleted: boolean
}

const LIMITS = ['minLength', 'maxLength', 'pattern', 'minimum', 'maximum'] as const

function metaField (field: FieldModel, plan: AccessPlan, config: FieldConfig | undefined): MetaField {
  const limits = Object.fromEntries(LIMITS.filter((k) => config?.[k] !== undefined).map((k) => [k, config![k]]))
  const values = config?.enum ?? field.enumLabels
  const defaultValue = field.hasDefault ? { value: field.default } : field.dbDefault ? { db: true as const } : undefined
  const readOnly = !plan.writable.includes(field)
  const readOnlyOnCreate = !plan.writableOnCreate.includes(field)
  return {
    type: field.type,
    readOnly,
    ...(readOnlyOnCreate === readOnly ? {} : { readOnlyOnCreate }),
    required: field.required,
    nullable: field.nullable,
    filterable: plan.query.filterable.has(field.name),
    sortable: plan.query.sortable.has(field.name),
    searchable: plan.query.searchable.includes(field),
    ...(values === undefined ? {} : { enum: values }),
    ...limits,
    ...(defaultValue === undefined ? {} : { default: defaultValue }),
  }
}

function metaRelation (relation: RelationModel): MetaRelation {
  return relation.kind === 'one'
    ? { kind: 'one', resource: relation.target, field: relation.field.name }
    : { kind: 'many', resource: relation.target, by: relation.by.name, pageSize: relation.pageSize }
}

function metaResource (plan: AccessPlan, config: ResourceConfig | undefined, accessOf: (resource: string) => AccessPlan): MetaResource {
  const { model } = plan
  const relations = followable(plan, accessOf)
  const marker = plan.readable.find((f) => f.managed === 'softDelete')
  const tenant = model.tenantField !== undefined && plan.readable.includes(model.tenantField) ? model.tenantField.name : undefined
  return {
    key: model.key.map((f) => f.name),
    softDelete: model.softDelete !== undefined,
    ...(marker === undefined ? {} : { softDeleteField: marker.name }),
    version: model.version !== undefined,
    fields: Object.fromEntries(plan.readable.map((f) => [f.name, metaField(f, plan, config?.fields[f.name])])),
    ...(relations.length === 0 ? {} : { relations: Object.fromEntries(relations.map((r) => [r.name, metaRelation(r)])) }),
    ...(tenant === undefined ? {} : { tenantField: tenant }),
    ...(model.changes === undefined ? {} : { changes: true as const }),
  }
}

/** Allowed for some records only: a row filter or a record rule decides. */
function conditional (access: OperationAccess): boolean {
  return access.allowed && (access.rows !== undefined || access.check !== undefined)
}

export function metaPermissions (plan: AccessPlan): MetaPermissions {
  // Update, delete and export as seen from the rows the caller can read: narrowed by exactly the
  // read filter, they hold for every record the caller can see.
  const effective: Record<MetaOperation, OperationAccess> = {
    read: plan.operations.read,
    create: plan.operations.create,
    update: plan.permissions.list.update,
    delete: plan.permissions.list.delete,
    export: withinRead(plan.operations.export, plan.operations.read),
  }
  return {
    read: effective.read.allowed,
    create: effective.create.allowed,
    update: effective.update.allowed,
    delete: effective.delete.allowed,
    export: effective.export.allowed,
    conditional: META_OPERATIONS.filter((op) => conditional(effective[op])),
    showDeleted: plan.showDeleted,
  }
}

export interface MetaInput {
  /** The caller's plan of every resource of the app (a relation's depends on the plan of its target). */
  readonly plans: readonly AccessPlan[]
  readonly roles: readonly string[]
  readonly metadata: ClientMetadata
  readonly resources: Readonly<Record<string, ResourceConfig>>
  /** A service role of the caller is in config `allTenants`, whether or not a tenant is active. */
  readonly allTenants: boolean
}

export function metaDocument (input: MetaInput) {
  const visible: VisiblePlans = new Map(input.plans.filter((p) => p.visible).map((p) => [p.resource, p]))
  const plans = [...visible.values()]
  const planOf = new Map(input.plans.map((p) => [p.resource, p]))
  const accessOf = (resource: string): AccessPlan => planOf.get(resource)!
  const pages = trimPages(input.metadata.pages, visible, input.roles)
  return {
    resources: Object.fromEntries(plans.map((p) => [p.resource, metaResource(p, input.resources[p.resource], accessOf)])),
    views: trimViews(input.metadata.views, visible, input.roles),
    permissions: Object.fromEntries(plans.map((p) => [p.resource, metaPermissions(p)])),
    userMenu: trimMenu(input.metadata.userMenu, visible, pages),
    pages,
    // A front end offers staff the way back to every tenant, even while one is active.
    ...(input.allTenants ? { allTenants: true as const } : {}),
  }
}
