// A view's `nav.recent`: the few records latest by its field, each a link to its record screen,
// as a navigation group beside the list.
import { useEffect, useState } from 'preact/hooks'
import { basePath, type Session } from './api.js'
import { labelOf, type Meta } from './meta.js'
import { recordHref } from './route.js'
import { titleFieldsOf, titleOf } from './title.js'

const RECENT = 5

export function Recent ({ session, meta, resource }: { readonly session: Session, readonly meta: Meta, readonly resource: string }) {
  const recent = meta.views?.[resource]?.nav?.recent
  const model = meta.resources[resource]
  const [items, setItems] = useState<ReadonlyArray<Readonly<Record<string, unknown>>> | undefined>()
  const filterable = recent !== undefined && model?.fields[recent.field]?.filterable === true
  const fields = model === undefined ? '' : [...new Set([...model.key, ...titleFieldsOf(meta, resource)])].join(',')
  useEffect(() => {
    if (recent === undefined || fields === '') return
    let current = true
    const query = new URLSearchParams({ page_size: String(RECENT), order_by: `${recent.field} desc`, fields })
    // A descending order puts records without the value first: they are not recent.
    if (filterable) query.set('filter', `${recent.field} != null`)
    session.get<{ items: ReadonlyArray<Record<string, unknown>> }>(`${basePath}/${encodeURIComponent(resource)}?${query}`)
      .then((answer) => { if (current) setItems(answer.items) })
      .catch(() => { if (current) setItems([]) })
    return () => { current = false }
  }, [session, resource, recent?.field, fields, filterable])
  if (recent === undefined || model === undefined) return null
  const label = recent.label ?? `Latest by ${labelOf(recent.field).toLowerCase()}`
  return (
    <nav class="recent" aria-labelledby="recent-heading">
      <h2 id="recent-heading">{label}</h2>
      <ul>
        {items?.map((item) => <li key={recordHref(resource, item, model.key)}><a href={recordHref(resource, item, model.key)}>{titleOf(meta, resource, item)}</a></li>)}
        {items?.length === 0 && <li>None yet.</li>}
      </ul>
    </nav>
  )
}
