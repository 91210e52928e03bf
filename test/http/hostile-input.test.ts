// Hostile input over a real socket: every refusal is a 4xx problem+json with its exact slug, Node's
// and Fastify's own refusals included, and the limits of docs/resources.md ("Limits") are the ones
// a caller meets.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { request } from 'node:http'
import { connect } from 'node:net'
import { freshDatabase, runSql } from '../helpers/db.js'
import { buildApp, createUser, bearer } from '../helpers/app.js'

const databaseUrl = await freshDatabase()
await runSql(databaseUrl, 'CREATE TABLE items (id serial PRIMARY KEY, title text NOT NULL, data jsonb, amount numeric)')
const app = await buildApp({
  databaseUrl,
  resources: { items: { fields: { id: { type: 'integer', readOnly: true }, title: { type: 'string' }, data: { type: 'json' }, amount: { type: 'decimal' } } } },
})
await createUser(app, 'admin@example.com')
const { authorization } = await bearer(app, 'admin@example.com')
await app.listen({ port: 0, host: '127.0.0.1' })
const port = (app.server.address() as { port: number }).port

interface Answer { status: number, type: string | undefined, body: any }

/** One request as written, byte for byte: no client library normalises the path. */
async function send (method: string, path: string, options: { headers?: Record<string, string>, body?: string | Buffer } = {}): Promise<Answer> {
  return await new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, headers: { authorization, ...(options.body === undefined ? {} : { 'content-type': 'application/json' }), ...options.headers } }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8')
        resolve({ status: res.statusCode!, type: res.headers['content-type'], body: text === '' ? undefined : JSON.parse(text) })
      })
    })
    req.on('error', reject)
    req.end(options.body)
  })
}

function isProblem (answer: Answer, status: number, slug: string): void {
  assert.equal(answer.status, status, JSON.stringify(answer.body))
  assert.equal(answer.type, 'application/problem+json; charset=utf-8')
  assert.equal(answer.body.type, `urn:service:problem:${slug}`)
  assert.equal(answer.body.status, status)
  assert.equal(typeof answer.body.detail, 'string')
  assert.equal(typeof answer.body.instance, 'string')
}

test('headers over the limit are a 431 problem, not Node\'s bare answer', async () => {
  isProblem(await send('GET', '/api/v1/items', { headers: { 'x-pad': 'a'.repeat(200 * 1024) } }), 431, 'headers-too-large')
})

test('a path that is not valid percent-encoded UTF-8 is a 400 problem naming the path as sent', async () => {
  const answer = await send('GET', '/api/v1/items/%C3%28')
  isProblem(answer, 400, 'malformed-request')
  assert.equal(answer.body.instance, '/api/v1/items/%C3%28')
})

test('a query value that is not valid percent-encoded UTF-8 is the same 400, never read as literal text', async () => {
  for (const query of ['filter=id%3D1%E2%82', 'filter=title%3D%ZZ', 'fields=%E2%82', 'page_size=1&x=%']) {
    const answer = await send('GET', `/api/v1/items?${query}`)
    isProblem(answer, 400, 'malformed-request')
    assert.equal(answer.body.detail, 'The URL is not valid percent-encoded UTF-8.')
  }
  assert.equal((await send('GET', `/api/v1/items?filter=${encodeURIComponent('title = "100%"')}`)).status, 200)
})

test('an HTTP/1.1 request without Host is a 400 problem, not Node\'s empty answer', async () => {
  const raw = await new Promise<string>((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => { socket.end('GET /api/v1/items HTTP/1.1\r\nConnection: close\r\n\r\n') })
    const chunks: Buffer[] = []
    socket.on('data', (c: Buffer) => chunks.push(c))
    socket.on('end', () => { resolve(Buffer.concat(chunks).toString('utf8')) })
    socket.on('error', reject)
  })
  assert.match(raw, /^HTTP\/1\.1 400 /)
  assert.match(raw, /content-type: application\/problem\+json/i)
  assert.match(raw, /"type":"urn:service:problem:malformed-request"/)
})

test('a path segment over 4,096 characters is a 414 problem', async () => {
  isProblem(await send('GET', `/api/v1/items/${'1'.repeat(5000)}`), 414, 'uri-too-long')
})

test('a 10,000-character filter that needs percent-encoding reaches the filter; 10,001 is too long', async () => {
  // Every 'é' is six bytes percent-encoded: 60 KB of query string.
  const filter = `title = "${'é'.repeat(9988)}"`.padEnd(10_000, ' ')
  assert.equal(filter.length, 10_000)
  const encoded = encodeURIComponent(filter)
  assert.ok(encoded.length > 16 * 1024, 'longer than Node\'s default header limit')
  const answer = await send('GET', `/api/v1/items?filter=${encoded}`)
  assert.equal(answer.status, 200, JSON.stringify(answer.body))
  const tooLong = await send('GET', `/api/v1/items?filter=${encodeURIComponent(filter + ' ')}`)
  isProblem(tooLong, 400, 'invalid-filter')
  assert.equal(tooLong.body.errors[0].code, 'too-long')
})

test('the filter limit counts characters, not UTF-16 units: 10,000 emoji pass, 10,001 do not', async () => {
  const filter = (emoji: number): string => `title = "${'😀'.repeat(emoji)}"`
  assert.equal([...filter(9990)].length, 10_000)
  const answer = await send('GET', `/api/v1/items?filter=${encodeURIComponent(filter(9990))}`)
  assert.equal(answer.status, 200, JSON.stringify(answer.body))
  const tooLong = await send('GET', `/api/v1/items?filter=${encodeURIComponent(filter(9991))}`)
  isProblem(tooLong, 400, 'invalid-filter')
  assert.equal(tooLong.body.errors[0].code, 'too-long')
  // Spans are UTF-16 offsets, as everywhere: the 10,001st character (the closing quote) starts
  // after 9 units of text and 9,991 emoji of two units each.
  assert.deepEqual(tooLong.body.errors[0].span, { start: 19_991, end: 19_992 })
})

test('a json value nested 6,000 levels deep is a 400 invalid-record', async () => {
  const deep = '['.repeat(6000) + ']'.repeat(6000)
  const answer = await send('POST', '/api/v1/items', { body: `{"title":"deep","data":${deep}}` })
  isProblem(answer, 400, 'invalid-record')
  assert.equal(answer.body.errors[0].field, 'data')
})

test('a decimal of 30 bytes that would store 131,072 digits is a 400 invalid-record', async () => {
  isProblem(await send('POST', '/api/v1/items', { body: '{"title":"big","amount":"1e131071"}' }), 400, 'invalid-record')
})

test('NUL characters and lone surrogates in text cannot be stored as sent: 400 invalid-record', async () => {
  for (const title of ['a\\u0000b', '\\ud800', 'x\\udc00y']) {
    const answer = await send('POST', '/api/v1/items', { body: `{"title":"${title}"}` })
    isProblem(answer, 400, 'invalid-record')
    assert.equal(answer.body.errors[0].field, 'title')
  }
})

test('prototype keys in a body are refused as malformed JSON, saying which names', async () => {
  for (const body of ['{"title":"p","__proto__":{"x":1}}', '{"title":"c","constructor":{"prototype":{"x":1}}}']) {
    const answer = await send('POST', '/api/v1/items', { body })
    isProblem(answer, 400, 'malformed-json')
    assert.match(answer.body.detail, /names "__proto__" or "constructor\.prototype"/)
  }
})

test('a body whose bytes are not UTF-8 is refused, never stored with replacement characters', async () => {
  const latin1 = Buffer.concat([Buffer.from('{"title":"caf'), Buffer.from([0xe9]), Buffer.from('"}')])
  const answer = await send('POST', '/api/v1/items', { body: latin1 })
  isProblem(answer, 400, 'malformed-json')
  assert.equal(answer.body.detail, 'The request body is not valid UTF-8.')
  const listed = await send('GET', `/api/v1/items?filter=${encodeURIComponent('title = "caf\uFFFD"')}`)
  assert.deepEqual(listed.body.items, [])
})

test('JSON in a charset other than UTF-8, or in a content coding, is 415; charset=utf-8 is read', async () => {
  for (const contentType of ['application/json; charset=iso-8859-1', 'application/json; charset="utf-16"']) {
    const answer = await send('POST', '/api/v1/items', { headers: { 'content-type': contentType }, body: '{"title":"x"}' })
    isProblem(answer, 415, 'unsupported-media-type')
    assert.equal(answer.body.detail, 'JSON bodies are UTF-8: send charset=utf-8, or no charset.')
  }
  const gzipped = await send('POST', '/api/v1/items', { headers: { 'content-encoding': 'gzip' }, body: '{"title":"x"}' })
  isProblem(gzipped, 415, 'unsupported-media-type')
  assert.equal(gzipped.body.detail, 'The body has a Content-Encoding this server does not decode: send it uncompressed.')
  for (const contentType of ['application/json; charset=UTF-8', 'application/json;charset="utf8"']) {
    const answer = await send('POST', '/api/v1/items', { headers: { 'content-type': contentType }, body: '{"title":"utf-8 é"}' })
    assert.equal(answer.status, 201, JSON.stringify(answer.body))
    assert.equal(answer.body.title, 'utf-8 é')
  }
})

test('a text/plain body is 415 like any body that is not JSON, on every route that takes one', async () => {
  for (const path of ['/api/v1/items', '/api/v1/items:search', '/api/v1:batchWrite']) {
    isProblem(await send('POST', path, { headers: { 'content-type': 'text/plain' }, body: '{"title":"x"}' }), 415, 'unsupported-media-type')
  }
})

test('numbers too large for their field are 400 invalid-record, never stored rounded', async () => {
  isProblem(await send('POST', '/api/v1/items', { body: '{"title":"n","amount":1e400}' }), 400, 'invalid-record')
})

test('a body that names a member twice, in any spelling, is refused as malformed JSON', async () => {
  for (const body of ['{"title":"a","title":"b"}', '{"title":"a","\\u0074itle":"b"}', '{"title":"x","data":{"k":1,"k":2}}', '{"title":"x","data":[{"k":1},{"k":2,"k":3}]}']) {
    const answer = await send('POST', '/api/v1/items', { body })
    isProblem(answer, 400, 'malformed-json')
  }
  // The same name in sibling objects, and in strings that only look like keys, is no duplicate.
  for (const body of ['{"title":"x","data":[{"k":1},{"k":2}]}', '{"title":"x \\"title\\": y","data":{"title":1}}']) {
    assert.equal((await send('POST', '/api/v1/items', { body })).status, 201, body)
  }
})

test('an empty body sent as JSON is no body: DELETE answers 204, a create asks for its record; a malformed one stays 400', async () => {
  const created = await send('POST', '/api/v1/items', { body: '{"title":"to delete"}' })
  assert.equal(created.status, 201)
  const deleted = await send('DELETE', `/api/v1/items/${created.body.id as number}`, { body: '', headers: { 'content-length': '0' } })
  assert.equal(deleted.status, 204, JSON.stringify(deleted.body))
  const empty = await send('POST', '/api/v1/items', { body: '', headers: { 'content-length': '0' } })
  isProblem(empty, 400, 'invalid-record')
  assert.deepEqual(empty.body.errors, [{ field: 'body', code: 'type', message: 'The body must be a JSON object of field values.' }])
  for (const body of ['{', ' ']) {
    isProblem(await send('DELETE', '/api/v1/items/1', { body, headers: { 'content-length': '1' } }), 400, 'malformed-json')
  }
})
