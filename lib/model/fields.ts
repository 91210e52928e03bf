// The caller's restricted query model: built from the fields the access plan lets them read, so
// a hidden field is simply not declared and is refused exactly like one that does not exist.
import type { QueryModel } from '../query/filter/checked.js'
import type { FieldModel } from './types.js'

export function queryModel (resource: string, readable: readonly FieldModel[], trigram: boolean): QueryModel {
  return {
    resource,
    filterable: new Map(readable.filter((f) => f.filterable).map((f) => [f.name, f])),
    sortable: new Map(readable.filter((f) => f.sortable && f.type !== 'json').map((f) => [f.name, f])),
    searchable: readable.filter((f) => f.searchable && f.type === 'string'),
    trigram,
  }
}
