// How record connections parse values: PostgreSQL's own text wherever JSON wants text. Timestamps
// arrive as `2026-01-02 03:04:05.1234+00` (connections run in UTC) and become
// `2026-01-02T03:04:05.123400Z`: all six microsecond digits, no Date round trip. Dates stay
// `YYYY-MM-DD`; int8 and numeric stay exact strings (pg's default).
import pg from 'pg'

const TIMESTAMPTZ = 1184
const DATE = 1082
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
  // Years past 9999, BC dates and infinity keep PostgreSQL's own text.
  if (padding === undefined || text.charCodeAt(4) !== DASH || text.charCodeAt(10) !== SPACE ||
    text.charCodeAt(n - 3) !== PLUS || text.charCodeAt(n - 2) !== ZERO || text.charCodeAt(n - 1) !== ZERO ||
    (n > 22 && text.charCodeAt(19) !== DOT)) return text
  return text.slice(0, 10) + 'T' + text.slice(11, n - 3) + padding + 'Z'
}

function keepText (text: string): string {
  return text
}

export const recordTypes: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
    if (oid === TIMESTAMPTZ) return isoTimestamp
    if (oid === DATE) return keepText
    return pg.types.getTypeParser(oid, format)
  }) as pg.CustomTypesConfig['getTypeParser'],
}
