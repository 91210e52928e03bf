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
  for (const text of ['infinity', '-infinity', '10000-01-02 03:04:05+00', '2026-01-02 03:04:05+00 BC', '0044-03-15 12:00:00+00 BC', '2026-01-02 03:04:05.+00', '9999-12-31 23:30:00-01', '0001-01-01 00:30:00+01']) {
    assert.equal(isoTimestamp(text), text, text)
  }
})

test('text in another offset (a pooled connection in the server\'s zone) becomes the same UTC ISO', () => {
  const cases: Array<[string, string]> = [
    ['2026-01-02 04:04:05+01', '2026-01-02T03:04:05.000000Z'],
    ['2026-01-01 22:34:05.1234-04:30', '2026-01-02T03:04:05.123400Z'],
    ['2026-03-01 05:30:00.5+05:30', '2026-03-01T00:00:00.500000Z'],
    ['2024-02-29 23:00:00-02', '2024-03-01T01:00:00.000000Z'],
    ['1890-01-01 00:00:00+00:53:28', '1889-12-31T23:06:32.000000Z'],
    ['0001-01-01 01:00:00+01', '0001-01-01T00:00:00.000000Z'],
  ]
  for (const [text, iso] of cases) assert.equal(isoTimestamp(text), iso, text)
})
