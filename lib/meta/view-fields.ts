// The field references inside a view's texts: the terms of `sort` and the `{field}` placeholders
// of `title`. The startup check and the per-caller trimming read them the same way.

export interface SortTerm {
  readonly field: string
  readonly direction: string | undefined
  /** The term as written, trimmed. */
  readonly text: string
}

export function sortTerms (sort: string): SortTerm[] {
  return sort.split(',').map((piece) => piece.trim()).filter((text) => text !== '').map((text) => {
    const [field, direction] = text.split(/\s+/)
    return { field: field!, direction: direction?.toLowerCase(), text }
  })
}

const PLACEHOLDER = /\{([^{}]*)\}/g

export function titleFields (title: string): string[] {
  return [...title.matchAll(PLACEHOLDER)].map((m) => m[1]!.trim())
}
