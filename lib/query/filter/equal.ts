// Structural equality of checked filters: fields compare by name, values by value.
import type { CheckedFilter } from './checked.js'

function canonical (filter: CheckedFilter): string {
  return JSON.stringify(filter, (_key, value: unknown) => {
    // A field model (it has a column and a schema) stands for itself by name.
    if (value !== null && typeof value === 'object' && 'column' in value && 'schema' in value) return `field:${(value as unknown as { name: string }).name}`
    return value
  })
}

export function sameFilter (a: CheckedFilter | undefined, b: CheckedFilter | undefined): boolean {
  if (a === undefined || b === undefined) return a === b
  return a === b || canonical(a) === canonical(b)
}
