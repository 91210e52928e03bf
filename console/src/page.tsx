// A configured page: its texts, charts, tables and buttons in the config's order. /api/meta has
// already dropped what the caller may not see or do, so every element here is theirs to use. A
// run of buttons is one toolbar; charts sit side by side where the screen is wide enough.
import type { ComponentChildren } from 'preact'
import type { Session } from './api.js'
import { columnsOf, labelOf, type Meta, type PageElement, type PageMeta } from './meta.js'
import { RecordList } from './list.js'
import { ViewChart } from './chart.js'
import { hrefOf } from './route.js'

/**
 * Where a button leads: create opens the new-record form; read, update and delete open the list,
 * where the records to change are chosen.
 */
function buttonHref (element: PageElement): string | undefined {
  const name = element.resource
  if (name === undefined || element.action === undefined) return undefined
  return element.action === 'create' ? hrefOf({ kind: 'new', name }) : hrefOf({ kind: 'resource', name, query: new URLSearchParams() })
}

function Button ({ element }: { readonly element: PageElement }) {
  const href = buttonHref(element)
  if (href === undefined) return null
  return <a class="button" href={href} data-action={element.action}>{element.label ?? `${labelOf(element.action ?? '')} ${element.resource ?? ''}`.trim()}</a>
}

function Element ({ session, meta, element }: { readonly session: Session, readonly meta: Meta, readonly element: PageElement }) {
  if (element.type === 'text') return <p class="page-text">{element.text}</p>
  const resource = element.resource
  if (resource === undefined || !(resource in meta.resources)) return null
  if (element.type === 'table') {
    return (
      <div class="page-wide">
        <RecordList session={session} meta={meta} resource={resource} columns={columnsOf(meta, resource, element.columns)} caption={labelOf(resource)} sort={meta.views?.[resource]?.sort} />
      </div>
    )
  }
  if (element.type === 'chart') return <ViewChart session={session} meta={meta} resource={resource} />
  return null
}

export function Page ({ session, meta, page }: { readonly session: Session, readonly meta: Meta, readonly page: PageMeta }) {
  const parts: ComponentChildren[] = []
  let buttons: PageElement[] = []
  const flush = (): void => {
    if (buttons.length > 0) parts.push(<div class="page-actions" key={`actions-${parts.length}`}>{buttons.map((element, i) => <Button key={i} element={element} />)}</div>)
    buttons = []
  }
  page.elements.forEach((element, i) => {
    if (element.type === 'button') { buttons.push(element); return }
    flush()
    parts.push(<Element key={i} session={session} meta={meta} element={element} />)
  })
  flush()
  return (
    <>
      <h1>{page.title ?? labelOf(page.name)}</h1>
      <div class="page">{parts}</div>
    </>
  )
}
