// How record connections parse values: PostgreSQL's own text wherever JSON wants text. Timestamps
// arrive as `2026-01-02 03:04:05.1234+00` and become `2026-01-02T03:04:05.123400Z`: all six
// microsecond digits, no Date round trip. Direct connections ask for UTC, but a server connection
// behind a transaction pooler keeps the server's own time zone, so text with any other offset is
// moved to UTC here: the answer never depends on the session. Dates stay `YYYY-MM-DD`; int8 and
// numeric stay exact strings (pg's default).
import pg from 'pg'
import type { FieldType } from '../model/types.js'

const TIMESTAMPTZ = 1184
const DATE = 1082
const INT8 = 20
// By position, not a regular expression: a page of 50 rows parses 50 of these.
// `YYYY-MM-DD HH:MM:SS+00` is 22 characters, with `.f` to `.ffffff` 24 to 29.
const PADDING: Record<number, string> = { 22: '.000000', 24: '00000', 25: '0000', 26: '000', 27: '00', 28: '0', 29: '' }
const DASH = 45
const SPACE = 32
const DOT = 46
const PLUS = 43
const ZERO = 48

export function isoTimestamp (text: string): string {
  const n = text.length
  const padding = PADDING[n]
  if (padding === undefined || text.charCodeAt(4) !== DASH || text.charCodeAt(10) !== SPACE ||
    text.charCodeAt(n - 3) !== PLUS || text.charCodeAt(n - 2) !== ZERO || text.charCodeAt(n - 1) !== ZERO ||
    (n > 22 && text.charCodeAt(19) !== DOT)) return inUtc(text)
  return text.slice(0, 10) + 'T' + text.slice(11, n - 3) + padding + 'Z'
}

// An offset is whole seconds (historic zones have `+00:53:28`), so the fraction never moves.
const WITH_OFFSET = /^(\d{4})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)(?:\.(\d{1,6}))?([+-])(\d\d)(?::(\d\d))?(?::(\d\d))?$/

function twoDigits (value: number): string {
  return String(value).padStart(2, '0')
}

/** Text in another offset, as UTC ISO; years that leave 0001 to 9999 in UTC, BC dates and infinity keep PostgreSQL's own text. */
function inUtc (text: string): string {
  const m = WITH_OFFSET.exec(text)
  if (m === null) return text
  const local = new Date(0)
  local.setUTCFullYear(Number(m[1]), Number(m[2]) - 1, Number(m[3]))
  local.setUTCHours(Number(m[4]), Number(m[5]), Number(m[6]))
  const offsetSeconds = (m[8] === '-' ? -1 : 1) * (Number(m[9]) * 3600 + Number(m[10] ?? 0) * 60 + Number(m[11] ?? 0))
  const utc = new Date(local.getTime() - offsetSeconds * 1000)
  const year = utc.getUTCFullYear()
  if (year < 1 || year > 9999) return text
  return `${String(year).padStart(4, '0')}-${twoDigits(utc.getUTCMonth() + 1)}-${twoDigits(utc.getUTCDate())}T` +
    `${twoDigits(utc.getUTCHours())}:${twoDigits(utc.getUTCMinutes())}:${twoDigits(utc.getUTCSeconds())}.${(m[7] ?? '').padEnd(6, '0')}Z`
}

function keepText (text: string): string {
  return text
}

export const recordTypes: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
    if (oid === TIMESTAMPTZ) return isoTimestamp
    // pg's int8 parser returns the same text after testing it against /^\d+$/, once per value.
    if (oid === DATE || oid === INT8) return keepText
    return pg.types.getTypeParser(oid, format)
  }) as pg.CustomTypesConfig['getTypeParser'],
}

// The type each field type is read as (after lib/sql/record.ts's casts), by its OID: what a
// field's text is parsed as where no column carries its type, inside a to-many child's record.
const READ_AS: Readonly<Record<FieldType, number>> = {
  string: 25, integer: 23, bigint: INT8, number: 701, decimal: 1700, boolean: 16, date: DATE, timestamp: TIMESTAMPTZ, uuid: 2950, json: 3802,
}

/** How a field's value given as PostgreSQL's text becomes what a record connection's read of it gives. */
export function textParserOf (type: FieldType): (text: string) => unknown {
  return recordTypes.getTypeParser(READ_AS[type], 'text') as (text: string) => unknown
}
