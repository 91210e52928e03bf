// Spans point into the filter or order_by text: `start` inclusive, `end` exclusive, in characters.

export interface Span {
  readonly start: number
  readonly end: number
}

/** One problem found in a filter or order_by, as the `errors` entries of the problem body. */
export interface QueryIssue {
  readonly code: string
  readonly message: string
  readonly hint?: string | undefined
  readonly span: Span
}

export function span (start: number, end: number): Span {
  return { start, end }
}

export function cover (a: Span, b: Span): Span {
  return { start: Math.min(a.start, b.start), end: Math.max(a.end, b.end) }
}

/** Thrown by the lexer and parser; the checker collects issues instead. */
export class QuerySyntaxError extends Error {
  readonly issue: QueryIssue
  constructor (issue: QueryIssue) {
    super(issue.message)
    this.name = 'QuerySyntaxError'
    this.issue = issue
  }
}
