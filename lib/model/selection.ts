// Values made once per selection of fields: the SQL column list of what a query fetches, the JSON
// writer of a field mask, the query model of what a caller reads. A caller's selections are the
// same arrays request after request and are found by identity; a new array with the same fields
// (a `fields` mask is parsed per request) is found by its fields' names and types, in a bounded
// cache, since masks come from requests.
import { BoundedCache } from '../query/cache.js'
import type { FieldModel } from './types.js'

export function perSelection<V> (create: (fields: readonly FieldModel[]) => V, max = 1000): (fields: readonly FieldModel[]) => V {
  const byArray = new WeakMap<readonly FieldModel[], V>()
  const byFields = new BoundedCache<V>(max)
  return (fields) => {
    let value = byArray.get(fields)
    if (value === undefined) {
      value = byFields.getOrCreate(fields.map((f) => `${f.name}:${f.type}`).join(','), () => create(fields))
      byArray.set(fields, value)
    }
    return value
  }
}
