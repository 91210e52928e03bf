// What the console makes of the change feed's messages (console/src/change.ts): the changes it
// takes and those it leaves, and what follows each way a stream can end or be refused.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { backoff, changeOf, isEnding, stepAfter, stepAfterRefusal } from '../../console/src/change.js'

test('a change is taken with its record where the record is shown, without one where it left', () => {
  const record = { id: '61', title: 'tea', etag: '"1.ab"' }
  for (const type of ['created', 'updated', 'entered'] as const) {
    assert.deepEqual(changeOf(JSON.stringify({ type, key: '61', record, batch: 'b', time: '2026-11-29T09:17:21Z' })), { type, key: '61', record })
  }
  for (const type of ['left', 'deleted'] as const) assert.deepEqual(changeOf(JSON.stringify({ type, key: '1,a%2Cb', batch: 'b', time: 't' })), { type, key: '1,a%2Cb' })
})

test('anything else is no change: not JSON, another type, no key, a shown record missing', () => {
  for (const data of ['', 'not json', 'null', '[]', '"created"', '{"type":"moved","key":"1"}', '{"type":"created","key":1,"record":{}}', '{"type":"left"}', '{"type":"updated","key":"1"}', '{"type":"created","key":"1","record":null}']) {
    assert.equal(changeOf(data), undefined, data)
  }
})

test('the events that end a stream, and no other', () => {
  for (const event of ['revoked', 'reauth', 'overflow', 'expired', 'unavailable']) assert.equal(isEnding(event), true, event)
  for (const event of ['ready', 'message', 'heartbeat', '']) assert.equal(isEnding(event), false, event)
})

test('after a stream\'s end: resume at once (reauth, overflow), after a wait (unavailable, lost), from now (expired), or stop (revoked)', () => {
  assert.deepEqual(stepAfter('reauth', 0, 1000), { kind: 'resume', delayMs: 0 })
  assert.deepEqual(stepAfter('overflow', 0, 1000), { kind: 'resume', delayMs: 0 })
  // Ended so again before the new stream even started: no longer at once.
  assert.deepEqual(stepAfter('reauth', 2, 1000), { kind: 'resume', delayMs: 4000 })
  assert.deepEqual(stepAfter('unavailable', 0, 1000), { kind: 'resume', delayMs: 1000 })
  assert.deepEqual(stepAfter(undefined, 0, 250), { kind: 'resume', delayMs: 250 })
  assert.deepEqual(stepAfter('expired', 3, 1000), { kind: 'restart' })
  assert.deepEqual(stepAfter('revoked', 0, 1000), { kind: 'stop', why: 'Your access changed.' })
})

test('the wait doubles with each failure in a row, up to 30 s', () => {
  assert.deepEqual([0, 1, 2, 3, 4, 5, 6, 60].map((failures) => backoff(failures, 1000)), [1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000])
})

test('a refused stream: 410 starts from now, 429 and 503 wait at least 5 s, other 5xx wait, a 4xx stops with the server\'s reason', () => {
  assert.deepEqual(stepAfterRefusal(410, 'expired', 0, 1000), { kind: 'restart' })
  assert.deepEqual(stepAfterRefusal(429, 'too many', 0, 1000), { kind: 'resume', delayMs: 5000 })
  assert.deepEqual(stepAfterRefusal(503, 'full', 4, 1000), { kind: 'resume', delayMs: 16000 })
  assert.deepEqual(stepAfterRefusal(504, 'timeout', 1, 1000), { kind: 'resume', delayMs: 2000 })
  for (const status of [400, 401, 403, 404]) assert.deepEqual(stepAfterRefusal(status, 'No.', 0, 1000), { kind: 'stop', why: 'No.' }, String(status))
})
