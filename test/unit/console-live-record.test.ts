// A record screen kept up to date by the change feed (console/src/live-record.ts): the filter that
// follows one record, which changes need a look, and how the record read after a change is
// weighed against what the screen shows. In a browser: test/http/console-changes-browser.test.ts.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { isNews, keyFilter, newsOf } from '../../console/src/live-record.js'
import type { FieldMeta } from '../../console/src/meta.js'

const FIELDS: Record<string, FieldMeta> = { id: { type: 'bigint' }, n: { type: 'integer' }, code: { type: 'string' }, day: { type: 'date' } }

test('the filter that follows a record: its key fields, typed as they are, a composite key\'s parts ANDed', () => {
  assert.equal(keyFilter(['id'], FIELDS, '5'), 'id = 5')
  assert.equal(keyFilter(['code', 'n'], FIELDS, 'a%2Cb%22,2'), 'code = "a,b\\"" AND n = 2')
  assert.equal(keyFilter(['day', 'code'], FIELDS, '2026-11-29,x*y'), 'day = "2026-11-29" AND code = "x\\*y"')
  // A number field whose key part is not a number is compared as text, and refused by the server.
  assert.equal(keyFilter(['n'], FIELDS, 'abc'), 'n = "abc"')
  // A key of another shape names no record.
  assert.equal(keyFilter(['code', 'n'], FIELDS, '5'), undefined)
  assert.equal(keyFilter(['code'], FIELDS, '%E0%A4%A'), undefined)
})

test('a change needs a look unless it brings an ETag the screen knows, on a record it does not show deleted', () => {
  const seen = new Set<unknown>(['"1.a"'])
  const shown = { etag: '"1.a"', deleted: false }
  assert.equal(isNews({ type: 'updated', key: '5', record: { id: '5', etag: '"1.a"' } }, shown, seen), false)
  assert.equal(isNews({ type: 'updated', key: '5', record: { id: '5', etag: '"2.b"' } }, shown, seen), true)
  assert.equal(isNews({ type: 'deleted', key: '5' }, shown, seen), true)
  assert.equal(isNews({ type: 'left', key: '5' }, shown, seen), true)
  // Restored elsewhere with the ETag it had before its delete (a hash of fields that did not change).
  assert.equal(isNews({ type: 'created', key: '5', record: { id: '5', etag: '"1.a"' } }, { ...shown, deleted: true }, seen), true)
})

test('a record read after a change, weighed against the screen: known, saved by someone else, deleted, gone', () => {
  const shown = { etag: 'A', deleted: false }
  const seen = new Set<unknown>(['A', 'MINE'])
  assert.equal(newsOf({ etag: 'A', deleted: false }, shown, seen), 'known')
  // The user's own save: the screen has read it (or its write made it) before the look.
  assert.equal(newsOf({ etag: 'MINE', deleted: false }, shown, seen), 'known')
  assert.equal(newsOf({ etag: 'B', deleted: false }, shown, seen), 'saved')
  assert.equal(newsOf({ etag: 'B', deleted: true }, shown, seen), 'deleted')
  assert.equal(newsOf(undefined, shown, seen), 'gone')
  // Deleted on screen already (the user's own delete): nothing new; restored by someone else: news.
  assert.equal(newsOf({ etag: 'C', deleted: true }, { etag: 'A', deleted: true }, seen), 'known')
  assert.equal(newsOf({ etag: 'A', deleted: false }, { etag: 'A', deleted: true }, seen), 'saved')
})
