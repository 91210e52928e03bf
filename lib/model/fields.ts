// The fields a caller reads and writes. Until per-caller access narrows them, every field is
// readable (the tenant column is only a field when listed) and every non-read-only one writable.
import type { CallerFields } from '../write/pipeline.js'
import type { QueryModel } from '../query/filter/checked.js'
import type { ResourceModel } from './types.js'

export function callerFields (model: ResourceModel): CallerFields {
  const readable = [...model.fields.values()]
  return { readable, writable: readable.filter((f) => !f.readOnly) }
}

/** What the caller may filter, sort and search: built from the readable fields only. */
export function queryModel (model: ResourceModel, fields: CallerFields, trigram: boolean): QueryModel {
  return {
    resource: model.name,
    filterable: new Map(fields.readable.filter((f) => f.filterable).map((f) => [f.name, f])),
    sortable: new Map(fields.readable.filter((f) => f.sortable && f.type !== 'json').map((f) => [f.name, f])),
    searchable: fields.readable.filter((f) => f.searchable && f.type === 'string'),
    trigram,
  }
}
