// The console's Server-Sent Events parser (console/src/sse.ts), by the HTML standard's rules:
// what the change feed sends, cut into pieces anywhere, in each line ending; the ids that move
// the resume position without an event; and what is never dispatched. In a browser, with the
// stream of a real server: test/http/console-changes-browser.test.ts.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { SseParser, type SseMessage } from '../../console/src/sse.js'

/** Everything `pieces` dispatch, fed in that order, and the parser after them. */
function parse (...pieces: string[]): { messages: SseMessage[], parser: SseParser } {
  const parser = new SseParser()
  const messages = pieces.flatMap((piece) => parser.push(piece))
  return { messages, parser }
}

// A feed as plugins/changes/feed.ts writes it: ready, a change, a heartbeat that moves the
// position, a plain heartbeat, and the last event.
const FEED = 'retry: 1000\nevent: ready\nid: t0\ndata: {"next_page_token":"t0"}\n\n' +
  'id: t1\ndata: {"type":"created","key":"61"}\n\n' +
  'id: t2\n: heartbeat\n\n' +
  ': heartbeat\n\n' +
  'event: reauth\ndata: {}\n\n'
const FEED_MESSAGES: SseMessage[] = [
  { event: 'ready', data: '{"next_page_token":"t0"}', lastEventId: 't0' },
  { event: 'message', data: '{"type":"created","key":"61"}', lastEventId: 't1' },
  { event: 'reauth', data: '{}', lastEventId: 't2' },
]

test('the feed\'s events come out named, with their data and the id to resume from; a heartbeat\'s id moves it too', () => {
  const { messages, parser } = parse(FEED)
  assert.deepEqual(messages, FEED_MESSAGES)
  assert.equal(parser.lastEventId, 't2')
  assert.equal(parser.retryMs, 1000)
  const heartbeat = parse('id: t1\ndata: x\n\n', 'id: t2\n: heartbeat\n\n')
  assert.equal(heartbeat.messages.length, 1)
  assert.equal(heartbeat.parser.lastEventId, 't2')
})

test('a stream cut anywhere, even one character at a time, reads the same', () => {
  for (let at = 0; at <= FEED.length; at++) assert.deepEqual(parse(FEED.slice(0, at), FEED.slice(at)).messages, FEED_MESSAGES, `cut at ${at}`)
  assert.deepEqual(parse(...FEED).messages, FEED_MESSAGES)
})

test('lines end in LF, CRLF or CR, also where a CRLF is cut between its two characters', () => {
  const expected = [{ event: 'message', data: 'a\nb', lastEventId: '' }, { event: 'message', data: 'c', lastEventId: '' }]
  for (const eol of ['\n', '\r\n', '\r']) {
    const text = `data: a${eol}data: b${eol}${eol}data: c${eol}${eol}`
    assert.deepEqual(parse(text).messages, expected, JSON.stringify(eol))
    for (let at = 0; at <= text.length; at++) assert.deepEqual(parse(text.slice(0, at), text.slice(at)).messages, expected, `${JSON.stringify(eol)} cut at ${at}`)
  }
  // A CR that ends one piece and an LF that opens the next are one line ending, not two (which
  // would dispatch here, with no blank line sent).
  assert.deepEqual(parse('data: a\r', '\ndata: b\r\n\r\n').messages, [{ event: 'message', data: 'a\nb', lastEventId: '' }])
})

test('fields: one space after the colon is dropped, a line without a colon is a field with no value, unknown fields are ignored', () => {
  assert.deepEqual(parse('data:x\ndata:  y\ndata\nfoo: bar\n\n').messages, [{ event: 'message', data: 'x\n y\n', lastEventId: '' }])
  assert.deepEqual(parse('data\n\n').messages, [{ event: 'message', data: '', lastEventId: '' }])
  // The name is the event's own: the next one without a name is a message again.
  assert.deepEqual(parse('event: ready\ndata: 1\n\ndata: 2\n\n').messages.map((m) => m.event), ['ready', 'message'])
})

test('what is never dispatched: an event without data, a comment, an event the stream ended before its blank line', () => {
  assert.deepEqual(parse('event: ready\nid: a\n\n', ': comment\n\n', 'data: cut off\n').messages, [])
  // The name of an event without data does not carry over to the next.
  assert.deepEqual(parse('event: ready\n\ndata: 1\n\n').messages, [{ event: 'message', data: '1', lastEventId: '' }])
})

test('an id holding NUL and a retry that is not digits change nothing; a BOM opens the stream only', () => {
  const { messages, parser } = parse('id: a\nretry: 500\n\n', 'id: b\u0000c\nretry: 5s\ndata: x\n\n')
  assert.deepEqual(messages, [{ event: 'message', data: 'x', lastEventId: 'a' }])
  assert.equal(parser.retryMs, 500)
  assert.deepEqual(parse('\uFEFFdata: x\n\n').messages, [{ event: 'message', data: 'x', lastEventId: '' }])
  assert.deepEqual(parse('data: x\n', '\uFEFFdata: y\n\n').messages, [{ event: 'message', data: 'x', lastEventId: '' }])
  // An empty id is an id: it resets the position.
  assert.equal(parse('id: a\n\nid\n\n').parser.lastEventId, '')
})
