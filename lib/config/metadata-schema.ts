// Client metadata in the config: views, pages and the user menu (DESIGN 1.4). Their shapes are
// checked with the rest of the config; their references to resources and fields are checked
// against the models at startup (lib/meta/check.ts).
import { Type, type Static } from '@sinclair/typebox'

const Names = Type.Array(Type.String())
const Roles = Type.Array(Type.String())

/** What a client offers on a resource's table, form and record page. */
export const ViewSchema = Type.Object({
  /** The roles this view is for; a view without roles matches every caller. */
  roles: Type.Optional(Roles),
  columns: Type.Optional(Names),
  /** AIP-132 text: `placed_at desc, title`. */
  sort: Type.Optional(Type.String()),
  search: Type.Optional(Names),
  filters: Type.Optional(Names),
  /** Rows of fields on a form. */
  layout: Type.Optional(Type.Array(Names)),
  chart: Type.Optional(Type.Object({ type: Type.String(), x: Type.String(), y: Type.String() }, { additionalProperties: false })),
  /** A template of field names: `{title} ({status})`. */
  title: Type.Optional(Type.String()),
  nav: Type.Optional(Type.Object({
    recent: Type.Optional(Type.Object({ field: Type.String(), label: Type.Optional(Type.String()) }, { additionalProperties: false })),
  }, { additionalProperties: false })),
}, { additionalProperties: false })

export const ACTIONS = ['read', 'create', 'update', 'delete'] as const

export const PageElementSchema = Type.Object({
  type: Type.String(),
  resource: Type.Optional(Type.String()),
  columns: Type.Optional(Names),
  /** The operation the element offers (a button): removed for a caller who may not do it. */
  action: Type.Optional(Type.Union(ACTIONS.map((a) => Type.Literal(a)))),
  label: Type.Optional(Type.String()),
  text: Type.Optional(Type.String()),
}, { additionalProperties: false })

export const PageSchema = Type.Object({
  name: Type.String({ minLength: 1 }),
  title: Type.Optional(Type.String()),
  /** The roles that see the page; without roles, every caller. */
  roles: Type.Optional(Roles),
  elements: Type.Array(PageElementSchema),
}, { additionalProperties: false })

export const MenuEntrySchema = Type.Union([
  Type.Object({ resource: Type.String(), label: Type.Optional(Type.String()) }, { additionalProperties: false }),
  Type.Object({ page: Type.String(), label: Type.Optional(Type.String()) }, { additionalProperties: false }),
])

export const ViewsSchema = Type.Record(Type.String(), Type.Union([ViewSchema, Type.Array(ViewSchema, { minItems: 1 })]))

export type ViewConfig = Static<typeof ViewSchema>
export type PageConfig = Static<typeof PageSchema>
export type PageElementConfig = Static<typeof PageElementSchema>
export type MenuEntryConfig = Static<typeof MenuEntrySchema>
export type ViewsConfig = Static<typeof ViewsSchema>
