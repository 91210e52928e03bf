// A resource's list screen: the search box, the filter chips with their facet counts, the
// show-deleted toggle, the CSV export and the `nav.recent` group around the records, which follow
// the resource's changes live. Its state lives in the hash's query (list-state.ts), so every
// change is a history entry.
import { useState } from 'preact/hooks'
import type { Session } from './api.js'
import { columnsOf, labelOf, type Meta } from './meta.js'
import { hrefOf } from './route.js'
import { filterOf, readState, writeState, type FacetValue, type ListState } from './list-state.js'
import { RecordList } from './list.js'
import { Facet, facetLabel } from './facets.js'
import { ExportCsv } from './export.js'
import { Recent } from './recent.js'
import { ViewChart } from './chart.js'
import { Toast, takeFlash } from './toast.js'

export interface ListScreenProps {
  readonly session: Session
  readonly meta: Meta
  readonly resource: string
  readonly query: URLSearchParams
}

export function ListScreen ({ session, meta, resource, query }: ListScreenProps) {
  // A message left for this list (a record deleted for good), shown until the list's state changes.
  const [flashed] = useState(() => ({ message: takeFlash(), at: `${resource}?${query}` }))
  const view = meta.views?.[resource]
  const model = meta.resources[resource]!
  const permissions = meta.permissions?.[resource]
  const filters = (view?.filters ?? []).filter((field) => field in model.fields)
  const state = readState(query, filters)
  const columns = columnsOf(meta, resource)
  const filter = filterOf(state, model.fields)
  const orderBy = state.orderBy ?? view?.sort
  const caption = labelOf(resource)
  const go = (next: ListState): void => { location.hash = hrefOf({ kind: 'resource', name: resource, query: writeState(next) }) }
  const choose = (field: string, value: FacetValue): void => {
    go({ ...state, chips: [...state.chips.filter((chip) => chip.field !== field), { field, value }] })
  }
  const search = (event: SubmitEvent): void => {
    event.preventDefault()
    go({ ...state, search: String(new FormData(event.currentTarget as HTMLFormElement).get('q') ?? '') })
  }
  const showDeleted = state.showDeleted && permissions?.showDeleted === true
  return (
    <>
      <h1>{caption}</h1>
      <Toast message={flashed.at === `${resource}?${query}` ? flashed.message : undefined} />
      {permissions?.create === true && <p><a class="new" href={hrefOf({ kind: 'new', name: resource })}>New record</a></p>}
      <ViewChart session={session} meta={meta} resource={resource} filter={filter} />
      <div class="list-screen">
        <div class="list-main">
          <div class="list-tools">
            {view?.search !== undefined && view.search.length > 0 && (
              <form role="search" class="search" onSubmit={search}>
                <label for="list-search">Search {view.search.map(labelOf).join(', ').toLowerCase()}</label>
                <input id="list-search" key={state.search} name="q" type="search" defaultValue={state.search} />
                <button type="submit">Search</button>
              </form>
            )}
            {permissions?.showDeleted === true && (
              <label class="toggle">
                <input type="checkbox" checked={showDeleted} onChange={(event) => { go({ ...state, showDeleted: (event.currentTarget as HTMLInputElement).checked }) }} />
                Show deleted
              </label>
            )}
            {permissions?.export === true && <ExportCsv session={session} resource={resource} columns={columns} filter={filter} orderBy={orderBy} showDeleted={showDeleted} />}
          </div>
          {filters.length > 0 && (
            <div class="facets" role="group" aria-label="Filters">
              {filters.map((field) => (
                <Facet key={`${resource}.${field}`} session={session} resource={resource} field={field} meta={model.fields[field]}
                  filter={filterOf(state, model.fields, field)} showDeleted={showDeleted}
                  chosen={state.chips.find((chip) => chip.field === field)?.value} onChoose={(value) => { choose(field, value) }} />
              ))}
            </div>
          )}
          {(state.chips.length > 0 || state.search !== '' || state.filter !== '') && (
            <ul class="chips" aria-label="Filters in use">
              {state.filter !== '' && <li><button type="button" class="chip" onClick={() => { go({ ...state, filter: '' }) }}><span class="visually-hidden">Remove </span>Filter: {state.filter} <span aria-hidden="true">×</span></button></li>}
              {state.search !== '' && <li><button type="button" class="chip" onClick={() => { go({ ...state, search: '' }) }}><span class="visually-hidden">Remove </span>Search: {state.search} <span aria-hidden="true">×</span></button></li>}
              {state.chips.map((chip) => (
                <li key={chip.field}>
                  <button type="button" class="chip" onClick={() => { go({ ...state, chips: state.chips.filter((other) => other !== chip) }) }}>
                    <span class="visually-hidden">Remove </span>{labelOf(chip.field)}: {facetLabel(model.fields[chip.field], chip.value)} <span aria-hidden="true">×</span>
                  </button>
                </li>
              ))}
            </ul>
          )}
          <RecordList session={session} meta={meta} resource={resource} columns={columns} caption={caption} sort={orderBy}
            filter={filter} showDeleted={showDeleted} onSort={(next) => { go({ ...state, orderBy: next }) }} live />
        </div>
        <Recent session={session} meta={meta} resource={resource} />
      </div>
    </>
  )
}
