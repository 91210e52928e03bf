import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildApp, createUser, bearer, json } from '../helpers/app.js'

test('a protected route answers 401 without a token and passes the gate with one', async () => {
  const app = await buildApp()
  const anonymous = await app.inject({ method: 'GET', url: '/api/v1/orders' })
  assert.equal(anonymous.statusCode, 401)
  await createUser(app, 'admin@example.com')
  const withToken = await app.inject({ method: 'GET', url: '/api/v1/orders', headers: await bearer(app, 'admin@example.com') })
  assert.equal(withToken.statusCode, 404)
  assert.equal(json(withToken).type, 'urn:service:problem:not-found')
})
