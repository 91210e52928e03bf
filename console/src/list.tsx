// One resource's records, page by page with the list's own keyset tokens (never an offset): the
// tokens of the pages already passed are kept to go back, the records of the open page only.
// Given the meta, each row links to its record screen, a to-one relation's field shows the
// related record's title as a link, numbers are right-aligned and sortable columns sort. A live
// list follows the resource's changes (live-list.ts says what each does to the page).
import { useEffect, useRef, useState } from 'preact/hooks'
import type { Session } from './api.js'
import { ApiError, basePath } from './api.js'
import { isNumeric, labelOf, type Meta } from './meta.js'
import { keyOf, recordHref } from './route.js'
import { titleFieldsOf, titleOf } from './title.js'
import { textOf } from './field-values.js'
import type { Change, Item } from './change.js'
import { applyChange, freshLabel } from './live-list.js'
import { useChanges } from './live.js'
import { recordPath } from './record-model.js'

const PAGE_SIZE = 20
const NONE: ReadonlySet<string> = new Set()

interface ListAnswer {
  readonly items: readonly Item[]
  readonly next_page_token?: string
  readonly total_size_estimate?: number
}

export interface RecordListProps {
  readonly session: Session
  readonly resource: string
  readonly columns: readonly string[]
  readonly caption: string
  /** The view's `sort`, as the list's `order_by`. */
  readonly sort?: string | undefined
  /** Links, relation titles, number alignment and deleted marks need it. */
  readonly meta?: Meta | undefined
  readonly filter?: string | undefined
  readonly showDeleted?: boolean | undefined
  /** Given, sortable column headers are buttons that call it with the new `order_by`. */
  readonly onSort?: ((orderBy: string) => void) | undefined
  /** Follows the resource's changes, where /api/meta says they can be followed (and with `meta`). */
  readonly live?: boolean | undefined
}

/**
 * The page on screen: which list and page it answers, and the keys of records new to the list
 * since it was read (`epoch`: the list, and how often it was read anew by the feed or the user).
 */
interface Answered {
  readonly page: string
  readonly answer: ListAnswer
  readonly fresh: ReadonlySet<string>
  readonly epoch: string
}

/**
 * A to-one relation shown in place of its field: its name, target, the paths its title needs, and
 * the path that sorts it by what it shows (its title's first sortable field).
 */
interface Shown { readonly name: string, readonly target: string, readonly paths: readonly string[], readonly sort: string | undefined }

function relationsShown (meta: Meta | undefined, resource: string, columns: readonly string[]): ReadonlyMap<string, Shown> {
  const shown = new Map<string, Shown>()
  for (const [name, relation] of Object.entries(meta?.resources[resource]?.relations ?? {})) {
    const target = meta?.resources[relation.resource]
    if (relation.kind !== 'one' || target === undefined || !columns.includes(relation.field)) continue
    const titled = titleFieldsOf(meta!, relation.resource)
    const fields = [...new Set([...target.key, ...titled])]
    const sort = titled.find((field) => target.fields[field]?.sortable === true)
    shown.set(relation.field, { name, target: relation.resource, paths: fields.map((field) => `${name}.${field}`), sort: sort === undefined ? undefined : `${name}.${sort}` })
  }
  return shown
}

/** `field`, `field desc` or the opposite of the current order on that field. */
function nextOrder (current: string | undefined, field: string): string {
  const first = current?.split(',')[0]?.trim().split(/\s+/)
  return first?.[0] === field && first[1] !== 'desc' ? `${field} desc` : field
}

function sortOf (current: string | undefined, field: string): 'ascending' | 'descending' | undefined {
  const first = current?.split(',')[0]?.trim().split(/\s+/)
  if (first?.[0] !== field) return undefined
  return first[1] === 'desc' ? 'descending' : 'ascending'
}

export function RecordList ({ session, resource, columns, caption, sort, meta, filter, showDeleted, onSort, live }: RecordListProps) {
  // The tokens that led to each page before the open one; the open page's own is the last. They
  // belong to one list (a token is bound to its parameters): another list starts at its page 1.
  const [paging, setPaging] = useState<{ readonly list: string, readonly tokens: ReadonlyArray<string | undefined> }>({ list: '', tokens: [undefined] })
  // The open page's records, and which list and page they answer: until the next answer comes,
  // the last one stays on screen, but its token must not continue another list. Changes arrive
  // between renders, several at once: each applies to the page the last one left (`onScreen`).
  const [answered, setAnswered] = useState<Answered | undefined>()
  const onScreen = useRef<Answered | undefined>(undefined)
  const show = (next: Answered): void => { onScreen.current = next; setAnswered(next) }
  // The changes that came while the page was being read: its answer may predate them.
  const arriving = useRef<Change[] | undefined>(undefined)
  // How often the user asked for the new records (the list is read again each time).
  const [reloads, setReloads] = useState(0)
  const [error, setError] = useState<string | undefined>()
  const next = useRef<HTMLButtonElement>(null)
  const previous = useRef<HTMLButtonElement>(null)
  const table = useRef<HTMLDivElement>(null)
  const refocus = useRef(false)
  const model = meta?.resources[resource]
  const relations = relationsShown(meta, resource, columns)
  const marker = showDeleted === true ? model?.softDeleteField : undefined
  const extra = meta === undefined ? [] : [...model?.key ?? [], ...titleFieldsOf(meta, resource), ...marker === undefined ? [] : [marker]]
  const fields = [...new Set([...columns, ...extra, ...[...relations.values()].flatMap((shown) => shown.paths)])].join(',')
  const list = JSON.stringify([resource, fields, sort, filter, showDeleted])
  const tokens = paging.list === list ? paging.tokens : [undefined]
  const setTokens = (next: ReadonlyArray<string | undefined>): void => { setPaging({ list, tokens: next }) }
  const token = tokens[tokens.length - 1]
  const page = JSON.stringify([list, token])
  const answer = answered?.answer

  const keyOfItem = (item: Item): string => keyOf(item, model?.key ?? [])
  const applied = (on: Answered, change: Change): Answered => {
    const { page: after, reread } = applyChange({ items: on.answer.items, fresh: on.fresh }, change, keyOfItem, showDeleted === true)
    if (reread !== undefined) void readAgain(reread)
    return { ...on, answer: { ...on.answer, items: after.items }, fresh: after.fresh }
  }
  const follow = (change: Change): void => {
    if (arriving.current !== undefined) arriving.current.push(change)
    else if (onScreen.current !== undefined) show(applied(onScreen.current, change))
  }
  // A record deleted where deleted records are shown too: read as the list reads it, it is either
  // still shown (marked) or gone.
  const readAgain = async (key: string): Promise<void> => {
    const query = new URLSearchParams({ fields, show_deleted: 'true' })
    try {
      follow({ type: 'updated', key, record: await session.get<Item>(`${recordPath(resource, key)}?${query}`) })
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) follow({ type: 'left', key })
    }
  }
  const feed = useChanges(session, resource, live === true && model?.changes === true ? { filter, fields } : undefined, follow)
  const epoch = JSON.stringify([list, feed.round, reloads])

  useEffect(() => {
    if (feed.round === undefined) return
    let current = true
    const query = new URLSearchParams({ page_size: String(PAGE_SIZE), fields })
    if (sort !== undefined) query.set('order_by', sort)
    if (filter !== undefined && filter !== '') query.set('filter', filter)
    if (showDeleted === true) query.set('show_deleted', 'true')
    if (token !== undefined) query.set('page_token', token)
    arriving.current = []
    session.get<ListAnswer>(`${basePath}/${encodeURIComponent(resource)}?${query}`)
      .then((next) => {
        if (!current) return
        const before = onScreen.current
        let read: Answered = { page, answer: next, fresh: before?.epoch === epoch ? before.fresh : NONE, epoch }
        for (const change of arriving.current ?? []) read = applied(read, change)
        arriving.current = undefined
        show(read)
        setError(undefined)
      })
      .catch((err: unknown) => {
        if (!current) return
        arriving.current = undefined
        setError(err instanceof Error ? err.message : String(err))
      })
    return () => { current = false }
  }, [session, resource, fields, sort, filter, showDeleted, token, page, epoch])
  const fresh = answered?.epoch === epoch ? answered.fresh : NONE
  const showFresh = (): void => {
    if (answered !== undefined) show({ ...answered, fresh: NONE })
    setReloads(reloads + 1)
    setTokens([undefined])
    // The button goes with the notice: the focus goes to the records it brings.
    table.current?.focus()
  }

  const pageNumber = tokens.length
  // "Previous page" disabled under the keyboard's focus would drop focus to the page's start: it
  // goes to "Next page" once the first page's answer has enabled that.
  useEffect(() => {
    if (!refocus.current || next.current?.disabled === true) return
    if (previous.current?.disabled === true) next.current?.focus()
    refocus.current = false
  }, [pageNumber, answer])
  const nextToken = answered?.page === page ? answered.answer.next_page_token : undefined
  const numeric = (name: string): boolean => isNumeric(model?.fields[name]?.type ?? '') && !relations.has(name)
  const value = (item: Item, name: string) => {
    const shown = relations.get(name)
    if (shown === undefined) return textOf(model?.fields[name], item[name])
    const related = item[shown.name]
    if (related === null || typeof related !== 'object') return ''
    return <a href={recordHref(shown.target, related as Item, meta!.resources[shown.target]!.key)}>{titleOf(meta!, shown.target, related as Item)}</a>
  }
  const header = (name: string) => {
    const shown = relations.get(name)
    const label = labelOf(shown?.name ?? name)
    const key = shown !== undefined ? shown.sort : model?.fields[name]?.sortable === true ? name : undefined
    const sortable = onSort !== undefined && key !== undefined
    return (
      <th scope="col" key={name} class={numeric(name) ? 'num' : undefined} aria-sort={sortable ? sortOf(sort, key) : undefined}>
        {sortable ? <button type="button" class="sort" onClick={() => { onSort(nextOrder(sort, key)) }}>{label}</button> : label}
      </th>
    )
  }
  // The first column links to the record; where the view's title says more than that cell, the
  // link's name carries the title too (after the visible text, which stays its start).
  const row = (item: Item, i: number) => {
    const deleted = marker !== undefined && item[marker] !== null && item[marker] !== undefined
    const first = (name: string) => {
      const shown = value(item, name)
      if (model === undefined || meta === undefined || typeof shown !== 'string') return shown
      const title = titleOf(meta, resource, item)
      return <a href={recordHref(resource, item, model.key)}>{shown === '' ? '(empty)' : shown}{title !== shown && <span class="visually-hidden">: {title}</span>}</a>
    }
    return (
      <tr key={model === undefined ? i : keyOfItem(item)} class={deleted ? 'deleted' : undefined}>
        {columns.map((name, c) => (
          <td key={name} class={numeric(name) ? 'num' : undefined}>
            {c === 0 ? first(name) : value(item, name)}
            {c === 0 && deleted && <span class="deleted-mark"> (deleted)</span>}
          </td>
        ))}
      </tr>
    )
  }
  return (
    <section class="list" aria-label={caption}>
      {error !== undefined && <p class="error" role="alert">{error}</p>}
      {live === true && model?.changes === true && (
        <p class="live-notice" role="status">
          {fresh.size > 0 && <>{freshLabel(fresh.size)} — <button type="button" onClick={showFresh}>Show<span class="visually-hidden"> new records</span></button></>}
          {feed.stopped !== undefined && <>Live updates stopped. {feed.stopped}</>}
        </p>
      )}
      <div class="table-scroll" ref={table} tabIndex={0} role="region" aria-label={`${caption} table`}>
        <table>
          <caption>{caption}{answer?.total_size_estimate !== undefined && <span class="estimate"> · about {answer.total_size_estimate.toLocaleString()}</span>}</caption>
          <thead><tr>{columns.map(header)}</tr></thead>
          <tbody>
            {answer?.items.map(row)}
            {answer?.items.length === 0 && <tr><td colSpan={columns.length}>No records.</td></tr>}
          </tbody>
        </table>
      </div>
      <nav class="pager" aria-label={`${caption} pages`}>
        <button type="button" ref={previous} disabled={pageNumber === 1} onClick={() => { refocus.current = true; setTokens(tokens.slice(0, -1)) }}>Previous page</button>
        <span aria-live="polite">Page {pageNumber}</span>
        <button type="button" ref={next} disabled={nextToken === undefined || nextToken === ''} onClick={() => { setTokens([...tokens, nextToken]) }}>Next page</button>
      </nav>
    </section>
  )
}
