// The file of `tablegate org import` (docs/organizations.md, "Moving an existing multi-tenant
// database"): CSV with the header id,name,slug,owner in any order, each later line one organization.
// Every refusal names the line and the column, as the store's refusals of an entry do through
// the label the command gives them.
import { readFileSync } from 'node:fs'
import { CsvError, csvRecords } from './csv.js'
import type { OrganizationImportEntry } from '../auth/organizations.js'

const COLUMNS = ['id', 'name', 'slug', 'owner'] as const
type Column = typeof COLUMNS[number]
const HEADER = `${COLUMNS.join(',')} (in any order)`

export class ImportFileError extends Error {}

export interface ImportFile {
  readonly entries: OrganizationImportEntry[]
  /** The line each entry starts on. */
  readonly lines: number[]
}

export function readImportFile (path: string): ImportFile {
  let bytes: Buffer
  try {
    bytes = readFileSync(path)
  } catch (err) {
    throw new ImportFileError(`cannot read ${path}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message}`)
  }
  let text: string
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes)
  } catch {
    throw new ImportFileError(`${path} is not UTF-8 text`)
  }
  return importEntries(text)
}

/** The entries of a file's text. */
export function importEntries (text: string): ImportFile {
  const entries: OrganizationImportEntry[] = []
  const lines: number[] = []
  let header: string[] | undefined
  try {
    for (const record of csvRecords(text)) {
      if (header === undefined) {
        header = checkHeader(record.fields, record.line)
        continue
      }
      if (record.fields.length !== header.length) {
        throw new ImportFileError(`line ${record.line}: ${record.fields.length} ${record.fields.length === 1 ? 'field' : 'fields'} where the header has ${header.length}`)
      }
      const row = Object.fromEntries(header.map((column, i) => [column, record.fields[i]!])) as Record<Column, string>
      entries.push({ id: row.id, name: row.name, slug: row.slug, owner: row.owner })
      lines.push(record.line)
    }
  } catch (err) {
    if (!(err instanceof CsvError)) throw err
    const column = header?.[err.field - 1] ?? `column ${err.field}`
    throw new ImportFileError(`line ${err.line}, ${column}: ${err.message}`)
  }
  if (header === undefined) throw new ImportFileError(`line 1: the file is empty: its first line is the header ${HEADER}`)
  return { entries, lines }
}

function checkHeader (fields: readonly string[], line: number): string[] {
  for (const [i, name] of fields.entries()) {
    if (!(COLUMNS as readonly string[]).includes(name)) throw new ImportFileError(`line ${line}, column ${i + 1}: '${name}' is not a column of an import: the header is ${HEADER}`)
    if (fields.indexOf(name) !== i) throw new ImportFileError(`line ${line}, column ${i + 1}: ${name} is named twice`)
  }
  const missing = COLUMNS.filter((c) => !fields.includes(c))
  if (missing.length > 0) throw new ImportFileError(`line ${line}: the header lacks ${missing.join(', ')}: it is ${HEADER}`)
  return [...fields]
}
