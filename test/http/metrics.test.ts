// GET /api/metrics: Prometheus text for the metrics role only, counting what happened: requests by
// route template, method and status; statement timeouts; sign-in refusals; pools; caches. Each
// app counts its own traffic.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { freshDatabase, runSql } from '../helpers/db.js'
import { buildApp, createUser, bearer, caller, signIn } from '../helpers/app.js'
import { SLOW_RESOURCES, slowSchema } from '../fixtures/slow.js'

const databaseUrl = await freshDatabase()
await runSql(databaseUrl, slowSchema({ items: 2, rows: 100, seconds: 0.05 }))
const resources = SLOW_RESOURCES
const app = await buildApp({ databaseUrl, statementTimeoutMs: 300, roles: { admin: ['*'], ops: ['items.read', 'slow.read'], user: ['items.read'] }, metrics: { role: 'ops' }, resources })
await createUser(app, 'ops@example.com', 'ops')
await createUser(app, 'user@example.com', 'user')
const ops = caller(app, await bearer(app, 'ops@example.com'))
const user = caller(app, await bearer(app, 'user@example.com'))

/** The value of one sample line, or undefined when the text has none. */
function sample (text: string, line: string): number | undefined {
  const found = text.split('\n').find((l) => l.startsWith(line + ' '))
  return found === undefined ? undefined : Number(found.slice(line.length + 1))
}

test('only the metrics role reads them: 401 without a token, 403 without the role', async () => {
  assert.equal((await app.inject({ method: 'GET', url: '/api/metrics' })).statusCode, 401)
  const denied = await user('GET', '/api/metrics')
  assert.equal(denied.status, 403)
  assert.equal(denied.body.type, 'urn:service:problem:access-denied')
})

test('requests by route template, method and status; timeouts; sign-in refusals; pools; caches', async () => {
  for (let i = 0; i < 3; i++) assert.equal((await user('GET', '/api/v1/items')).status, 200)
  assert.equal((await user('GET', '/api/v1/items/12345')).status, 404)
  assert.equal((await ops('GET', '/api/v1/slow')).status, 504)
  assert.equal((await signIn(app, 'user@example.com', 'wrong password')).statusCode, 401)
  const scraped = await app.inject({ method: 'GET', url: '/api/metrics', headers: await bearer(app, 'ops@example.com') })
  assert.equal(scraped.statusCode, 200)
  assert.match(scraped.headers['content-type'] as string, /^text\/plain; version=0\.0\.4/)
  const text = scraped.body
  assert.equal(sample(text, 'tablegate_http_request_duration_seconds_count{route="/api/v1/items",method="GET",status="200"}'), 3)
  assert.equal(sample(text, 'tablegate_http_request_duration_seconds_count{route="/api/v1/items/:key",method="GET",status="404"}'), 1)
  assert.equal(sample(text, 'tablegate_sign_in_refusals_total{reason="credentials"}'), 1)
  assert.equal(sample(text, 'tablegate_statement_timeouts_total'), 1)
  for (const pool of ['app', 'read', 'admin']) assert.ok((sample(text, `tablegate_db_pool_connections{pool="${pool}"}`) ?? -1) >= 0, pool)
  assert.ok((sample(text, 'tablegate_cache_hits_total{cache="verified_tokens"}') ?? 0) >= 4)
  assert.ok((sample(text, 'tablegate_cache_hits_total{cache="access_plans"}') ?? 0) >= 3)
})

test('each app counts its own traffic', async () => {
  const other = await buildApp({ databaseUrl, roles: { admin: ['*'], user: ['items.read'] }, resources })
  assert.equal((await other.inject({ method: 'GET', url: '/api/metrics', headers: await bearer(other, 'user@example.com') })).statusCode, 403)
  // The first user of the shared store is an admin, the default metrics role.
  const scraped = await other.inject({ method: 'GET', url: '/api/metrics', headers: await bearer(other, 'ops@example.com') })
  assert.equal(scraped.statusCode, 200)
  assert.equal(sample(scraped.body, 'tablegate_http_request_duration_seconds_count{route="/api/v1/items",method="GET",status="200"}'), undefined)
  assert.equal(sample(scraped.body, 'tablegate_sign_in_refusals_total{reason="credentials"}'), undefined)
})

test('metrics: false serves no metrics route', async () => {
  const off = await buildApp({ databaseUrl, metrics: false, resources })
  const answer = await off.inject({ method: 'GET', url: '/api/metrics', headers: await bearer(off, 'ops@example.com') })
  assert.equal(answer.statusCode, 404)
  assert.equal(answer.json().type, 'urn:service:problem:not-found')
})
