// How record connections parse values: PostgreSQL's own text wherever JSON wants text. Timestamps
// arrive as `2026-01-02 03:04:05.1234+00` (connections run in UTC) and become
// `2026-01-02T03:04:05.123400Z`: all six microsecond digits, no Date round trip. Dates stay
// `YYYY-MM-DD`; int8 and numeric stay exact strings (pg's default).
import pg from 'pg'

const TIMESTAMPTZ = 1184
const DATE = 1082
const UTC_TEXT = /^(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d)(?:\.(\d{1,6}))?\+00$/

export function isoTimestamp (text: string): string {
  const m = UTC_TEXT.exec(text)
  // Years past 9999, BC dates and infinity keep PostgreSQL's own text.
  if (m === null) return text
  return `${m[1]}T${m[2]}.${(m[3] ?? '').padEnd(6, '0')}Z`
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
