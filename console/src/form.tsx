// A create or edit form typed from the caller's restricted model. It keeps what the user typed
// whatever the server answers; an edit sends only the fields that changed. Errors (its own check
// first, then the server's 400 `errors`) show on their fields; those naming no field of the form
// show above it, in an alert.
import type { ComponentChildren } from 'preact'
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks'
import type { FieldMeta } from './meta.js'
import { FieldInput } from './field.js'
import { createInputOf, inputOf, valueOf, type Input } from './field-values.js'
import { holdHistory } from './history.js'

export type FieldErrors = Readonly<Record<string, string>>

export interface RecordFormProps {
  readonly mode: 'create' | 'update'
  /** The fields the form offers, in rows (the view's layout). */
  readonly rows: ReadonlyArray<readonly string[]>
  readonly fields: Readonly<Record<string, FieldMeta>>
  /** The record being edited; none for a create. */
  readonly record?: Readonly<Record<string, unknown>> | undefined
  readonly serverErrors: FieldErrors
  /** A failure that is not about one field. */
  readonly message?: string | undefined
  readonly busy: boolean
  readonly submitLabel: string
  /** The form's name for assistive technology ("Edit Printer jams"). */
  readonly label: string
  readonly onSubmit: (changes: Readonly<Record<string, unknown>>) => void
  readonly onCancel?: (() => void) | undefined
  /** A field's picker (a reference's), given its input and how to change it; undefined for none. */
  readonly picker?: ((name: string, input: Input, onInput: (input: Input) => void) => ComponentChildren) | undefined
}

export function RecordForm ({ mode, rows, fields, record, serverErrors, message, busy, submitLabel, label, onSubmit, onCancel, picker }: RecordFormProps) {
  const names = useMemo(() => rows.flat(), [rows])
  const initial = useMemo(() => Object.fromEntries(names.map((name) => {
    const field = fields[name]!
    return [name, mode === 'create' ? createInputOf(field) : inputOf(field, record?.[name])]
  })), [names, fields, record, mode])
  const [inputs, setInputs] = useState<Readonly<Record<string, Input>>>(initial)
  const [errors, setErrors] = useState<FieldErrors>({})
  // Number inputs whose text the browser cannot read: their value is '', which must not pass for "cleared".
  const [unreadable, setUnreadable] = useState<ReadonlySet<string>>(new Set())
  const form = useRef<HTMLFormElement>(null)
  // Where a link, Back or Forward would have taken the user while the form held changes (a history
  // move as its delta): they choose Stay or Leave.
  const [leaving, setLeaving] = useState<{ readonly to: string, readonly delta?: number } | undefined>()
  const stay = useRef<HTMLButtonElement>(null)
  const releaseHistory = useRef<() => void>(undefined)
  const dirty = names.some((name) => inputs[name] !== initial[name])

  // Every screen change from the user is a click on a `#/` link (the menu, the crumbs, a record's
  // links), Back or Forward, or a reload or close: all are held while the form has unsaved
  // changes, from the render that made it so (a layout effect: a plain one waits for the next
  // frame, and a Back pressed before it would pass).
  useLayoutEffect(() => {
    if (!dirty) return
    const click = (event: MouseEvent): void => {
      if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return
      const link = event.target instanceof Element ? event.target.closest('a[href^="#/"]') : null
      if (link === null) return
      event.preventDefault()
      setLeaving({ to: link.getAttribute('href') ?? '#/' })
    }
    const unload = (event: BeforeUnloadEvent): void => { event.preventDefault() }
    document.addEventListener('click', click, true)
    addEventListener('beforeunload', unload)
    const release = holdHistory(setLeaving)
    releaseHistory.current = release
    return () => {
      document.removeEventListener('click', click, true)
      removeEventListener('beforeunload', unload)
      release()
    }
  }, [dirty])
  const leave = (): void => {
    if (leaving === undefined) return
    releaseHistory.current?.()
    if (leaving.delta === undefined) location.hash = leaving.to
    else history.go(leaving.delta)
  }
  useEffect(() => { if (leaving !== undefined) stay.current?.focus() }, [leaving])

  // A server's answer replaces the form's own errors; focus goes to the first field it names.
  useEffect(() => {
    setErrors(serverErrors)
    const first = names.find((name) => name in serverErrors)
    if (first !== undefined) form.current?.querySelector<HTMLElement>(`#field-${first}`)?.focus()
  }, [serverErrors, names])

  const submit = (event: Event): void => {
    event.preventDefault()
    const changes: Record<string, unknown> = {}
    const found: Record<string, string> = {}
    for (const name of names) {
      const input = inputs[name]!
      if (unreadable.has(name)) {
        found[name] = 'Must be a number.'
        continue
      }
      // An edit sends what changed; a create what was filled in (the rest takes its default).
      if (mode === 'update' ? input === initial[name] : input === '' && fields[name]!.required !== true) continue
      const parsed = valueOf(fields[name]!, input)
      if ('error' in parsed) found[name] = parsed.error
      else changes[name] = parsed.value
    }
    setErrors(found)
    const first = names.find((name) => name in found)
    if (first !== undefined) {
      form.current?.querySelector<HTMLElement>(`#field-${first}`)?.focus()
      return
    }
    onSubmit(changes)
  }
  const elsewhere = Object.entries(serverErrors).filter(([name]) => !names.includes(name))

  return (
    <form ref={form} class="record-form" aria-label={label} noValidate onSubmit={submit}>
      {leaving !== undefined && (
        <div class="unsaved" role="alert">
          <p>You have unsaved changes.</p>
          <button type="button" ref={stay} class="primary" onClick={() => {
            setLeaving(undefined)
            form.current?.querySelector<HTMLElement>('[id^=field-]')?.focus()
          }}>Stay</button>
          <button type="button" onClick={leave}>Leave</button>
        </div>
      )}
      {(message !== undefined || elsewhere.length > 0) && (
        <div class="error" role="alert">
          {message !== undefined && <p>{message}</p>}
          {elsewhere.length > 0 && <ul>{elsewhere.map(([name, text]) => <li key={name}>{text}</li>)}</ul>}
        </div>
      )}
      {rows.map((row) => (
        <div class="layout-row" key={row.join()}>
          {row.map((name) => {
            const change = (input: Input, bad = false): void => {
              setInputs({ ...inputs, [name]: input })
              if (bad !== unreadable.has(name)) setUnreadable(new Set([...unreadable].filter((other) => other !== name).concat(bad ? [name] : [])))
              if (name in errors) setErrors(Object.fromEntries(Object.entries(errors).filter(([other]) => other !== name)))
            }
            const extra = picker?.(name, inputs[name]!, change)
            return (
              <FieldInput key={name} name={name} field={fields[name]!} input={inputs[name]!} error={errors[name]} onInput={change}
                describedBy={extra === undefined ? undefined : `pick-${name}-title`}>{extra}</FieldInput>
            )
          })}
        </div>
      ))}
      <div class="actions">
        <button type="submit" class="primary" disabled={busy}>{submitLabel}</button>
        {onCancel !== undefined && <button type="button" onClick={onCancel}>Cancel</button>}
      </div>
    </form>
  )
}
