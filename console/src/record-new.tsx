// The create form (`#/r/<res>/new`): the fields a create may set (a field set once, on create,
// included; read-only ones left to their defaults), in the view's layout. A created record opens
// on its own screen.
import { useState } from 'preact/hooks'
import type { Session } from './api.js'
import { labelOf, type FieldMeta, type Meta } from './meta.js'
import { hrefOf, recordHref } from './route.js'
import { RecordForm } from './form.js'
import { flash } from './toast.js'
import { pickerOf } from './reference.js'
import { collectionPath, refusalOf, rowsOf, type Refusal, type Row } from './record-model.js'

function settableOnCreate (field: FieldMeta): boolean {
  return (field.readOnlyOnCreate ?? field.readOnly) !== true
}

export function NewRecord ({ session, meta, resource }: { readonly session: Session, readonly meta: Meta, readonly resource: string }) {
  const model = meta.resources[resource]!
  const [busy, setBusy] = useState(false)
  const [refusal, setRefusal] = useState<Refusal>({ fieldErrors: {} })
  const list = hrefOf({ kind: 'resource', name: resource, query: new URLSearchParams() })
  const names = Object.entries(model.fields).filter(([, field]) => settableOnCreate(field)).map(([name]) => name)

  const create = async (values: Row): Promise<void> => {
    setBusy(true)
    try {
      // The key fields alone: the record's screen reads the rest.
      const answer = await session.request<Row>(`${collectionPath(resource)}?fields=${encodeURIComponent(model.key.join(','))}`, { method: 'POST', body: values })
      flash({ text: 'Created.' })
      location.hash = recordHref(resource, answer.body, model.key)
    } catch (err) {
      setRefusal(refusalOf(err))
    } finally {
      setBusy(false)
    }
  }

  return (
    <article class="record">
      <p class="crumbs"><a href={list}>{labelOf(resource)}</a></p>
      <h1>New record in {labelOf(resource)}</h1>
      <RecordForm mode="create" rows={rowsOf(meta, resource, names)} fields={model.fields} serverErrors={refusal.fieldErrors}
        message={refusal.message} busy={busy} submitLabel="Create" label={`New record in ${labelOf(resource)}`} picker={pickerOf(session, meta, resource)}
        onSubmit={(values) => { void create(values) }} onCancel={() => { location.hash = list }} />
    </article>
  )
}
