// The parts of GET /api/meta the console reads (docs/meta.md); everything in it is already
// restricted to the caller, so the console shows what is there and nothing else.
export interface FieldMeta {
  readonly type: string
  readonly readOnly?: boolean
  readonly required?: boolean
  readonly enum?: readonly string[]
}

export interface ResourceMeta {
  readonly fields: Readonly<Record<string, FieldMeta>>
}

export interface ViewMeta {
  readonly columns?: readonly string[]
  readonly sort?: string
  readonly title?: string
}

export interface Permissions {
  readonly read: boolean
  readonly create: boolean
  readonly update: boolean
  readonly delete: boolean
  readonly export: boolean
  readonly showDeleted: boolean
}

export type MenuEntry = { readonly resource: string, readonly label?: string } | { readonly page: string, readonly label?: string }

export type PageElement =
  | { readonly type: 'table', readonly resource: string, readonly columns?: readonly string[] }
  | { readonly type: 'text', readonly text: string }
  | { readonly type: 'button' | 'chart', readonly resource: string }

export interface PageMeta {
  readonly name: string
  readonly title?: string
  readonly elements: readonly PageElement[]
}

export interface Meta {
  readonly resources: Readonly<Record<string, ResourceMeta>>
  readonly views?: Readonly<Record<string, ViewMeta>>
  readonly permissions?: Readonly<Record<string, Permissions>>
  readonly userMenu?: readonly MenuEntry[]
  readonly pages?: readonly PageMeta[]
}

/** The columns a list shows: the view's, else every field the caller may read. */
export function columnsOf (meta: Meta, resource: string, chosen?: readonly string[]): readonly string[] {
  const fields = meta.resources[resource]?.fields ?? {}
  const wanted = chosen ?? meta.views?.[resource]?.columns ?? Object.keys(fields)
  return wanted.filter((name) => name in fields)
}

export function labelOf (name: string): string {
  const spaced = name.replace(/[_-]/g, ' ')
  return spaced.charAt(0).toUpperCase() + spaced.slice(1)
}

/** The menu with only entries whose resource or page the caller has. */
export function menuOf (meta: Meta): ReadonlyArray<{ readonly href: string, readonly label: string }> {
  const entries: readonly MenuEntry[] = meta.userMenu ?? Object.keys(meta.resources).map((resource) => ({ resource }))
  const pages = new Map((meta.pages ?? []).map((page) => [page.name, page]))
  return entries.flatMap((entry) => {
    if ('resource' in entry) return entry.resource in meta.resources ? [{ href: `#/r/${encodeURIComponent(entry.resource)}`, label: entry.label ?? labelOf(entry.resource) }] : []
    const page = pages.get(entry.page)
    return page === undefined ? [] : [{ href: `#/p/${encodeURIComponent(page.name)}`, label: entry.label ?? page.title ?? labelOf(page.name) }]
  })
}
