import { test } from 'node:test'
import assert from 'node:assert/strict'
import { isoTimestamp } from '../../lib/db/types.js'

test('PostgreSQL UTC text becomes ISO 8601 with six microsecond digits', () => {
  const cases: Array<[string, string]> = [
    ['2026-01-02 03:04:05+00', '2026-01-02T03:04:05.000000Z'],
    ['2026-01-02 03:04:05.1+00', '2026-01-02T03:04:05.100000Z'],
    ['2026-01-02 03:04:05.12345+00', '2026-01-02T03:04:05.123450Z'],
    ['2026-01-02 03:04:05.123456+00', '2026-01-02T03:04:05.123456Z'],
  ]
  for (const [text, iso] of cases) assert.equal(isoTimestamp(text), iso, text)
})

test('text outside ISO 8601 keeps PostgreSQL\'s own form', () => {
  for (const text of ['infinity', '-infinity', '10000-01-02 03:04:05+00', '2026-01-02 03:04:05+00 BC', '0044-03-15 12:00:00+00 BC', '2026-01-02 03:04:05+01', '2026-01-02 03:04:05.+00']) {
    assert.equal(isoTimestamp(text), text, text)
  }
})
