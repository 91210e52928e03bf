// Exported rows as text: NDJSON (one JSON object a line, written like a record without etag and
// permissions) or CSV (RFC 4180 through csv-stringify: a header row of field names, CRLF line
// ends, quotes where needed). Values keep their record form: int8 and decimal as exact text,
// timestamps ISO 8601, json as its JSON text, NULL as an empty cell. In NDJSON an embed is what a
// get embeds, read by the get's readers (./embed.ts) without ETags, as exported records carry
// none: a to-one's record or null, a to-many's `{ items, next_page_token }`. In CSV (to-one
// only: a column holds one value) it is a column per field named by its path (`customer.name`),
// empty where the record is null.
import { stringify } from 'csv-stringify/sync'
import type { ExportPlan } from '../plan/export.js'
import type { EmbedPlan } from '../plan/types.js'
import type { PageTokens } from '../query/page-token.js'
import type { Row } from './record.js'
import { fieldsWriter, recordBuilder } from './json.js'
import { embedsReader } from './embed.js'

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

/** An embed's selected fields, each with the row column it is read from. */
function embedColumns (embed: EmbedPlan): Array<{ readonly name: string, readonly column: string }> {
  return embed.select.fields.map((field) => ({ name: field.name, column: `${embed.column}_${embed.fetch.fields.indexOf(field)}` }))
}

/** The CSV columns of embeds, depth first: each with its header and how a row's cell is read. */
function embedCells (embeds: readonly EmbedPlan[]): Array<{ readonly header: string, readonly read: (row: Row) => unknown }> {
  return embeds.flatMap((embed) => [
    // A level below is null where its parent is: its own columns are then null too.
    ...embedColumns(embed).map(({ name, column }) => ({ header: `${embed.path}.${name}`, read: (row: Row) => row[column] ?? null })),
    ...embedCells(embed.embeds),
  ])
}

/** What an export writes: its fields and embeds, and how the caller sees a row's own fields. */
export type ExportRows = Pick<ExportPlan, 'select' | 'format' | 'embeds' | 'scope'>

function ndjsonWriter ({ select, embeds, scope: { present } }: ExportRows, tokens: PageTokens): (found: Row) => string {
  if (embeds.length === 0) {
    const write = fieldsWriter(select)
    return present === undefined ? write : (found) => write(present(found))
  }
  // Written by JSON.stringify, as a get writes a record with embeds (lib/read/answer.ts), and read
  // by a get's readers without ETags. Embeds are read from the row as read: a presenter of the
  // record's own fields knows nothing of them.
  const build = recordBuilder(select, embeds.map((embed) => embed.relation.name))
  const embedded = embedsReader(embeds, undefined, tokens)
  return (found) => JSON.stringify(build(present === undefined ? found : present(found), undefined, undefined, embedded(found, found)))
}

/** The writer of an export's rows as read: `tokens` continue its to-many embeds as a get's. */
export function exportWriter (rows: ExportRows, tokens: PageTokens): ExportWriter {
  if (rows.format === 'ndjson') {
    const write = ndjsonWriter(rows, tokens)
    return { head: '', rows: (batch) => { let text = ''; for (const row of batch) text += write(row) + '\n'; return text } }
  }
  const { present } = rows.scope
  const names = rows.select.fields.map((f) => f.name)
  const embedded = embedCells(rows.embeds)
  const headers = [...names, ...embedded.map((c) => c.header)]
  const line = (found: Row, row: Row): unknown[] => [...names.map((name) => cell(row[name])), ...embedded.map((c) => cell(c.read(found)))]
  return {
    head: stringify([headers], CSV_OPTIONS),
    rows: (batch) => stringify(batch.map((found) => line(found, present === undefined ? found : present(found))), CSV_OPTIONS),
  }
}
