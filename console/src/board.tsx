// A view with `reorder` as cards in that field's order. Dragging a card onto another puts it there
// (pointer events, so a mouse, a pen and a finger on the grip all work); Move up and Move down do
// the same from the keyboard. Each move is saved as one :batchWrite of the cards whose position
// changed, each update guarded by its ETag; a refusal reloads the board and says why.
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks'
import { ApiError, basePath, type Session } from './api.js'
import { columnsOf, labelOf, type Meta } from './meta.js'
import { keyOf } from './route.js'
import { titleFieldsOf, titleOf } from './title.js'
import { moved, reorderOps, type Row } from './reorder.js'
import { displayOf } from './field-values.js'

/** A list answers at most 500 records a page; a board longer than that shows its first 500. */
const BOARD_SIZE = 500
/** How far a pointer moves before a press becomes a drag, in pixels. */
const DRAG_THRESHOLD = 4

interface ListAnswer { readonly items: readonly Row[], readonly next_page_token?: string }
interface BatchAnswer { readonly results: ReadonlyArray<{ readonly record: Row }> }

type Notice = { readonly kind: 'status' | 'alert', readonly text: string } | undefined

interface Drag { readonly from: number, readonly pointerId: number, readonly x: number, readonly y: number, active: boolean, over: number | undefined }

export interface BoardProps {
  readonly session: Session
  readonly meta: Meta
  readonly resource: string
  /** The view's `reorder` field. */
  readonly field: string
  readonly caption: string
}

export function Board ({ session, meta, resource, field, caption }: BoardProps) {
  const key = meta.resources[resource]?.key ?? []
  const titleFields = titleFieldsOf(meta, resource)
  const details = columnsOf(meta, resource).filter((name) => !titleFields.includes(name) && name !== field)
  const fields = [...new Set([...key, field, ...titleFields, ...details])].join(',')
  const [rows, setRows] = useState<readonly Row[] | undefined>()
  const [more, setMore] = useState(false)
  const [loads, setLoads] = useState(0)
  const [saving, setSaving] = useState(false)
  const [notice, setNotice] = useState<Notice>()
  const [drag, setDrag] = useState<Drag | undefined>()
  const focusAfter = useRef<{ readonly key: string, readonly direction: 'up' | 'down' } | undefined>(undefined)
  const list = useRef<HTMLOListElement>(null)

  useEffect(() => {
    let current = true
    const query = new URLSearchParams({ page_size: String(BOARD_SIZE), fields, order_by: [field, ...key].join(', ') })
    session.get<ListAnswer>(`${basePath}/${encodeURIComponent(resource)}?${query}`)
      .then((answer) => { if (current) { setRows(answer.items); setMore(answer.next_page_token !== undefined && answer.next_page_token !== '') } })
      .catch((err: unknown) => { if (current) setNotice({ kind: 'alert', text: err instanceof Error ? err.message : String(err) }) })
    return () => { current = false }
  }, [session, resource, fields, field, loads])

  // Preact moves the moved card's element, which drops its focus: put it back on the same button.
  useLayoutEffect(() => {
    const wanted = focusAfter.current
    if (wanted === undefined || list.current === null) return
    focusAfter.current = undefined
    const card = [...list.current.querySelectorAll<HTMLElement>('li[data-key]')].find((li) => li.dataset.key === wanted.key)
    const button = card?.querySelector<HTMLButtonElement>(`button[data-move=${wanted.direction}]`)
    const other = card?.querySelector<HTMLButtonElement>(`button[data-move=${wanted.direction === 'up' ? 'down' : 'up'}]`)
    ;(button?.disabled === false ? button : other)?.focus()
  }, [rows])

  const move = async (from: number, to: number): Promise<void> => {
    if (rows === undefined || saving || from === to || to < 0 || to >= rows.length) return
    const { ops, rows: next } = reorderOps(resource, key, field, rows, moved(rows, from, to))
    const title = titleOf(meta, resource, rows[from]!)
    const focus = focusAfter.current
    setRows(next)
    setSaving(true)
    setNotice({ kind: 'status', text: `Saving: ${title} to position ${to + 1} of ${rows.length}…` })
    try {
      const answer = await session.request<BatchAnswer>(`${basePath}:batchWrite`, { method: 'POST', body: { ops } })
      const saved = new Map(answer.body.results.map(({ record }) => [keyOf(record, key), record]))
      setRows(next.map((row) => saved.get(keyOf(row, key)) ?? row))
      setNotice({ kind: 'status', text: `Moved ${title} to position ${to + 1} of ${rows.length}.` })
    } catch (err) {
      const why = err instanceof ApiError && err.status === 412
        ? 'Someone changed these cards since they were loaded, so the move was not saved.'
        : `The move was not saved: ${err instanceof Error ? err.message : String(err)}`
      setNotice({ kind: 'alert', text: `${why} The board has been reloaded; try again.` })
      // The reloaded board gets the focus back on the card that was moved.
      focusAfter.current = focus
      setRows(undefined)
      setLoads((n) => n + 1)
    } finally {
      setSaving(false)
    }
  }

  const step = (index: number, direction: 'up' | 'down'): void => {
    const row = rows?.[index]
    if (row !== undefined) focusAfter.current = { key: keyOf(row, key), direction }
    void move(index, direction === 'up' ? index - 1 : index + 1)
  }

  const indexAt = (x: number, y: number): number | undefined => {
    const card = document.elementFromPoint(x, y)?.closest<HTMLElement>('li[data-index]')
    return card === null || card === undefined || !list.current?.contains(card) ? undefined : Number(card.dataset.index)
  }

  const onPointerDown = (event: PointerEvent, index: number): void => {
    if (event.button !== 0 || saving || (event.target as Element).closest('button') !== null) return
    event.preventDefault()
    ;(event.currentTarget as HTMLElement).setPointerCapture(event.pointerId)
    setDrag({ from: index, pointerId: event.pointerId, x: event.clientX, y: event.clientY, active: false, over: undefined })
  }
  const onPointerMove = (event: PointerEvent): void => {
    if (drag === undefined || event.pointerId !== drag.pointerId) return
    const active = drag.active || Math.hypot(event.clientX - drag.x, event.clientY - drag.y) > DRAG_THRESHOLD
    const over = active ? indexAt(event.clientX, event.clientY) : undefined
    if (active !== drag.active || over !== drag.over) setDrag({ ...drag, active, over })
  }
  const onPointerUp = (event: PointerEvent): void => {
    if (drag === undefined || event.pointerId !== drag.pointerId) return
    setDrag(undefined)
    const to = drag.active ? indexAt(event.clientX, event.clientY) : undefined
    if (to !== undefined) void move(drag.from, to)
  }

  const helpId = `board-help-${resource}`
  return (
    <section class="board" aria-label={caption}>
      <p id={helpId} class="board-help">Drag a card onto another to move it there, or use its Move up and Move down buttons. Each move is saved at once.</p>
      {notice !== undefined && <p class={notice.kind === 'alert' ? 'error' : 'board-status'} role={notice.kind}>{notice.text}</p>}
      {rows === undefined && notice?.kind !== 'alert' && <p>Loading the cards…</p>}
      {rows?.length === 0 && <p>No records.</p>}
      {rows !== undefined && rows.length > 0 && (
        <ol class="cards" ref={list} aria-describedby={helpId} aria-busy={saving}>
          {rows.map((row, i) => {
            const title = titleOf(meta, resource, row)
            const classes = ['card', drag?.active === true && drag.from === i ? 'dragging' : '', drag?.active === true && drag.over === i && drag.from !== i ? 'drop-target' : ''].filter((c) => c !== '').join(' ')
            return (
              <li key={keyOf(row, key)} class={classes} data-index={i} data-key={keyOf(row, key)}
                onPointerDown={(event) => { onPointerDown(event, i) }} onPointerMove={onPointerMove} onPointerUp={onPointerUp} onPointerCancel={() => { setDrag(undefined) }}>
                <span class="grip" aria-hidden="true">⋮⋮</span>
                <span class="card-position">{i + 1}</span>
                <div class="card-body">
                  <strong class="card-title">{title}</strong>
                  {details.length > 0 && <dl>{details.map((name) => <div key={name}><dt>{labelOf(name)}</dt><dd>{displayOf(meta.resources[resource]?.fields[name], row[name])}</dd></div>)}</dl>}
                </div>
                <div class="card-moves">
                  <button type="button" data-move="up" aria-label={`Move ${title} up`} disabled={i === 0} onClick={() => { step(i, 'up') }}>↑</button>
                  <button type="button" data-move="down" aria-label={`Move ${title} down`} disabled={i === rows.length - 1} onClick={() => { step(i, 'down') }}>↓</button>
                </div>
              </li>
            )
          })}
        </ol>
      )}
      {more && <p>The first {BOARD_SIZE} cards are shown; the rest come after them in this order.</p>}
    </section>
  )
}
