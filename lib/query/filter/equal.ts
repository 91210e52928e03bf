// Structural equality of checked filters: fields compare by name, values by value.
import type { CheckedFilter } from './checked.js'

/**
 * A filter as text, values included: equal for two filters exactly when they match the same rows.
 * A field model (it has a column and a schema) stands for itself by name, a resource model (it has
 * a table and fields) too.
 */
export function filterKey (filter: CheckedFilter): string {
  return JSON.stringify(filter, (_key, value: unknown) => {
    if (value !== null && typeof value === 'object') {
      if ('column' in value && 'schema' in value) return `field:${(value as unknown as { name: string }).name}`
      if ('tableText' in value && 'fields' in value) return `resource:${(value as unknown as { name: string }).name}`
    }
    return value
  })
}

export function sameFilter (a: CheckedFilter | undefined, b: CheckedFilter | undefined): boolean {
  if (a === undefined || b === undefined) return a === b
  return a === b || filterKey(a) === filterKey(b)
}
