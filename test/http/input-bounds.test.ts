// Every bound the OpenAPI document gives an input is the one the server keeps: one past each is
// refused, with the status the document names for it. A text column without a length takes config
// `textMaxLength`; an int8 as text is 20 characters, as a JSON number ±(2^53 − 1); page_size is an
// int32; what only the transport bounds (a query parameter, a key, a body's string) says so.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { freshDatabase, runSql } from '../helpers/db.js'
import { buildApp, createUser, bearer, caller } from '../helpers/app.js'
import { assertValidOpenApi } from '../helpers/openapi.js'

const databaseUrl = await freshDatabase()
await runSql(databaseUrl, `
  CREATE TABLE notes (id bigserial PRIMARY KEY, body text, memo varchar, short text, ref bigint);
`)
const BODY_LIMIT = 4096
const app = await buildApp({
  databaseUrl,
  textMaxLength: 8,
  bodyLimit: BODY_LIMIT,
  resources: {
    notes: {
      fields: {
        id: { type: 'bigint', readOnly: true, dbDefault: true },
        body: { type: 'string' },
        memo: { type: 'string' },
        short: { type: 'string', maxLength: 20 },
        ref: { type: 'bigint' },
      },
    },
  },
})
await createUser(app, 'admin@example.com')
const admin = caller(app, await bearer(app, 'admin@example.com'))
const document = (await admin('GET', '/api/openapi.json')).body

test('the document says each body bound: textMaxLength for text and varchar without a length, the field\'s own over it, an int8\'s text and number', async () => {
  await assertValidOpenApi(document)
  const { properties } = document.components.schemas['notes.create']
  const nullable = (schema: object): object => ({ anyOf: [schema, { type: 'null' }] })
  assert.deepEqual(properties.body, nullable({ type: 'string', maxLength: 8 }))
  assert.deepEqual(properties.memo, nullable({ type: 'string', maxLength: 8 }))
  assert.deepEqual(properties.short, nullable({ type: 'string', maxLength: 20 }))
  assert.deepEqual(properties.ref, nullable({ anyOf: [
    { type: 'string', pattern: '^-?[0-9]+$', maxLength: 20 },
    { type: 'integer', minimum: -9007199254740991, maximum: 9007199254740991, format: 'int64' },
  ] }))
})

test('one past each body bound is 400 invalid-record naming the field; at the bound it is written', async () => {
  const refused: Array<[string, unknown, string]> = [
    ['body', 'ninechars', 'body must be at most 8 characters long.'],
    ['body', '😀'.repeat(9), 'body must be at most 8 characters long.'],
    ['memo', 'ninechars', 'memo must be at most 8 characters long.'],
    ['short', 'x'.repeat(21), 'short must be at most 20 characters long.'],
    ['ref', '0'.repeat(20) + '1', 'ref must be a whole number from -9223372036854775808 to 9223372036854775807 (as a string beyond 9007199254740991).'],
    ['ref', 2 ** 53, 'ref must be a whole number from -9223372036854775808 to 9223372036854775807 (as a string beyond 9007199254740991).'],
  ]
  for (const [field, value, message] of refused) {
    const answer = await admin('POST', '/api/v1/notes', { payload: { [field]: value } })
    assert.equal(answer.status, 400, field)
    assert.equal(answer.body.type, 'urn:service:problem:invalid-record')
    assert.deepEqual(answer.body.errors, [{ field, code: 'invalid', message }])
  }
  const kept = await admin('POST', '/api/v1/notes', { payload: { body: '😀'.repeat(8), memo: 'eightchr', short: 'x'.repeat(20), ref: '-9223372036854775808' } })
  assert.equal(kept.status, 201, JSON.stringify(kept.body))
})

test('page_size is an int32 in the document and past 2^31 − 1 a 400 naming it; above 500 it counts as 500', async () => {
  assert.deepEqual(document.components.parameters.page_size.schema, { type: 'integer', format: 'int32', minimum: 1, maximum: 2147483647, default: 50 })
  assert.equal((await admin('GET', '/api/v1/notes?page_size=2147483647')).status, 200)
  for (const answer of [await admin('GET', '/api/v1/notes?page_size=2147483648'), await admin('POST', '/api/v1/notes:search', { payload: { page_size: 2147483648 } })]) {
    assert.equal(answer.status, 400)
    assert.equal(answer.body.type, 'urn:service:problem:invalid-parameter')
    assert.deepEqual(answer.body.errors.map((e: { parameter: string }) => e.parameter), ['page_size'])
  }
})

test('what the transport bounds: a query parameter past the header limit is 431, a key past a path segment 414, a body string past bodyLimit 413', async () => {
  const { order_by: orderBy, key } = document.components.parameters
  assert.equal(orderBy.schema.maxLength, 128 * 1024)
  assert.equal(key.schema.maxLength, 4096)
  const search = document.paths['/api/v1/notes:search'].post.requestBody.content['application/json'].schema
  assert.equal(search.properties.order_by.maxLength, BODY_LIMIT)
  assert.equal(search.properties.fields.maxItems, BODY_LIMIT / 2)
  // The request line's limit is Node's HTTP parser's: only a real connection meets it.
  const base = await app.listen({ port: 0, host: '127.0.0.1' })
  const { authorization } = await bearer(app, 'admin@example.com')
  assert.equal((await fetch(`${base}/api/v1/notes?order_by=${'x'.repeat(128 * 1024 + 1)}`, { headers: { authorization: authorization! } })).status, 431)
  assert.equal((await admin('GET', `/api/v1/notes/${'1'.repeat(4097)}`)).status, 414)
  assert.equal((await admin('POST', '/api/v1/notes:search', { payload: { order_by: 'x'.repeat(BODY_LIMIT + 1) } })).status, 413)
})
