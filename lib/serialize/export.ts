// Exported rows as text: NDJSON (one JSON object a line, written like a record without etag and
// permissions) or CSV (RFC 4180 through csv-stringify: a header row of field names, CRLF line
// ends, quotes where needed). Values keep their record form: int8 and decimal as exact text,
// timestamps ISO 8601, json as its JSON text, NULL as an empty cell. An embedded to-one
// (lib/sql/read.ts flattens it into the row) is, in NDJSON, the record a get embeds without its
// etag, as exported records carry none, or null; in CSV, a column per field named by its path
// (`customer.name`), empty where the record is null.
import { stringify } from 'csv-stringify/sync'
import type { Selection } from '../model/selection.js'
import type { ExportFormat } from '../plan/export.js'
import type { EmbedPlan } from '../plan/types.js'
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

/** An embed's selected fields, each with the row column it is read from. */
function embedColumns (embed: EmbedPlan): Array<{ readonly name: string, readonly column: string }> {
  return embed.select.fields.map((field) => ({ name: field.name, column: `${embed.column}_${embed.fetch.fields.indexOf(field)}` }))
}

/** The row columns embeds are read from: a presenter of the record's own fields keeps none of them. */
export function embedColumnNames (embeds: readonly EmbedPlan[]): string[] {
  return embeds.flatMap((embed) => [embed.column, ...embed.fetch.fields.map((_, i) => `${embed.column}_${i}`), ...embedColumnNames(embed.embeds)])
}

/** An embed as an object (its fields, then its own embeds), or null where the row is not there for the caller. */
function embedObject (embed: EmbedPlan): (row: Row) => Row | null {
  const columns = embedColumns(embed)
  const children = embed.embeds.map((child) => ({ name: child.relation.name, read: embedObject(child) }))
  return (row) => {
    if (row[embed.column] !== true) return null
    const record: Row = {}
    for (const { name, column } of columns) record[name] = row[column] ?? null
    for (const { name, read } of children) record[name] = read(row)
    return record
  }
}

/** The CSV columns of embeds, depth first: each with its header and how a row's cell is read. */
function embedCells (embeds: readonly EmbedPlan[]): Array<{ readonly header: string, readonly read: (row: Row) => unknown }> {
  return embeds.flatMap((embed) => [
    // A level below is null where its parent is: its own presence column is then null too.
    ...embedColumns(embed).map(({ name, column }) => ({ header: `${embed.path}.${name}`, read: (row: Row) => row[embed.column] === true ? row[column] : null })),
    ...embedCells(embed.embeds),
  ])
}

function ndjsonWriter (select: Selection, embeds: readonly EmbedPlan[]): (row: Row) => string {
  if (embeds.length === 0) return fieldsWriter(select)
  // Written by JSON.stringify, as a get writes a record with embeds (lib/read/answer.ts).
  const names = select.fields.map((f) => f.name)
  const readers = embeds.map((embed) => ({ name: embed.relation.name, read: embedObject(embed) }))
  return (row) => {
    const record: Row = {}
    for (const name of names) record[name] = row[name] ?? null
    for (const { name, read } of readers) record[name] = read(row)
    return JSON.stringify(record)
  }
}

export function exportWriter (select: Selection, format: ExportFormat, embeds: readonly EmbedPlan[] = []): ExportWriter {
  if (format === 'ndjson') {
    const write = ndjsonWriter(select, embeds)
    return { head: '', rows: (batch) => { let text = ''; for (const row of batch) text += write(row) + '\n'; return text } }
  }
  const names = select.fields.map((f) => f.name)
  const embedded = embedCells(embeds)
  const headers = [...names, ...embedded.map((c) => c.header)]
  return {
    head: stringify([headers], CSV_OPTIONS),
    rows: (batch) => stringify(batch.map((row) => [...names.map((name) => cell(row[name])), ...embedded.map((c) => cell(c.read(row)))]), CSV_OPTIONS),
  }
}
