// A save refused with 412: someone changed the record after it was opened. The record as it is now
// sits beside the user's changes, field by field, and the user chooses: take theirs (Reload) or
// send their own changes again over the new version (Reapply).
import { useEffect, useRef } from 'preact/hooks'
import { labelOf, type FieldMeta } from './meta.js'
import { displayOf, isNumeric } from './field-values.js'

export interface ConflictProps {
  readonly fields: Readonly<Record<string, FieldMeta>>
  readonly mine: Readonly<Record<string, unknown>>
  readonly theirs: Readonly<Record<string, unknown>>
  readonly busy: boolean
  readonly onReload: () => void
  readonly onReapply: () => void
}

export function Conflict ({ fields, mine, theirs, busy, onReload, onReapply }: ConflictProps) {
  const heading = useRef<HTMLHeadingElement>(null)
  useEffect(() => { heading.current?.focus() }, [])
  return (
    <section class="conflict" aria-labelledby="conflict-heading">
      <h2 id="conflict-heading" ref={heading} tabIndex={-1}>Someone else changed this record</h2>
      <p>Your changes were not saved: the record changed after you opened it. Here it is as it is now, beside your changes.</p>
      <div class="table-box">
        <table>
          <caption>Your changes against the record as it is now</caption>
          <thead><tr><th scope="col">Field</th><th scope="col">Theirs now</th><th scope="col">Yours</th></tr></thead>
          <tbody>
            {Object.keys(mine).map((name) => {
              const num = isNumeric(fields[name]) ? 'num' : undefined
              return (
                <tr key={name}>
                  <th scope="row">{labelOf(name)}</th>
                  <td class={num}>{displayOf(fields[name], theirs[name])}</td>
                  <td class={num}>{displayOf(fields[name], mine[name])}</td>
                </tr>
              )
            })}
          </tbody>
        </table>
      </div>
      <div class="actions">
        <button type="button" disabled={busy} onClick={onReload}>Reload</button>
        <button type="button" class="primary" disabled={busy} onClick={onReapply}>Reapply my changes</button>
      </div>
    </section>
  )
}
