// One record (`#/r/<res>/k/<key>`): its fields in the view's layout, its relations, and what the
// caller may do with it, as the record's own `permissions` say (the resource's, where the answer
// carries none). Every write sends the ETag it was read at: a 412 shows the record as it is now
// beside the user's changes; a soft delete offers Undo, and a deleted record Restore; a delete for
// good (a resource without soft delete) asks first, then returns to the list. Where the resource's
// changes can be followed, the screen follows this record's: someone else's save shows in place,
// or, while the user edits, as a warning with their version to load (record-news.tsx).
import { useCallback, useEffect, useRef, useState } from 'preact/hooks'
import { ApiError, type Session } from './api.js'
import { labelOf, type Meta, type ResourceMeta } from './meta.js'
import { titleOf } from './title.js'
import { displayOf, isNumeric } from './field-values.js'
import { RecordForm } from './form.js'
import { Conflict } from './conflict.js'
import { Toast, flash, takeFlash, type ToastMessage } from './toast.js'
import { ConfirmDelete } from './confirm-delete.js'
import { RelatedLink, RelatedList, toOneOf } from './record-relations.js'
import { pickerOf } from './reference.js'
import { maskOf, recordPath, refusalOf, rowsOf, type Refusal, type Row } from './record-model.js'
import type { Change } from './change.js'
import { isNews, keyFilter, newsOf, type Version } from './live-record.js'
import { useChanges } from './live.js'
import { RecordNews, type News } from './record-news.js'

interface Loaded {
  readonly record: Row
  readonly deleted: boolean
}

type Mode =
  | { readonly kind: 'view' }
  | { readonly kind: 'edit', readonly refusal: Refusal }
  | { readonly kind: 'conflict', readonly mine: Row, readonly theirs: Loaded }
  | { readonly kind: 'confirm-delete' }

interface RecordPermissions { readonly update?: boolean, readonly delete?: boolean, readonly fields?: Readonly<Record<string, 'edit' | 'read'>> }

const NO_REFUSAL: Refusal = { fieldErrors: {} }

/**
 * The record, deleted or not where the caller may see deleted records. Where the caller reads the
 * soft-delete field, one read with show_deleted tells both apart; where they do not, only a 404
 * can say the record is deleted, so the read is tried without show_deleted first.
 */
async function fetchRecord (session: Session, meta: Meta, resource: string, key: string): Promise<Loaded> {
  const path = `${recordPath(resource, key)}?fields=${encodeURIComponent(maskOf(meta, resource))}`
  const model = meta.resources[resource]
  const mayShowDeleted = meta.permissions?.[resource]?.showDeleted === true && model?.softDelete === true
  const marker = model?.softDeleteField
  if (mayShowDeleted && marker !== undefined) {
    const record = await session.get<Row>(`${path}&show_deleted=true`)
    return { record, deleted: record[marker] !== null && record[marker] !== undefined }
  }
  try {
    return { record: await session.get<Row>(path), deleted: false }
  } catch (err) {
    if (!(err instanceof ApiError) || err.status !== 404 || !mayShowDeleted) throw err
    return { record: await session.get<Row>(`${path}&show_deleted=true`), deleted: true }
  }
}

function versionOf ({ record, deleted }: Loaded): Version {
  return { etag: record.etag, deleted }
}

function FieldValue ({ meta, resource, model, name, record }: { readonly meta: Meta, readonly resource: string, readonly model: ResourceMeta, readonly name: string, readonly record: Row }) {
  const field = model.fields[name]
  const relation = toOneOf(meta, resource, name)
  const related = relation === undefined ? undefined : record[relation.name]
  if (relation !== undefined && related !== null && typeof related === 'object') return <RelatedLink meta={meta} target={relation.target} record={related as Row} />
  const text = displayOf(field, record[name])
  if (field?.type === 'json' && record[name] !== null) return <pre>{text}</pre>
  return <span class={isNumeric(field) ? 'num' : undefined}>{text}</span>
}

export function RecordScreen ({ session, meta, resource, recordKey }: { readonly session: Session, readonly meta: Meta, readonly resource: string, readonly recordKey: string }) {
  const model = meta.resources[resource]!
  const resourcePermissions = meta.permissions?.[resource]
  const [loaded, setLoaded] = useState<Loaded | undefined>()
  const [failure, setFailure] = useState<string | undefined>()
  const [mode, setMode] = useState<Mode>({ kind: 'view' })
  const [busy, setBusy] = useState(false)
  const [toast, setToast] = useState<ToastMessage | undefined>()
  const [news, setNews] = useState<News<Loaded> | undefined>()
  const heading = useRef<HTMLHeadingElement>(null)
  // What the feed's changes are weighed against: the record on screen, every ETag the screen has
  // shown or read (its own writes' included), the mode as of the last render, and the write under
  // way, whose own change must not pass for someone else's.
  const onScreen = useRef<Loaded | undefined>(undefined)
  const seen = useRef(new Set<unknown>())
  const modeNow = useRef(mode)
  modeNow.current = mode
  const writing = useRef<Promise<void>>(Promise.resolve())
  const looks = useRef<Promise<void>>(Promise.resolve())

  /** Shows a version of the record read (or written): news older than it is moot. */
  const show = useCallback((next: Loaded): void => {
    seen.current.add(next.record.etag)
    onScreen.current = next
    setLoaded(next)
    setNews(undefined)
  }, [])
  /** Marks the start of a write (busy); the function it returns marks its end. */
  const begin = useCallback((): () => void => {
    setBusy(true)
    let end: () => void = () => {}
    writing.current = new Promise((resolve) => { end = resolve })
    return () => { setBusy(false); end() }
  }, [])

  const filter = model.changes === true ? keyFilter(model.key, model.fields, recordKey) : undefined
  const feed = useChanges(session, resource, filter === undefined ? undefined : { filter, fields: model.key.join(',') }, (change) => { look(change) })
  const started = feed.round !== undefined

  useEffect(() => {
    if (!started) return
    let current = true
    setLoaded(undefined)
    onScreen.current = undefined
    seen.current = new Set()
    setNews(undefined)
    setMode({ kind: 'view' })
    setToast(undefined)
    fetchRecord(session, meta, resource, recordKey)
      .then((next) => { if (current) { show(next); setFailure(undefined); setToast(takeFlash()) } })
      .catch((err: unknown) => { if (current) setFailure(err instanceof ApiError && err.status === 404 ? 'There is no such record, or it is not yours to see.' : err instanceof Error ? err.message : String(err)) })
    return () => { current = false }
  }, [session, meta, resource, recordKey, started, show])

  /**
   * Reads the record after a change (or after the feed started anew, which may have missed some)
   * and tells what it finds that the screen does not show: in place where the user only reads it,
   * as news while they edit it. One look at a time, each after the write under way.
   */
  const look = (change?: Change): void => {
    looks.current = looks.current.then(async () => {
      await writing.current
      const shown = onScreen.current
      if (shown === undefined || (change !== undefined && !isNews(change, versionOf(shown), seen.current))) return
      const now = await fetchRecord(session, meta, resource, recordKey).catch((err: unknown) => {
        if (err instanceof ApiError && err.status === 404) return undefined
        throw err
      })
      const verdict = newsOf(now === undefined ? undefined : versionOf(now), versionOf(shown), seen.current)
      if (verdict === 'known') return
      if (now === undefined) setNews({ kind: 'gone', deleted: change?.type === 'deleted' })
      // The user's changes (in the form, or weighed in a conflict) stay until they choose.
      else if (modeNow.current.kind === 'edit' || modeNow.current.kind === 'conflict') setNews({ kind: verdict === 'deleted' ? 'deleted' : 'saved', theirs: now })
      else {
        show(now)
        if (modeNow.current.kind !== 'view') setMode({ kind: 'view' })
        setToast({ text: verdict === 'deleted' ? 'Someone else deleted this record.' : 'Someone else saved this record: it is shown as it is now.' })
      }
    }).catch(() => {})
  }
  useEffect(() => { if (feed.round !== undefined && feed.round > 1) look() }, [feed.round])

  /** Their version, loaded over the user's changes. */
  const loadTheirs = (theirs: Loaded): void => {
    show(theirs)
    setMode({ kind: 'view' })
    setToast({ text: 'Their version is shown: your changes were dropped.' })
    heading.current?.focus()
  }
  /** The form closed: a version someone else saved meanwhile is shown now. */
  const cancel = (): void => {
    setMode({ kind: 'view' })
    if (news === undefined || news.kind === 'gone') return
    show(news.theirs)
    setToast({ text: 'Someone else saved this record: it is shown as it is now.' })
  }

  const path = recordPath(resource, recordKey)
  // A write's answer carries no `permissions` (and no to-many embeds), and a write can change
  // them (a ticket closed is no longer the agent's to edit): the record is read again after it.
  const reread = useCallback(async (done: string): Promise<void> => {
    const next = await fetchRecord(session, meta, resource, recordKey).catch(() => undefined)
    if (next === undefined) {
      setFailure(`${done} The record is no longer one you can see.`)
      return
    }
    show(next)
    setMode({ kind: 'view' })
    setToast({ text: done })
    heading.current?.focus()
  }, [session, meta, resource, recordKey, show])

  const save = useCallback(async (changes: Row, over: Loaded): Promise<void> => {
    if (Object.keys(changes).length === 0) {
      setMode({ kind: 'view' })
      return
    }
    const end = begin()
    try {
      await session.request(path, { method: 'PATCH', body: changes, headers: { 'if-match': String(over.record.etag), prefer: 'return=minimal' } })
      await reread('Saved.')
    } catch (err) {
      if (err instanceof ApiError && err.status === 412) {
        const theirs = await fetchRecord(session, meta, resource, recordKey).catch(() => undefined)
        if (theirs === undefined || theirs.deleted) {
          if (theirs !== undefined) show(theirs)
          setMode({ kind: 'view' })
          setToast({ text: 'Your changes were not saved: this record was deleted or moved out of your reach meanwhile.', error: true })
        } else {
          seen.current.add(theirs.record.etag)
          setNews(undefined)
          setMode({ kind: 'conflict', mine: changes, theirs })
        }
      } else {
        setMode({ kind: 'edit', refusal: refusalOf(err) })
      }
    } finally {
      end()
    }
  }, [session, meta, resource, recordKey, path, reread, begin, show])

  const restore = useCallback(async (): Promise<void> => {
    const end = begin()
    try {
      await session.request(`${path}:undelete`, { method: 'POST' })
      await reread('Restored.')
    } catch (err) {
      setToast({ text: `Not restored: ${err instanceof Error ? err.message : String(err)}`, error: true })
    } finally {
      end()
    }
  }, [session, path, reread, begin])

  const remove = useCallback(async (current: Loaded, title: string): Promise<void> => {
    const end = begin()
    try {
      await session.request(path, { method: 'DELETE', headers: { 'if-match': String(current.record.etag) } })
      if (model.softDelete === true) {
        show({ record: current.record, deleted: true })
        setToast({ text: 'Deleted.', action: { label: 'Undo', run: () => { void restore() } }, focusAction: true })
      } else {
        flash({ text: `Deleted ${title}.` })
        location.hash = `#/r/${encodeURIComponent(resource)}`
      }
    } catch (err) {
      setMode({ kind: 'view' })
      if (err instanceof ApiError && err.status === 412) {
        const now = await fetchRecord(session, meta, resource, recordKey).catch(() => undefined)
        if (now !== undefined) show(now)
        setToast({ text: 'Not deleted: the record changed after you opened it. It is shown as it is now.', error: true })
      } else {
        setToast({ text: `Not deleted: ${err instanceof Error ? err.message : String(err)}`, error: true })
      }
    } finally {
      end()
    }
  }, [session, meta, model, resource, recordKey, path, restore, begin, show])

  if (failure !== undefined) return <><h1>{labelOf(resource)}</h1><p class="error" role="alert">{failure}</p></>
  if (loaded === undefined) return <p>Loading…</p>

  // During a conflict the record shown is the one the user's changes are weighed against.
  const { record, deleted } = mode.kind === 'conflict' ? mode.theirs : loaded
  const own = record.permissions as RecordPermissions | undefined
  // A record gone from the caller's reach can no longer be changed by them.
  const gone = news?.kind === 'gone'
  const canUpdate = !deleted && !gone && (own?.update ?? resourcePermissions?.update ?? false)
  const canDelete = !deleted && !gone && (own?.delete ?? resourcePermissions?.delete ?? false)
  const canRestore = deleted && !gone && resourcePermissions?.delete === true
  const names = Object.keys(model.fields)
  const editable = names.filter((name) => own?.fields?.[name] !== undefined ? own.fields[name] === 'edit' : model.fields[name]!.readOnly !== true)
  const manys = Object.entries(model.relations ?? {}).flatMap(([name, relation]) => relation.kind === 'many' ? [{ name, relation }] : [])
  const title = titleOf(meta, resource, record)

  return (
    <article class="record">
      <p class="crumbs"><a href={`#/r/${encodeURIComponent(resource)}`}>{labelOf(resource)}</a></p>
      <h1 ref={heading} tabIndex={-1}>{title}{deleted && <span class="badge"> (deleted)</span>}</h1>
      <Toast message={toast} />
      {news !== undefined && <RecordNews news={news} onLoad={loadTheirs} />}
      {feed.stopped !== undefined && <p class="live-notice" role="status">Live updates stopped. {feed.stopped}</p>}
      {mode.kind === 'view' && (
        <div class="actions">
          {canUpdate && <button type="button" class="primary" onClick={() => { setToast(undefined); setMode({ kind: 'edit', refusal: NO_REFUSAL }) }}>Edit</button>}
          {canDelete && <button type="button" disabled={busy} onClick={() => {
            setToast(undefined)
            if (model.softDelete === true) void remove(loaded, title)
            else setMode({ kind: 'confirm-delete' })
          }}>Delete</button>}
          {canRestore && toast?.action === undefined && <button type="button" disabled={busy} onClick={() => { void restore() }}>Restore</button>}
        </div>
      )}
      {mode.kind === 'confirm-delete' && (
        <ConfirmDelete title={title} busy={busy} onConfirm={() => { void remove(loaded, title) }} onCancel={() => { setMode({ kind: 'view' }) }} />
      )}
      {mode.kind === 'edit' && (
        <RecordForm mode="update" rows={rowsOf(meta, resource, editable)} fields={model.fields} record={record}
          serverErrors={mode.refusal.fieldErrors} message={mode.refusal.message} busy={busy} submitLabel="Save" label={`Edit ${title}`} picker={pickerOf(session, meta, resource, record)}
          onSubmit={(changes) => { void save(changes, loaded) }} onCancel={cancel} />
      )}
      {mode.kind === 'conflict' && (
        <Conflict fields={model.fields} mine={mode.mine} theirs={mode.theirs.record} busy={busy}
          onReload={() => { show(mode.theirs); setMode({ kind: 'view' }); setToast({ text: 'Reloaded: your changes were dropped.' }) }}
          onReapply={() => { show(mode.theirs); void save(mode.mine, mode.theirs) }} />
      )}
      {mode.kind !== 'edit' && rowsOf(meta, resource, names).map((row) => (
        <dl class="layout-row" key={row.join()}>
          {row.map((name) => <div class="field" key={name}><dt>{labelOf(toOneOf(meta, resource, name)?.name ?? name)}</dt><dd><FieldValue meta={meta} resource={resource} model={model} name={name} record={record} /></dd></div>)}
        </dl>
      ))}
      {manys.map(({ name, relation }) => (
        <RelatedList key={name} meta={meta} name={name} relation={relation} parent={record[model.key[0]!]} page={record[name] as Parameters<typeof RelatedList>[0]['page']} />
      ))}
    </article>
  )
}
