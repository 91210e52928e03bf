// The caller's OpenAPI document says what request limits do to them: the 429 and the
// RateLimit-Policy and RateLimit fields on every operation whose class has a budget, on none of
// the others, and nowhere for an exempt caller or without `rateLimits`; the document stays valid.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import type { FastifyInstance } from 'fastify'
import type { Config } from '../../lib/config/schema.js'
import { freshDatabase, runSql } from '../helpers/db.js'
import { buildApp, createUser, bearer } from '../helpers/app.js'
import { assertValidOpenApi } from '../helpers/openapi.js'

const databaseUrl = await freshDatabase()
await runSql(databaseUrl, 'CREATE TABLE orders (id serial PRIMARY KEY, title text NOT NULL, status text NOT NULL DEFAULT \'open\')')
const base: Config = {
  databaseUrl,
  roles: ['admin', 'user', 'service'],
  resources: { orders: { fields: { id: { type: 'integer', readOnly: true }, title: { type: 'string' }, status: { type: 'string' } } } },
}
const limitedApp = await buildApp({ ...base, rateLimits: { read: '600/min', write: '120/min', exempt: ['service'] } })
const plainApp = await buildApp(base)
await createUser(limitedApp, 'user@example.com', 'user')
await createUser(limitedApp, 'service@example.com', 'service')

async function documentOf (app: FastifyInstance, email: string): Promise<any> {
  const response = await app.inject({ method: 'GET', url: '/api/openapi.json', headers: await bearer(app, email) })
  assert.equal(response.statusCode, 200)
  return JSON.parse(response.body)
}

const FIELDS = { 'RateLimit-Policy': { $ref: '#/components/headers/RateLimit-Policy' }, RateLimit: { $ref: '#/components/headers/RateLimit' } }

test('reads and writes, limited, answer 429 and carry the fields; exports and aggregates, without a budget, do not', async () => {
  const document = await documentOf(limitedApp, 'user@example.com')
  await assertValidOpenApi(document)
  const { paths, components } = document
  for (const [path, method, success] of [['/api/v1/orders', 'get', '200'], ['/api/v1/orders', 'post', '201'], ['/api/v1/orders/{key}', 'get', '200'], ['/api/v1/orders/{key}', 'delete', '204'], ['/api/v1/orders:search', 'post', '200'], ['/api/meta', 'get', '200'], ['/api/v1:batchWrite', 'post', '200']] as const) {
    const operation = paths[path][method]
    assert.deepEqual(operation.responses['429'], { $ref: '#/components/responses/TooManyRequests' }, `${method} ${path}`)
    assert.deepEqual(Object.entries(operation.responses[success].headers).filter(([name]) => name.startsWith('RateLimit')), Object.entries(FIELDS), `${method} ${path}`)
  }
  for (const path of ['/api/v1/orders:facets', '/api/v1/orders:export']) {
    const { responses } = paths[path].get
    assert.equal(Object.keys(responses['200'].headers ?? {}).some((name) => name.startsWith('RateLimit')), false, path)
  }
  assert.equal(paths['/api/v1/orders:facets'].get.responses['429'], undefined)
  const CORS = { 'Access-Control-Allow-Origin': { $ref: '#/components/headers/Access-Control-Allow-Origin' } }
  assert.deepEqual(Object.keys(components.headers), ['Access-Control-Allow-Origin', 'RateLimit-Policy', 'RateLimit'])
  assert.deepEqual({ 'RateLimit-Policy': components.headers['RateLimit-Policy'], RateLimit: components.headers.RateLimit }, {
    'RateLimit-Policy': {
      schema: { type: 'string' },
      description: 'The budget this request counted against (config rateLimits): q requests per w seconds, for the caller (user and organization) and this class of operation. Sent on every counted answer; not for exempt roles.',
      example: '"read";q=600;w=60',
    },
    RateLimit: { schema: { type: 'string' }, description: 'What is left of that budget: r requests until the window ends, in t seconds.', example: '"read";r=597;t=42' },
  })
  assert.deepEqual(components.responses.TooManyRequests.headers, { ...CORS, 'Retry-After': { schema: { type: 'string', pattern: '^[0-9]{1,10}$', maxLength: 10 }, description: 'Seconds to wait before trying again.' }, ...FIELDS })
  assert.deepEqual(components.responses.NotFound.headers, { ...CORS, ...FIELDS })
  assert.equal(components.responses.Unauthenticated.headers.RateLimit, undefined)
})

test('an exempt caller\'s document, and every document without rateLimits, has no limit in it', async () => {
  // The two apps share the database, and so the login store: the same user without limits.
  for (const document of [await documentOf(limitedApp, 'service@example.com'), await documentOf(plainApp, 'user@example.com')]) {
    await assertValidOpenApi(document)
    assert.deepEqual(Object.keys(document.components.headers), ['Access-Control-Allow-Origin'])
    assert.equal(document.paths['/api/v1/orders'].get.responses['429'], undefined)
    assert.equal(JSON.stringify(document).includes('RateLimit'), false)
  }
})
