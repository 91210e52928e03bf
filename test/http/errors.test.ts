import { test } from 'node:test'
import { runtimeOf } from '../../lib/runtime.js'
import assert from 'node:assert/strict'
import { buildApp, createUser, bearer, json } from '../helpers/app.js'
import { withTransaction } from '../../lib/db/transaction.js'
import { INTERNAL_ERROR_DETAIL } from '../../lib/problems.js'

const reported: unknown[] = []
const app = await buildApp({ signInPerMinute: 1000, onUnhandledError: (err) => { reported.push(err) } })
app.get('/api/v1/boom', async () => { throw new Error('secret internal detail') })
app.get('/api/v1/duplicate', async () => {
  await withTransaction(runtimeOf(app).db.app, { timeoutMs: 5000 }, async (tx) => {
    await tx.query('CREATE TEMP TABLE secret_table (secret_column text CONSTRAINT secret_constraint UNIQUE)')
    await tx.query("INSERT INTO secret_table VALUES ('hidden-value'), ('hidden-value')")
  })
})
app.get('/api/v1/slow', async () => {
  await withTransaction(runtimeOf(app).db.app, { timeoutMs: 50, readOnly: true }, async (tx) => { await tx.query('SELECT pg_sleep(2)') })
})
await createUser(app, 'admin@example.com')
const auth = await bearer(app, 'admin@example.com')

function assertProblem (response: { statusCode: number, headers: Record<string, unknown>, body: string }, status: number, slug: string, instance: string): Record<string, unknown> {
  assert.equal(response.statusCode, status)
  assert.equal(response.headers['content-type'], 'application/problem+json; charset=utf-8')
  assert.equal(typeof response.headers['x-meta-version'], 'string')
  const body = json(response as never)
  assert.equal(body.type, `urn:service:problem:${slug}`)
  assert.equal(body.status, status)
  assert.equal(typeof body.title, 'string')
  assert.equal(typeof body.detail, 'string')
  assert.equal(body.instance, instance)
  return body
}

test('a malformed JSON body is 400 malformed-json', async () => {
  for (const payload of ['{"email": ', ' ']) {
    const response = await app.inject({ method: 'POST', url: '/api/auth/sign-in/email', headers: { 'content-type': 'application/json' }, payload })
    assertProblem(response, 400, 'malformed-json', '/api/auth/sign-in/email')
  }
})

test('an empty JSON body is no body: the route asks for the body it needs', async () => {
  const sent = await app.inject({ method: 'POST', url: '/api/auth/sign-in/email', headers: { 'content-type': 'application/json' }, payload: '' })
  const none = await app.inject({ method: 'POST', url: '/api/auth/sign-in/email' })
  const body = assertProblem(sent, 400, 'invalid-record', '/api/auth/sign-in/email')
  assert.deepEqual(body.errors, [{ field: 'body', code: 'invalid', message: 'body must be object' }])
  assert.deepEqual(body, json(none))
})

test('a prototype-poisoning body is refused as malformed JSON', async () => {
  const response = await app.inject({ method: 'POST', url: '/api/auth/sign-in/email', headers: { 'content-type': 'application/json' }, payload: '{"__proto__": {"admin": true}, "email": "a@b.c", "password": "x"}' })
  const body = assertProblem(response, 400, 'malformed-json', '/api/auth/sign-in/email')
  assert.match(String(body.detail), /names "__proto__"/)
})

test('a body of another media type is 415 unsupported-media-type', async () => {
  const response = await app.inject({ method: 'POST', url: '/api/auth/sign-in/email', headers: { 'content-type': 'application/xml' }, payload: '<a/>' })
  assertProblem(response, 415, 'unsupported-media-type', '/api/auth/sign-in/email')
})

test('a body over the limit is 413 payload-too-large', async () => {
  const response = await app.inject({ method: 'POST', url: '/api/auth/sign-in/email', headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ email: 'a@b.c', password: 'x'.repeat(1_100_000) }) })
  assertProblem(response, 413, 'payload-too-large', '/api/auth/sign-in/email')
})

test('a body failing its schema is 400 invalid-record naming the field', async () => {
  const response = await app.inject({ method: 'POST', url: '/api/auth/sign-in/email', payload: { email: 'a@example.com' } })
  const body = assertProblem(response, 400, 'invalid-record', '/api/auth/sign-in/email')
  assert.deepEqual(body.errors, [{ field: 'password', code: 'invalid', message: 'password is required' }])
})

test('an unknown route behind the gate is 404 not-found', async () => {
  assertProblem(await app.inject({ method: 'GET', url: '/api/v1/nothing-here', headers: auth }), 404, 'not-found', '/api/v1/nothing-here')
  assertProblem(await app.inject({ method: 'DELETE', url: '/api/auth/jwks', headers: auth }), 404, 'not-found', '/api/auth/jwks')
})

test('an unexpected error is a 500 with a fixed detail, reported to onUnhandledError', async () => {
  reported.length = 0
  const response = await app.inject({ method: 'GET', url: '/api/v1/boom', headers: auth })
  const body = assertProblem(response, 500, 'internal-error', '/api/v1/boom')
  assert.equal(body.detail, INTERNAL_ERROR_DETAIL)
  assert.doesNotMatch(response.body, /secret/)
  assert.equal(reported.length, 1)
  assert.equal((reported[0] as Error).message, 'secret internal detail')
})

test('a unique violation is 409 conflict without the constraint, table, column or value', async () => {
  reported.length = 0
  const response = await app.inject({ method: 'GET', url: '/api/v1/duplicate', headers: auth })
  assertProblem(response, 409, 'conflict', '/api/v1/duplicate')
  assert.doesNotMatch(response.body, /secret|hidden-value/)
  assert.equal(reported.length, 0)
})

test('a statement over the timeout is 504 statement-timeout', async () => {
  const response = await app.inject({ method: 'GET', url: '/api/v1/slow', headers: auth })
  assertProblem(response, 504, 'statement-timeout', '/api/v1/slow')
})

test('X-Meta-Version is on public, protected and error responses', async () => {
  const status = await app.inject({ method: 'GET', url: '/api/auth/status' })
  const anonymous = await app.inject({ method: 'GET', url: '/api/v1/x' })
  const admin = await app.inject({ method: 'GET', url: '/api/v1/x', headers: auth })
  assert.equal(status.headers['x-meta-version'], anonymous.headers['x-meta-version'])
  assert.notEqual(admin.headers['x-meta-version'], anonymous.headers['x-meta-version'])
})
