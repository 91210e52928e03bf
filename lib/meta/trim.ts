// Views, pages and the user menu as one caller may see them (docs/meta.md, "Views, pages and the
// user menu"): every reference to a field it cannot read is removed, and so is everything about a
// resource it cannot see or an action it may not do.
import type { MenuEntryConfig, PageConfig, PageElementConfig, ViewConfig, ViewsConfig } from '../config/metadata-schema.js'
import type { AccessPlan } from '../access/types.js'
import { sortTerms, titleFields } from './view-fields.js'

/** The caller's plan of each resource it can see; others are absent. */
export type VisiblePlans = ReadonlyMap<string, AccessPlan>

function meetsRoles (required: readonly string[] | undefined, roles: readonly string[]): boolean {
  return required === undefined || required.some((r) => roles.includes(r))
}

/** The first view whose roles meet the caller's (a view without roles matches everyone). */
export function viewFor (views: ViewConfig | readonly ViewConfig[], roles: readonly string[]): ViewConfig | undefined {
  return (Array.isArray(views) ? views as readonly ViewConfig[] : [views as ViewConfig]).find((v) => meetsRoles(v.roles, roles))
}

function readableNames (plan: AccessPlan): ReadonlySet<string> {
  return new Set(plan.readable.map((f) => f.name))
}

/** The fields the caller may set on update; none where it may not update at all. */
function writableNames (plan: AccessPlan): ReadonlySet<string> {
  return new Set(plan.operations.update.allowed ? plan.writable.map((f) => f.name) : [])
}

/**
 * Only what names readable fields; undefined parts stay undefined, emptied parts go. `reorder`
 * also needs the field writable on update: a board the caller could not save would only mislead.
 */
export function trimView (view: ViewConfig, readable: ReadonlySet<string>, writable: ReadonlySet<string>): Omit<ViewConfig, 'roles'> {
  const keep = (names: readonly string[] | undefined) => names?.filter((n) => readable.has(n))
  const sort = view.sort === undefined ? undefined : sortTerms(view.sort).filter((t) => readable.has(t.field)).map((t) => t.text).join(', ')
  const layout = view.layout?.map((row) => row.filter((n) => readable.has(n))).filter((row) => row.length > 0)
  const chart = view.chart !== undefined && readable.has(view.chart.x) && readable.has(view.chart.y) ? view.chart : undefined
  const title = view.title !== undefined && titleFields(view.title).every((n) => readable.has(n)) ? view.title : undefined
  const recent = view.nav?.recent !== undefined && readable.has(view.nav.recent.field) ? view.nav.recent : undefined
  const reorder = view.reorder !== undefined && readable.has(view.reorder) && writable.has(view.reorder) ? view.reorder : undefined
  const trimmed = {
    columns: keep(view.columns),
    sort: sort === '' ? undefined : sort,
    search: keep(view.search),
    filters: keep(view.filters),
    layout,
    chart,
    title,
    nav: recent === undefined ? undefined : { recent },
    reorder,
  }
  return Object.fromEntries(Object.entries(trimmed).filter(([, v]) => v !== undefined))
}

export function trimViews (views: ViewsConfig, plans: VisiblePlans, roles: readonly string[]): Record<string, Omit<ViewConfig, 'roles'>> {
  const result: Record<string, Omit<ViewConfig, 'roles'>> = {}
  for (const [resource, configured] of Object.entries(views)) {
    const plan = plans.get(resource)
    const view = plan === undefined ? undefined : viewFor(configured, roles)
    if (plan !== undefined && view !== undefined) result[resource] = trimView(view, readableNames(plan), writableNames(plan))
  }
  return result
}

function trimElement (element: PageElementConfig, plans: VisiblePlans): PageElementConfig | undefined {
  if (element.resource === undefined) return element
  const plan = plans.get(element.resource)
  if (plan === undefined) return undefined
  if (element.action !== undefined && !plan.operations[element.action].allowed) return undefined
  if (element.columns === undefined) return element
  const readable = readableNames(plan)
  const columns = element.columns.filter((n) => readable.has(n))
  // A table left with no column shows nothing: it goes with the rest.
  return columns.length === 0 ? undefined : { ...element, columns }
}

export function trimPages (pages: readonly PageConfig[], plans: VisiblePlans, roles: readonly string[]): Array<Omit<PageConfig, 'roles'>> {
  return pages.filter((page) => meetsRoles(page.roles, roles)).map(({ roles: _roles, ...page }) => ({
    ...page,
    elements: page.elements.map((e) => trimElement(e, plans)).filter((e) => e !== undefined),
  }))
}

/** The caller's menu: the configured one without what they cannot use, else every resource they may read. */
/** Whether the caller has the tenant a resource kept per tenant needs (or works across tenants): else every list is 403 tenant-required. */
function servesCaller (plan: AccessPlan): boolean {
  return plan.model.tenancy === undefined || plan.context.tenant !== undefined || plan.context.allTenants === true
}

export function trimMenu (menu: readonly MenuEntryConfig[] | undefined, plans: VisiblePlans, pages: ReadonlyArray<{ readonly name: string }>): MenuEntryConfig[] {
  if (menu === undefined) return [...plans.values()].filter((p) => p.operations.read.allowed && servesCaller(p)).map((p) => ({ resource: p.resource }))
  const pageNames = new Set(pages.map((p) => p.name))
  return menu.filter((entry) => 'resource' in entry ? plans.has(entry.resource) : pageNames.has(entry.page))
}
