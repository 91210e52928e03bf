// CSV export of what the list shows (its filter, order and show_deleted, its columns): the API
// streams it to a Blob, offered through an <a download> on a blob: URL. The CSP governs fetches,
// not downloads, so the URL needs no exception; it is revoked once the browser has taken it.
import { useState } from 'preact/hooks'
import { basePath, type Session } from './api.js'

export interface ExportProps {
  readonly session: Session
  readonly resource: string
  readonly columns: readonly string[]
  readonly filter: string
  readonly orderBy: string | undefined
  readonly showDeleted: boolean
}

export function ExportCsv ({ session, resource, columns, filter, orderBy, showDeleted }: ExportProps) {
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string | undefined>()
  const run = async (): Promise<void> => {
    const query = new URLSearchParams({ format: 'csv', fields: columns.join(',') })
    if (filter !== '') query.set('filter', filter)
    if (orderBy !== undefined) query.set('order_by', orderBy)
    if (showDeleted) query.set('show_deleted', 'true')
    setBusy(true)
    setError(undefined)
    try {
      const blob = await session.download(`${basePath}/${encodeURIComponent(resource)}:export?${query}`)
      const link = document.createElement('a')
      link.href = URL.createObjectURL(blob)
      link.download = `${resource}.csv`
      link.click()
      setTimeout(() => { URL.revokeObjectURL(link.href) }, 60_000)
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err))
    } finally {
      setBusy(false)
    }
  }
  return (
    <>
      <button type="button" disabled={busy} onClick={() => { void run() }}>Export CSV</button>
      {error !== undefined && <p class="error" role="alert">{error}</p>}
    </>
  )
}
