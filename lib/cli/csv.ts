// CSV as RFC 4180 writes it, for `tablegate org import`: fields separated by commas, records by
// CRLF or LF, a field in double quotes may hold commas, line breaks and quotes written twice. Each
// record keeps the line it starts on, so a refusal can name it even after a quoted line break.
// Anything the RFC does not allow (a quote inside an unquoted field, text after a closing quote, a
// quote never closed) is refused rather than guessed at: a misread row would import a wrong tenant.

export interface CsvRecord {
  /** The line the record starts on, counted from 1. */
  readonly line: number
  readonly fields: string[]
}

export class CsvError extends Error {
  /** Counted from 1: the line of the fault, and the field of its record. */
  readonly line: number
  readonly field: number
  constructor (line: number, field: number, message: string) {
    super(message)
    this.name = 'CsvError'
    this.line = line
    this.field = field
  }
}

/**
 * The records of `text`, one at a time, so a caller knows the header before a later line's fault;
 * a line with nothing on it is no record, a UTF-8 byte order mark no text.
 */
export function * csvRecords (text: string): Generator<CsvRecord> {
  const input = text.startsWith('\uFEFF') ? text.slice(1) : text
  let line = 1
  let at = 0
  let fields: string[] = []
  const fieldNumber = (): number => fields.length + 1
  while (at < input.length) {
    const start = { line, at }
    fields = []
    for (;;) {
      fields.push(input[at] === '"' ? quoted() : unquoted())
      if (input[at] !== ',') break
      at++
    }
    if (at > start.at) yield { line: start.line, fields }
    at += input[at] === '\r' ? 2 : 1
    line++
  }

  function quoted (): string {
    const opened = line
    let value = ''
    at++
    for (;;) {
      if (at >= input.length) throw new CsvError(opened, fieldNumber(), 'a quoted field is never closed')
      const c = input[at]!
      if (c === '"' && input[at + 1] !== '"') break
      if (c === '\n') line++
      value += c
      at += c === '"' ? 2 : 1
    }
    at++
    if (at < input.length && input[at] !== ',' && !lineBreakAt(input, at)) {
      throw new CsvError(line, fieldNumber(), 'text after a closing quote (a quote inside a quoted field is written twice: "")')
    }
    return value
  }

  function unquoted (): string {
    const from = at
    while (at < input.length && input[at] !== ',' && !lineBreakAt(input, at)) {
      if (input[at] === '"') throw new CsvError(line, fieldNumber(), 'a quote inside a field that does not start with one (quote the whole field, and write the quote twice)')
      at++
    }
    return input.slice(from, at)
  }
}

function lineBreakAt (input: string, at: number): boolean {
  return input[at] === '\n' || (input[at] === '\r' && input[at + 1] === '\n')
}
