// A record's relations as the API embeds them: a to-one as a link to the related record, titled
// as that record is; a to-many as the first page of its records, each a link, and a link to the
// related list filtered to this record when there are more. /api/meta lists only relations the
// caller can follow, and the API embeds only rows they can read, so nothing here is hidden data.
import type { Meta, RelationMeta } from './meta.js'
import { labelOf } from './meta.js'
import { hrefOf, recordHref } from './route.js'
import { titleOf } from './title.js'
import { condition, type FacetValue } from './list-state.js'

type Row = Readonly<Record<string, unknown>>

/** The to-one relation whose `field` this is, with its name. */
export function toOneOf (meta: Meta, resource: string, field: string): { readonly name: string, readonly target: string } | undefined {
  for (const [name, relation] of Object.entries(meta.resources[resource]?.relations ?? {})) {
    if (relation.kind === 'one' && relation.field === field) return { name, target: relation.resource }
  }
  return undefined
}

export function RelatedLink ({ meta, target, record }: { readonly meta: Meta, readonly target: string, readonly record: Row }) {
  const model = meta.resources[target]
  if (model === undefined) return null
  return <a href={recordHref(target, record, model.key)}>{titleOf(meta, target, record)}</a>
}

interface Page {
  readonly items: readonly Row[]
  readonly next_page_token?: string
}

export function RelatedList ({ meta, name, relation, parent, page }: { readonly meta: Meta, readonly name: string, readonly relation: Extract<RelationMeta, { kind: 'many' }>, readonly parent: unknown, readonly page: Page | undefined }) {
  const heading = labelOf(name)
  const id = `related-${name}`
  const more = page?.next_page_token !== undefined && page.next_page_token !== ''
  const query = new URLSearchParams({ filter: condition(relation.by, parent as FacetValue, meta.resources[relation.resource]?.fields[relation.by]) })
  return (
    <section class="related" aria-labelledby={id}>
      <h2 id={id}>{heading}</h2>
      {page === undefined || page.items.length === 0
        ? <p>None.</p>
        : <ul>{page.items.map((item, i) => <li key={i}><RelatedLink meta={meta} target={relation.resource} record={item} /></li>)}</ul>}
      {more && <a href={hrefOf({ kind: 'resource', name: relation.resource, query })}>More {heading.toLowerCase()}</a>}
    </section>
  )
}
