// The caller's restricted query model: built from the fields the access plan lets them read, so
// a hidden field is simply not declared and is refused exactly like one that does not exist.
import type { QueryModel } from './filter/checked.js'
import type { FieldModel } from '../model/types.js'

export function queryModel (resource: string, readable: readonly FieldModel[], trigram: boolean): QueryModel {
  const filterable = readable.filter((f) => f.filterable)
  const sortable = readable.filter((f) => f.sortable && f.type !== 'json')
  const searchable = readable.filter((f) => f.searchable && f.type === 'string')
  const names = (fields: readonly FieldModel[]): string => fields.map((f) => f.name).join(',')
  return {
    resource,
    readable: new Map(readable.map((f) => [f.name, f])),
    filterable: new Map(filterable.map((f) => [f.name, f])),
    sortable: new Map(sortable.map((f) => [f.name, f])),
    searchable,
    trigram,
    cacheKey: `${resource}\0${names(readable)}\0${names(filterable)}\0${names(sortable)}\0${names(searchable)}\0`,
  }
}
