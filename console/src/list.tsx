// One resource's records, page by page with the list's own keyset tokens (never an offset): the
// tokens of the pages already passed are kept to go back, the records of the open page only.
import { useEffect, useState } from 'preact/hooks'
import type { Session } from './api.js'
import { basePath } from './api.js'
import { labelOf } from './meta.js'

const PAGE_SIZE = 20

interface ListAnswer {
  readonly items: ReadonlyArray<Record<string, unknown>>
  readonly next_page_token?: string
  readonly total_size_estimate?: number
}

function cell (value: unknown): string {
  if (value === null || value === undefined) return ''
  return typeof value === 'object' ? JSON.stringify(value) : String(value)
}

export interface RecordListProps {
  readonly session: Session
  readonly resource: string
  readonly columns: readonly string[]
  readonly caption: string
  /** The view's `sort`, as the list's `order_by`. */
  readonly sort?: string | undefined
}

export function RecordList ({ session, resource, columns, caption, sort }: RecordListProps) {
  // The tokens that led to each page before the open one; the open page's own is the last.
  const [tokens, setTokens] = useState<ReadonlyArray<string | undefined>>([undefined])
  const [answer, setAnswer] = useState<ListAnswer | undefined>()
  const [error, setError] = useState<string | undefined>()
  const token = tokens[tokens.length - 1]
  const fields = columns.join(',')

  useEffect(() => { setTokens([undefined]) }, [resource, fields, sort])
  useEffect(() => {
    let current = true
    const query = new URLSearchParams({ page_size: String(PAGE_SIZE), fields })
    if (sort !== undefined) query.set('order_by', sort)
    if (token !== undefined) query.set('page_token', token)
    session.get<ListAnswer>(`${basePath}/${encodeURIComponent(resource)}?${query}`)
      .then((next) => { if (current) { setAnswer(next); setError(undefined) } })
      .catch((err: unknown) => { if (current) setError(err instanceof Error ? err.message : String(err)) })
    return () => { current = false }
  }, [session, resource, fields, sort, token])

  const pageNumber = tokens.length
  const next = answer?.next_page_token
  return (
    <section class="list" aria-label={caption}>
      {error !== undefined && <p class="error" role="alert">{error}</p>}
      <table>
        <caption>{caption}{answer?.total_size_estimate !== undefined && <span class="estimate"> · about {answer.total_size_estimate.toLocaleString()}</span>}</caption>
        <thead><tr>{columns.map((name) => <th scope="col" key={name}>{labelOf(name)}</th>)}</tr></thead>
        <tbody>
          {answer?.items.map((item, i) => <tr key={i}>{columns.map((name) => <td key={name}>{cell(item[name])}</td>)}</tr>)}
          {answer?.items.length === 0 && <tr><td colSpan={columns.length}>No records.</td></tr>}
        </tbody>
      </table>
      <nav class="pager" aria-label={`${caption} pages`}>
        <button type="button" disabled={pageNumber === 1} onClick={() => { setTokens(tokens.slice(0, -1)) }}>Previous page</button>
        <span aria-live="polite">Page {pageNumber}</span>
        <button type="button" disabled={next === undefined || next === ''} onClick={() => { setTokens([...tokens, next]) }}>Next page</button>
      </nav>
    </section>
  )
}
