// What the record screen and the create form share: the API paths, the `fields` masks, the
// view's layout rows and the reading of a refusal into field errors.
import { ApiError, basePath } from './api.js'
import type { Meta } from './meta.js'

export type Row = Readonly<Record<string, unknown>>

export function collectionPath (resource: string): string {
  return `${basePath}/${encodeURIComponent(resource)}`
}

/** `key` as the console's route holds it: already as the API's URL writes it. */
export function recordPath (resource: string, key: string): string {
  return `${collectionPath(resource)}/${key}`
}

/** Every readable field and every relation the caller can follow, to embed. */
export function maskOf (meta: Meta, resource: string): string {
  const model = meta.resources[resource]
  if (model === undefined) return ''
  return [...Object.keys(model.fields), ...Object.keys(model.relations ?? {})].join(',')
}

/**
 * `names` in the view's layout rows, in their order; the names the layout leaves out follow in
 * one last row, so a form never loses a field the caller must fill in.
 */
export function rowsOf (meta: Meta, resource: string, names: readonly string[]): ReadonlyArray<readonly string[]> {
  const wanted = new Set(names)
  const placed = new Set<string>()
  const rows: string[][] = []
  for (const row of meta.views?.[resource]?.layout ?? []) {
    const kept = row.filter((name) => wanted.has(name) && !placed.has(name))
    for (const name of kept) placed.add(name)
    if (kept.length > 0) rows.push(kept)
  }
  const rest = names.filter((name) => !placed.has(name))
  if (rest.length > 0) rows.push(rest)
  return rows
}

export interface Refusal {
  readonly fieldErrors: Readonly<Record<string, string>>
  readonly message?: string | undefined
}

/** A failed save as the form shows it: a 400's errors by field, anything else as one message. */
export function refusalOf (err: unknown): Refusal {
  if (err instanceof ApiError && err.status === 400 && Array.isArray(err.problem.errors) && err.problem.errors.length > 0) {
    const fieldErrors: Record<string, string> = {}
    const loose: string[] = []
    for (const error of err.problem.errors) {
      if (typeof error.field === 'string' && error.field !== '') fieldErrors[error.field] = fieldErrors[error.field] === undefined ? error.message : `${fieldErrors[error.field]} ${error.message}`
      else loose.push(error.message)
    }
    return { fieldErrors, message: loose.length > 0 ? loose.join(' ') : undefined }
  }
  return { fieldErrors: {}, message: err instanceof Error ? err.message : String(err) }
}
