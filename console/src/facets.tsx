// A view's `filters` as facet chips: each filter field is a disclosure whose values, with their
// counts, come from `:facets` under the list's other conditions (the search and the other chips),
// asked for when it opens and again whenever those change: the 20 most frequent, and with More
// values up to the 100 `:facets` gives at most. Choosing a value makes it the field's chip; a
// chip is removed by its own button.
import { useEffect, useRef, useState } from 'preact/hooks'
import { basePath, type Session } from './api.js'
import { labelOf, type FieldMeta } from './meta.js'
import { textOf } from './field-values.js'
import type { FacetValue } from './list-state.js'

/** Values a group shows at first; one more is asked for, to know whether More values has any. */
const FIRST = 20
/** What `:facets` gives at most. */
const MOST = 100

interface FacetsAnswer { readonly facets: ReadonlyArray<{ readonly value: FacetValue, readonly count: number }> }

/** A facet's value as the list's cells show it (a boolean as Yes or No), none as (none). */
export function facetLabel (field: FieldMeta | undefined, value: FacetValue): string {
  return value === null ? '(none)' : textOf(field, value)
}

export interface FacetProps {
  readonly session: Session
  readonly resource: string
  readonly field: string
  readonly meta: FieldMeta | undefined
  /** The list's filter without this field's chip. */
  readonly filter: string
  readonly showDeleted: boolean
  readonly chosen: FacetValue | undefined
  readonly onChoose: (value: FacetValue) => void
}

export function Facet ({ session, resource, field, meta, filter, showDeleted, chosen, onChoose }: FacetProps) {
  const [open, setOpen] = useState(false)
  const [facets, setFacets] = useState<FacetsAnswer['facets'] | undefined>()
  const [error, setError] = useState<string | undefined>()
  const [all, setAll] = useState(false)
  // More values removes its own button: the focus goes to the first value it brought.
  const moved = useRef(false)
  const list = useRef<HTMLUListElement>(null)
  useEffect(() => {
    if (!open) return
    let current = true
    const query = new URLSearchParams({ field, limit: String(all ? MOST : FIRST + 1) })
    if (filter !== '') query.set('filter', filter)
    if (showDeleted) query.set('show_deleted', 'true')
    session.get<FacetsAnswer>(`${basePath}/${encodeURIComponent(resource)}:facets?${query}`)
      .then((answer) => { if (current) { setFacets(answer.facets); setError(undefined) } })
      .catch((err: unknown) => { if (current) setError(err instanceof Error ? err.message : String(err)) })
    return () => { current = false }
  }, [open, session, resource, field, filter, showDeleted, all])
  const shown = facets === undefined || all ? facets : facets.slice(0, FIRST)
  useEffect(() => {
    if (!moved.current || !all || facets === undefined) return
    moved.current = false
    list.current?.querySelectorAll('button')[FIRST]?.focus()
  }, [all, facets])
  const label = labelOf(field)
  return (
    <details class="facet" open={open} onToggle={(event) => { setOpen((event.currentTarget as HTMLDetailsElement).open) }}>
      <summary>{label}</summary>
      {error !== undefined && <p class="error" role="alert">{error}</p>}
      {shown !== undefined && (
        <ul ref={list} aria-label={`${label} values`}>
          {shown.map((facet) => (
            <li key={JSON.stringify(facet.value)}>
              <button type="button" class="chip-choice" aria-pressed={chosen !== undefined && chosen === facet.value} onClick={() => { onChoose(facet.value) }}>
                {facetLabel(meta, facet.value)} <span class="count">{facet.count.toLocaleString()}</span>
              </button>
            </li>
          ))}
          {shown.length === 0 && <li>No values.</li>}
        </ul>
      )}
      {!all && facets !== undefined && facets.length > FIRST && <button type="button" class="more" onClick={() => {
        moved.current = true
        setAll(true)
      }}>More values</button>}
      {all && facets?.length === MOST && <p class="hint">The {MOST} most frequent values.</p>}
    </details>
  )
}
