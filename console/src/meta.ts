// The parts of GET /api/meta the console reads (docs/meta.md); everything in it is already
// restricted to the caller, so the console shows what is there and nothing else.
export type FieldType = 'string' | 'text' | 'integer' | 'bigint' | 'decimal' | 'number' | 'boolean' | 'date' | 'timestamp' | 'json' | 'uuid' | (string & {})

const NUMERIC: ReadonlySet<FieldType> = new Set<FieldType>(['integer', 'bigint', 'number', 'decimal'])

/** Whether a field holds numbers (right-aligned, histogrammed, bare in a filter). */
export function isNumeric (type: FieldType): boolean {
  return NUMERIC.has(type)
}

export interface FieldMeta {
  readonly type: FieldType
  readonly readOnly?: boolean
  /** Present where a write rule tells a create from an update: whether a create form offers it. */
  readonly readOnlyOnCreate?: boolean
  readonly required?: boolean
  readonly nullable?: boolean
  readonly filterable?: boolean
  readonly sortable?: boolean
  readonly searchable?: boolean
  readonly enum?: readonly string[]
  readonly maxLength?: number
  readonly minLength?: number
  readonly minimum?: number | string
  readonly maximum?: number | string
  readonly default?: { readonly db: true } | { readonly value: unknown }
}

export type RelationMeta =
  | { readonly kind: 'one', readonly resource: string, readonly field: string }
  | { readonly kind: 'many', readonly resource: string, readonly by: string, readonly pageSize: number }

export interface ResourceMeta {
  readonly key: readonly string[]
  readonly softDelete?: boolean
  /** The field marking a deleted record, where the caller reads it. */
  readonly softDeleteField?: string
  readonly version?: boolean
  readonly fields: Readonly<Record<string, FieldMeta>>
  readonly relations?: Readonly<Record<string, RelationMeta>>
  /** Staff across tenants in no organization: the field that says whose each record is. */
  readonly tenantField?: string
  /** Its changes can be followed (`GET {basePath}/{resource}:changes`): open lists and records show them live. */
  readonly changes?: true
}

export interface ChartMeta {
  /** The kind of chart; the console decides how it draws it. */
  readonly type: string
  readonly x: string
  readonly y: string
}

export interface ViewMeta {
  readonly columns?: readonly string[]
  readonly sort?: string
  readonly search?: readonly string[]
  readonly filters?: readonly string[]
  readonly layout?: ReadonlyArray<readonly string[]>
  readonly chart?: ChartMeta
  readonly title?: string
  readonly nav?: { readonly recent?: { readonly field: string, readonly label?: string } }
  /** An integer field the caller may read and write that orders the records by hand: shown as a board. */
  readonly reorder?: string
}

export type Operation = 'read' | 'create' | 'update' | 'delete' | 'export'

export interface Permissions {
  readonly read: boolean
  readonly create: boolean
  readonly update: boolean
  readonly delete: boolean
  readonly export: boolean
  /** Operations allowed for some records only: the record's own `permissions` decide. */
  readonly conditional?: readonly Operation[]
  readonly showDeleted: boolean
}

export type MenuEntry = { readonly resource: string, readonly label?: string } | { readonly page: string, readonly label?: string }

/** `type` is free text in the config: the console draws `table`, `text`, `button` and `chart`. */
export interface PageElement {
  readonly type: string
  readonly resource?: string
  readonly columns?: readonly string[]
  readonly action?: 'read' | 'create' | 'update' | 'delete'
  readonly label?: string
  readonly text?: string
}

export interface PageMeta {
  readonly name: string
  readonly title?: string
  readonly elements: readonly PageElement[]
}

export interface Meta {
  readonly resources: Readonly<Record<string, ResourceMeta>>
  readonly views?: Readonly<Record<string, ViewMeta>>
  readonly permissions?: Readonly<Record<string, Permissions>>
  /** The server's: without a configured menu, every resource the caller may read. */
  readonly userMenu: readonly MenuEntry[]
  readonly pages?: readonly PageMeta[]
  /** The caller is staff across tenants: without an active organization they see every organization's records. */
  readonly allTenants?: boolean
}

/**
 * The columns a list shows: the view's, else every field the caller may read; where the caller
 * sees every organization's records, the tenant field too, so each row says whose it is.
 */
export function columnsOf (meta: Meta, resource: string, chosen?: readonly string[]): readonly string[] {
  const model = meta.resources[resource]
  const fields = model?.fields ?? {}
  const wanted = chosen ?? meta.views?.[resource]?.columns ?? Object.keys(fields)
  const tenant = model?.tenantField
  return [...wanted, ...tenant === undefined || wanted.includes(tenant) ? [] : [tenant]].filter((name) => name in fields)
}

export function labelOf (name: string): string {
  const spaced = name.replace(/[_-]/g, ' ')
  return spaced.charAt(0).toUpperCase() + spaced.slice(1)
}

/** The menu with only entries whose resource or page the caller has. */
export function menuOf (meta: Meta): ReadonlyArray<{ readonly href: string, readonly label: string }> {
  const pages = new Map((meta.pages ?? []).map((page) => [page.name, page]))
  return meta.userMenu.flatMap((entry) => {
    if ('resource' in entry) return entry.resource in meta.resources ? [{ href: `#/r/${encodeURIComponent(entry.resource)}`, label: entry.label ?? labelOf(entry.resource) }] : []
    const page = pages.get(entry.page)
    return page === undefined ? [] : [{ href: `#/p/${encodeURIComponent(page.name)}`, label: entry.label ?? page.title ?? labelOf(page.name) }]
  })
}
