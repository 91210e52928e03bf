// Exported rows as text: NDJSON (one JSON object a line, written like a record without etag and
// permissions) or CSV (RFC 4180 through csv-stringify: a header row of field names, CRLF line
// ends, quotes where needed). Values keep their record form: int8 and decimal as exact text,
// timestamps ISO 8601, json as its JSON text, NULL as an empty cell.
import { stringify } from 'csv-stringify/sync'
import type { Selection } from '../model/selection.js'
import type { ExportFormat } from '../plan/export.js'
import type { Row } from './record.js'
import { fieldsWriter } from './json.js'

export interface ExportWriter {
  /** What comes before the first row (the CSV header). */
  readonly head: string
  /** A batch of rows as text. */
  rows (batch: readonly Row[]): string
}

function cell (value: unknown): string | number | boolean | null {
  if (value === null || value === undefined) return null
  if (typeof value === 'object') return JSON.stringify(value)
  return value as string | number | boolean
}

// A lone LF or CR is quoted too: many readers take either for the end of a record.
const CSV_OPTIONS = { record_delimiter: 'windows', quoted_match: /[\r\n]/, cast: { boolean: (value: boolean) => String(value) } } as const

export function exportWriter (select: Selection, format: ExportFormat): ExportWriter {
  if (format === 'ndjson') {
    const write = fieldsWriter(select)
    return { head: '', rows: (batch) => { let text = ''; for (const row of batch) text += write(row) + '\n'; return text } }
  }
  const names = select.fields.map((f) => f.name)
  return {
    head: stringify([names], CSV_OPTIONS),
    rows: (batch) => stringify(batch.map((row) => names.map((name) => cell(row[name]))), CSV_OPTIONS),
  }
}
