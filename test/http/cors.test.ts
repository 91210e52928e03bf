// CORS for trusted origins only: a preflight from one is answered before authentication, every
// answer to one (errors included) lets its scripts read it with credentials, and any other origin
// gets no CORS header at all. A request without Origin carries none either.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { freshDatabase, runSql } from '../helpers/db.js'
import { buildApp, createUser, bearer } from '../helpers/app.js'

const TRUSTED = 'https://app.example.test'
const databaseUrl = await freshDatabase()
await runSql(databaseUrl, 'CREATE TABLE notes (id serial PRIMARY KEY, title text NOT NULL)')
const app = await buildApp({
  databaseUrl,
  trustedOrigins: [TRUSTED, 'https://*.example.org'],
  resources: { notes: { fields: { id: { type: 'integer', readOnly: true }, title: { type: 'string' } } } },
})
await createUser(app, 'admin@example.com')
const { authorization } = await bearer(app, 'admin@example.com')

function preflight (origin: string, url = '/api/v1/notes') {
  return app.inject({ method: 'OPTIONS', url, headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' } })
}

test('a preflight from a trusted origin is 204 with the methods and headers the API takes, without a token', async () => {
  for (const origin of [TRUSTED, 'https://shop.example.org']) {
    const answer = await preflight(origin)
    assert.equal(answer.statusCode, 204)
    assert.equal(answer.headers['access-control-allow-origin'], origin)
    assert.equal(answer.headers['access-control-allow-credentials'], 'true')
    assert.equal(answer.headers['access-control-allow-methods'], 'GET, HEAD, POST, PATCH, DELETE')
    assert.equal(answer.headers['access-control-allow-headers'], 'authorization, content-type, if-match, if-none-match, prefer')
    assert.equal(answer.headers['access-control-max-age'], '600')
    assert.equal(answer.headers.vary, 'Origin')
    assert.equal(answer.body, '')
  }
  assert.equal((await preflight(TRUSTED, '/api/auth/sign-in/email')).statusCode, 204)
})

test('a preflight from any other origin gets no CORS header: it is an unauthenticated request', async () => {
  for (const origin of ['https://evil.example.com', 'https://abc.trycloudflare.com', 'null', `${TRUSTED}/path`]) {
    const answer = await preflight(origin)
    assert.equal(answer.statusCode, 401, origin)
    assert.equal(answer.headers['access-control-allow-origin'], undefined, origin)
    assert.equal(answer.headers['access-control-allow-credentials'], undefined, origin)
  }
})

test('answers to a trusted origin carry CORS headers, errors included; Vary keeps what the route set', async () => {
  const created = await app.inject({ method: 'POST', url: '/api/v1/notes', headers: { origin: TRUSTED, authorization }, payload: { title: 'n' } })
  assert.equal(created.statusCode, 201)
  assert.equal(created.headers['access-control-allow-origin'], TRUSTED)
  assert.equal(created.headers['access-control-allow-credentials'], 'true')
  assert.equal(created.headers['access-control-expose-headers'], 'etag, location, retry-after, server-timing, www-authenticate, x-meta-version, x-service-warning, content-disposition, ratelimit-policy, ratelimit')
  const refused = await app.inject({ method: 'GET', url: '/api/v1/notes', headers: { origin: TRUSTED } })
  assert.equal(refused.statusCode, 401)
  assert.equal(refused.headers['access-control-allow-origin'], TRUSTED)
  const meta = await app.inject({ method: 'GET', url: '/api/meta', headers: { origin: TRUSTED, authorization } })
  assert.equal(meta.headers.vary, 'authorization, cookie, Origin')
})

test('without Origin, or from an untrusted one, an answer has no CORS header', async () => {
  const plain = await app.inject({ method: 'GET', url: '/api/v1/notes', headers: { authorization } })
  assert.equal(plain.statusCode, 200)
  assert.equal(plain.headers['access-control-allow-origin'], undefined)
  assert.equal(plain.headers.vary, undefined)
  const foreign = await app.inject({ method: 'GET', url: '/api/v1/notes', headers: { authorization, origin: 'https://evil.example.com' } })
  assert.equal(foreign.statusCode, 200)
  assert.equal(foreign.headers['access-control-allow-origin'], undefined)
  assert.equal(foreign.headers.vary, 'Origin')
})
