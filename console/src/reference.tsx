// A to-one relation's field in a form: the id input stays (an id can still be typed), with the
// chosen record's title beside it and a "Choose" panel that lists the related records by title,
// found by the target's search where it has searchable fields, a page at a time. Only relations
// in /api/meta (those the caller can follow) get one, so the list holds only rows they can read.
import { useEffect, useRef, useState } from 'preact/hooks'
import { basePath, type Session } from './api.js'
import { labelOf, type Meta } from './meta.js'
import { titleFieldsOf, titleOf } from './title.js'
import { textOf, type Input } from './field-values.js'
import { toOneOf } from './record-relations.js'
import { quoted } from './list-state.js'

const PICK_SIZE = 10

type Row = Readonly<Record<string, unknown>>

interface Found { readonly items: readonly Row[], readonly next: string | undefined }

export interface ReferenceProps {
  readonly session: Session
  readonly meta: Meta
  /** The form field (`customer_id`), the relation's name (`customer`) and its target resource. */
  readonly field: string
  readonly relation: string
  readonly target: string
  readonly input: Input
  /** The related record as the form's record embeds it, if any. */
  readonly related?: Row | undefined
  readonly onInput: (input: Input) => void
}

export function Reference ({ session, meta, field, relation, target, input, related, onInput }: ReferenceProps) {
  const model = meta.resources[target]
  const key = model?.key[0] ?? 'id'
  const titled = titleFieldsOf(meta, target)
  const searchable = Object.values(model?.fields ?? {}).some((f) => f.searchable === true)
  // Sorted by what the title shows, the key breaking ties: a title made of the key alone needs no
  // order_by, and no key field is named twice in it (the API refuses that).
  const order = titled.find((name) => model?.key.includes(name) !== true && model?.fields[name]?.sortable === true)
  const [chosen, setChosen] = useState<{ readonly id: string, readonly title: string } | undefined>(
    related === undefined ? undefined : { id: textOf(model?.fields[key], related[key]), title: titleOf(meta, target, related) })
  const [open, setOpen] = useState(false)
  const [query, setQuery] = useState('')
  const [asked, setAsked] = useState<{ readonly text: string, readonly token: string | undefined } | undefined>()
  const [found, setFound] = useState<Found | undefined>()
  const [error, setError] = useState<string | undefined>()
  const options = useRef<HTMLUListElement>(null)
  // After More, the focus goes to the first record it brought (the button may be gone).
  const focusAt = useRef<number | undefined>(undefined)
  const id = `pick-${field}`
  const name = labelOf(relation).toLowerCase()

  useEffect(() => {
    if (asked === undefined || model === undefined) return
    let current = true
    const params = new URLSearchParams({ page_size: String(PICK_SIZE), fields: [...new Set([key, ...titled])].join(',') })
    if (asked.text !== '') params.set('filter', `search(${quoted(asked.text)})`)
    if (order !== undefined) params.set('order_by', `${order}, ${key}`)
    if (asked.token !== undefined) params.set('page_token', asked.token)
    session.get<{ items: readonly Row[], next_page_token?: string }>(`${basePath}/${encodeURIComponent(target)}?${params}`)
      .then((answer) => {
        if (!current) return
        const next = answer.next_page_token === '' ? undefined : answer.next_page_token
        setFound((before) => ({ items: asked.token === undefined ? answer.items : [...before?.items ?? [], ...answer.items], next }))
        setError(undefined)
      })
      .catch((err: unknown) => { if (current) setError(err instanceof Error ? err.message : String(err)) })
    return () => { current = false }
  }, [session, target, asked, key, order, titled.join()])
  useEffect(() => {
    if (focusAt.current === undefined || found === undefined) return
    options.current?.querySelectorAll('button')[focusAt.current]?.focus()
    focusAt.current = undefined
  }, [found])

  const toggle = (): void => {
    if (!open && asked === undefined) setAsked({ text: '', token: undefined })
    setOpen(!open)
  }
  const find = (): void => { setAsked({ text: query.trim(), token: undefined }) }
  const choose = (row: Row): void => {
    const value = textOf(model?.fields[key], row[key])
    setChosen({ id: value, title: titleOf(meta, target, row) })
    onInput(value)
    setOpen(false)
    document.getElementById(`field-${field}`)?.focus()
  }
  // The title shows while the input holds the record it names; a typed id has none to show.
  const title = chosen !== undefined && chosen.id === input ? chosen.title : undefined

  return (
    <div class="reference">
      <span class="reference-title" id={`${id}-title`} aria-live="polite">{title === undefined ? '' : title}</span>
      <button type="button" class="reference-open" aria-expanded={open} aria-controls={`${id}-panel`} onClick={toggle}>
        {`Choose ${name}`}
      </button>
      <div id={`${id}-panel`} class="reference-panel" role="group" aria-label={`Choose ${name}`} hidden={!open}>
        {searchable && (
          <div class="reference-search">
            <label for={id}>Find {name}</label>
            <input id={id} type="search" value={query}
              onInput={(event) => { setQuery((event.currentTarget as HTMLInputElement).value) }}
              // Enter finds rather than submitting the form the picker sits in.
              onKeyDown={(event) => { if (event.key === 'Enter') { event.preventDefault(); find() } }} />
            <button type="button" onClick={find}>Find</button>
          </div>
        )}
        {error !== undefined && <p class="error" role="alert">{error}</p>}
        {found !== undefined && (found.items.length === 0
          ? <p role="status">No {labelOf(target).toLowerCase()} found.</p>
          : (
            <ul class="reference-options" ref={options} aria-label={`${labelOf(target)} found`}>
              {found.items.map((row) => {
                const value = textOf(model?.fields[key], row[key])
                return <li key={value}><button type="button" aria-pressed={value === input} onClick={() => { choose(row) }}>{titleOf(meta, target, row)}</button></li>
              })}
            </ul>
          ))}
        {found?.next !== undefined && <button type="button" onClick={() => { focusAt.current = found.items.length; setAsked({ text: asked?.text ?? '', token: found.next }) }}>{`More ${labelOf(target).toLowerCase()}`}</button>}
      </div>
    </div>
  )
}

/** The form's `picker`: a Reference for each to-one relation's field of `resource`. */
export function pickerOf (session: Session, meta: Meta, resource: string, record?: Row) {
  return (field: string, input: Input, onInput: (input: Input) => void) => {
    const relation = toOneOf(meta, resource, field)
    if (relation === undefined || meta.resources[relation.target]?.key.length !== 1) return undefined
    const related = record?.[relation.name]
    return <Reference session={session} meta={meta} field={field} relation={relation.name} target={relation.target} input={input}
      related={related !== null && typeof related === 'object' ? related as Row : undefined} onInput={onInput} />
  }
}
