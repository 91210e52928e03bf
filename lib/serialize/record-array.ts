// PostgreSQL's text of a `record[]` (a to-many's `ARRAY(SELECT ROW(…) …)`, lib/sql/embed-many.ts) read
// straight into each record's fields as their text, or null: no generic pass over it, no JSON.
// Two layers of quoting, as array_out and record_out write them:
// - the array `{e1,e2,…}`: an element is quoted ("…", a backslash before a character standing for
//   itself) where it holds a comma, brace, quote, backslash or white space; a record of two
//   fields or more always does (its comma). A ROW is never NULL, so no element is either;
// - the record `(f1,f2,…)`: a field is quoted where it is empty or holds a comma, parenthesis,
//   quote, backslash or white space ("" is a quote, a backslash stands before a character standing
//   for itself); a field with nothing at all between its commas is NULL.
// Most elements have no backslash, and are read where they stand; most fields have no quotes, and
// are then one slice each.

/** A record's fields, each as PostgreSQL's text of its value or null, in the ROW's order. */
export type RecordFields = Array<string | null>

const QUOTE = 34
const COMMA = 44
const BACKSLASH = 92

/** `text[from, to)` with each backslash (and, with `doubled`, the first of each pair of quotes) taken out. */
function unescaped (text: string, from: number, to: number, doubled: boolean): string {
  let out = ''
  let start = from
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i)
    if (c === BACKSLASH || (doubled && c === QUOTE)) {
      out += text.slice(start, i)
      // The next character stands for itself: it starts the next piece and is not looked at.
      start = ++i
    }
  }
  return out + text.slice(start, to)
}

/**
 * Where the quoted text that opens at `open` closes: its closing quote's index, or that index's
 * complement (negative) where a backslash, or with `doubled` a doubled quote, is to be taken out.
 */
function closingQuote (text: string, open: number, doubled: boolean): number {
  let i = open + 1
  let plain = true
  for (;;) {
    const c = text.charCodeAt(i)
    if (c === BACKSLASH || (doubled && c === QUOTE && text.charCodeAt(i + 1) === QUOTE)) {
      plain = false
      i += 2
    } else if (c === QUOTE) {
      return plain ? i : ~i
    } else {
      i++
    }
  }
}

/** The fields of the record `text[open, close]`, its parentheses. */
function recordFields (text: string, open: number, close: number): RecordFields {
  const fields: RecordFields = []
  let at = open + 1
  for (;;) {
    if (text.charCodeAt(at) === QUOTE) {
      const found = closingQuote(text, at, true)
      const plain = found >= 0
      const i = plain ? found : ~found
      fields.push(plain ? text.slice(at + 1, i) : unescaped(text, at + 1, i, true))
      at = i + 1
    } else {
      let i = at
      while (i < close && text.charCodeAt(i) !== COMMA) i++
      fields.push(i === at ? null : text.slice(at, i))
      at = i
    }
    if (at >= close) return fields
    at++
  }
}

/** The records of a `record[]`'s text, each as its fields. */
export function recordArray (text: string): RecordFields[] {
  const records: RecordFields[] = []
  const close = text.length - 1
  let at = 1
  while (at < close) {
    if (text.charCodeAt(at) === QUOTE) {
      const found = closingQuote(text, at, false)
      const plain = found >= 0
      const i = plain ? found : ~found
      // Without a backslash the element is its own text, read where it stands.
      if (plain) {
        records.push(recordFields(text, at + 1, i - 1))
      } else {
        const element = unescaped(text, at + 1, i, false)
        records.push(recordFields(element, 0, element.length - 1))
      }
      at = i + 1
    } else {
      let i = at
      while (i < close && text.charCodeAt(i) !== COMMA) i++
      records.push(recordFields(text, at, i - 1))
      at = i
    }
    at++
  }
  return records
}
