// /healthz and /readyz answer load balancers without a token, outside the API, with fixed bodies.
// (Readiness with the database stopped is in the fault suite, test/faults.)
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { freshDatabase } from '../helpers/db.js'
import { buildApp } from '../helpers/app.js'

const app = await buildApp({ databaseUrl: await freshDatabase() })

test('/healthz and /readyz need no token and say nothing but their status', async () => {
  for (const [url, body] of [['/healthz', '{"status":"ok"}'], ['/readyz', '{"status":"ready"}']] as const) {
    const response = await app.inject({ method: 'GET', url })
    assert.equal(response.statusCode, 200, url)
    assert.equal(response.body, body)
    assert.equal(response.headers['content-type'], 'application/json; charset=utf-8')
    assert.equal(response.headers['cache-control'], 'no-store')
  }
})

test('they live outside the API: under it they need a token like anything else', async () => {
  const response = await app.inject({ method: 'GET', url: '/api/healthz' })
  assert.equal(response.statusCode, 401)
})
