// Client metadata in the config: views, pages and the user menu (docs/meta.md, "Views, pages and
// the user menu"). Their shapes are checked with the rest of the config; their references to
// resources and fields are checked against the models at startup (lib/meta/check.ts).
import { Type, type Static, type TArray, type TString } from '@sinclair/typebox'

function Names (description: string, example: string[]): TArray<TString> {
  return Type.Array(Type.String(), { description, examples: [example] })
}

/** What a client offers on a resource's table, form and record page. */
export const ViewSchema = Type.Object({
  roles: Type.Optional(Names('The roles this view is for; a view without roles matches every caller.', ['manager'])),
  columns: Type.Optional(Names('The fields of the table, in order.', ['title', 'status', 'total'])),
  sort: Type.Optional(Type.String({ description: 'The table\'s order: AIP-132 text.', examples: ['placed_at desc, title'] })),
  search: Type.Optional(Names('The fields a search box looks through.', ['title'])),
  filters: Type.Optional(Names('The fields offered as filters.', ['status', 'total'])),
  layout: Type.Optional(Type.Array(Type.Array(Type.String()), { description: 'The rows of fields on a form.', examples: [[['title', 'status'], ['total']]] })),
  chart: Type.Optional(Type.Object({
    type: Type.String({ description: 'The kind of chart (the client decides which it draws).', examples: ['bar'] }),
    x: Type.String({ description: 'The field along the x axis.', examples: ['status'] }),
    y: Type.String({ description: 'The field along the y axis.', examples: ['total'] }),
  }, { additionalProperties: false, title: 'View chart', description: 'A chart of the resource.', examples: [{ type: 'bar', x: 'status', y: 'total' }] })),
  title: Type.Optional(Type.String({ description: 'A record\'s title: a template of field names.', examples: ['{title} ({status})'] })),
  reorder: Type.Optional(Type.String({ description: 'An integer field that orders the records by hand: a client shows them as cards in its order and moves them by drag and drop (left out for a caller who cannot both read and write it).', examples: ['position'] })),
  nav: Type.Optional(Type.Object({
    recent: Type.Optional(Type.Object({
      field: Type.String({ description: 'The field the group orders by, newest or largest first.', examples: ['placed_at'] }),
      label: Type.Optional(Type.String({ description: 'The group\'s label.', defaultText: 'the resource name', examples: ['Latest'] })),
    }, { additionalProperties: false, title: 'Recent records', description: 'A navigation group of the most recent records.' })),
  }, { additionalProperties: false, title: 'View navigation', description: 'Navigation a client offers for the resource.', examples: [{ recent: { field: 'placed_at', label: 'Latest' } }] })),
}, {
  additionalProperties: false,
  title: 'Views',
  description: 'What a client offers on a resource\'s table, form and record page. Fields the caller cannot read are left out of what they receive.',
  examples: [{ columns: ['title', 'status'], sort: 'placed_at desc', search: ['title'] }],
})

export const ACTIONS = ['read', 'create', 'update', 'delete'] as const

export const PageElementSchema = Type.Object({
  type: Type.String({ description: 'The kind of element (the client decides how it draws it).', examples: ['table'] }),
  resource: Type.Optional(Type.String({ description: 'The resource the element shows; removed for a caller to whom it does not exist.', examples: ['orders'] })),
  columns: Type.Optional(Names('The fields it shows; those the caller cannot read are left out.', ['title', 'total'])),
  action: Type.Optional(Type.Union(ACTIONS.map((a) => Type.Literal(a)), { description: 'The operation the element offers (a button): removed for a caller who may not do it.', examples: ['delete'] })),
  label: Type.Optional(Type.String({ description: 'The element\'s label.', examples: ['New order'] })),
  text: Type.Optional(Type.String({ description: 'The text of a text element.', examples: ['Welcome'] })),
}, { additionalProperties: false, title: 'Page elements', description: 'One element of a page.', examples: [{ type: 'button', resource: 'orders', action: 'create', label: 'New order' }] })

export const PageSchema = Type.Object({
  name: Type.String({ minLength: 1, description: 'The page\'s name, which `userMenu` entries use.', examples: ['overview'] }),
  title: Type.Optional(Type.String({ description: 'The page\'s title.', examples: ['Overview'] })),
  roles: Type.Optional(Names('The roles that see the page; without roles, every caller.', ['manager'])),
  elements: Type.Array(PageElementSchema, { description: 'The page\'s elements, in order.' }),
}, { additionalProperties: false, title: 'Pages', description: 'A page for clients.', examples: [{ name: 'overview', title: 'Overview', elements: [{ type: 'table', resource: 'orders', columns: ['title', 'total'] }] }] })

export const MenuEntrySchema = Type.Union([
  Type.Object({ resource: Type.String({ description: 'A resource\'s list.' }), label: Type.Optional(Type.String({ description: 'The entry\'s label.' })) }, { additionalProperties: false }),
  Type.Object({ page: Type.String({ description: 'A page, by `name`.' }), label: Type.Optional(Type.String({ description: 'The entry\'s label.' })) }, { additionalProperties: false }),
])

export const ViewsSchema = Type.Record(Type.String(), Type.Union([ViewSchema, Type.Array(ViewSchema, { minItems: 1 })]), {
  keyName: 'resource',
  description: 'Views by resource name: one view, or a list of views each with `roles`, the first that matches the caller winning (see meta.md).',
  examples: [{ orders: { columns: ['title', 'status'], sort: 'placed_at desc' } }],
})

export type ViewConfig = Static<typeof ViewSchema>
export type PageConfig = Static<typeof PageSchema>
export type PageElementConfig = Static<typeof PageElementSchema>
export type MenuEntryConfig = Static<typeof MenuEntrySchema>
export type ViewsConfig = Static<typeof ViewsSchema>
