// A configured page: its texts and tables (buttons and charts come with editing and charts).
import type { Session } from './api.js'
import { columnsOf, labelOf, type Meta, type PageMeta } from './meta.js'
import { RecordList } from './list.js'

export function Page ({ session, meta, page }: { readonly session: Session, readonly meta: Meta, readonly page: PageMeta }) {
  return (
    <>
      <h1>{page.title ?? labelOf(page.name)}</h1>
      {page.elements.map((element, i) => {
        if (element.type === 'text') return <p key={i}>{element.text}</p>
        const resource = element.resource
        if (element.type === 'table' && resource !== undefined && resource in meta.resources) {
          return <RecordList key={i} session={session} resource={resource} columns={columnsOf(meta, resource, element.columns)} caption={labelOf(resource)} />
        }
        return null
      })}
    </>
  )
}
