// Request limits (config `rateLimits`): per caller and class, per client address without a token,
// 429 with Retry-After and the IETF RateLimit fields, exempt roles (logged), and the routes no
// limit counts. Budgets are small so that a test reaches them in a few requests.
import { test, after } from 'node:test'
import assert from 'node:assert/strict'
import fp from 'fastify-plugin'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { problem } from '../../lib/problems.js'
import { createServer } from '../../lib/server.js'
import { freshDatabase, releaseBeforeDrop, runSql, withClient } from '../helpers/db.js'
import { TEST_SECRET, createUser, bearer, caller, subjectOf, type CallResult } from '../helpers/app.js'

const url = await freshDatabase()
await runSql(url, `
  CREATE TABLE orders (id serial PRIMARY KEY, title text NOT NULL, status text NOT NULL DEFAULT 'open');
  INSERT INTO orders (title) VALUES ('a'), ('b');
`)
const lines: string[] = []
/** A plugin's own onRequest hook, which refuses a request that asks for it. */
const refusing = fp(async (plugin: FastifyInstance) => {
  plugin.addHook('onRequest', async (request) => {
    if (request.headers['x-refuse'] !== undefined) throw problem('access-denied', 'This plugin refuses the request.')
  })
}, { name: 'refusing', dependencies: ['tablegate'] })
const app = await createServer({
  databaseUrl: url,
  authSecret: TEST_SECRET,
  roles: ['admin', 'user', 'service'],
  console: { path: '/console/' },
  rateLimits: { read: '3/min', write: '2/min', export: '1/min', aggregate: '1/10s', anonymous: '2/min', exempt: ['service'] },
  resources: { orders: { fields: { id: { type: 'integer', readOnly: true }, title: { type: 'string' }, status: { type: 'string' } } } },
  plugins: [refusing],
}, { logger: { level: 'info', stream: { write: (line: string) => { lines.push(line) } } } })
after(releaseBeforeDrop(url, async () => { await app.close() }))

let users = 0
/** A new caller of `role`, with a budget of their own. */
async function newCaller (role = 'user'): Promise<ReturnType<typeof caller>> {
  const email = `caller${++users}@example.com`
  await createUser(app, email, role)
  return caller(app, await bearer(app, email))
}

/** The `RateLimit` field's remaining requests, with its reset checked: a window's seconds left, rounded up. */
function remaining (response: CallResult | LightMyRequestResponse, limitClass: string, window: number): number {
  const match = new RegExp(`^"${limitClass}";r=(\\d+);t=(\\d+)$`).exec(String(response.headers.ratelimit))
  assert.ok(match !== null, `RateLimit: ${String(response.headers.ratelimit)}`)
  const reset = Number(match[2])
  assert.ok(reset >= window - 2 && reset <= window, `t=${reset} within the ${window} s window just started`)
  return Number(match[1])
}

test('each read counts against the caller\'s read budget; past it, 429 with Retry-After and the fields', async () => {
  const call = await newCaller()
  for (const left of [2, 1, 0]) {
    const response = await call('GET', '/api/v1/orders')
    assert.equal(response.status, 200)
    assert.equal(response.headers['ratelimit-policy'], '"read";q=3;w=60')
    assert.equal(remaining(response, 'read', 60), left)
  }
  const refused = await call('GET', '/api/v1/orders/1')
  assert.equal(refused.status, 429)
  assert.equal(refused.headers['content-type'], 'application/problem+json; charset=utf-8')
  assert.equal(refused.headers['ratelimit-policy'], '"read";q=3;w=60')
  assert.equal(remaining(refused, 'read', 60), 0)
  assert.equal(refused.headers['retry-after'], /t=(\d+)$/.exec(String(refused.headers.ratelimit))![1])
  const wait = Number(refused.headers['retry-after'])
  assert.deepEqual(refused.body, {
    type: 'urn:service:problem:too-many-requests',
    title: 'Too many requests',
    status: 429,
    detail: `You have used your budget of 3 reads in a minute: try again in ${wait} second${wait === 1 ? '' : 's'}.`,
    instance: '/api/v1/orders/1',
  })
})

test('a request a plugin\'s own onRequest hook refuses has counted: the count runs before the hooks of plugins', async () => {
  const call = await newCaller()
  const refused = await call('GET', '/api/v1/orders', { headers: { 'x-refuse': '1' } })
  assert.equal(refused.status, 403)
  assert.equal(refused.body.type, 'urn:service:problem:access-denied')
  assert.equal(remaining(refused, 'read', 60), 2)
  assert.equal(remaining(await call('GET', '/api/v1/orders'), 'read', 60), 1)
})

test('one caller over budget leaves another caller\'s budget whole', async () => {
  const spender = await newCaller()
  const other = await newCaller()
  for (let i = 0; i < 4; i++) await spender('GET', '/api/v1/orders')
  assert.equal((await spender('GET', '/api/v1/orders')).status, 429)
  const theirs = await other('GET', '/api/v1/orders')
  assert.equal(theirs.status, 200)
  assert.equal(remaining(theirs, 'read', 60), 2)
})

test('writes, exports and aggregates each have their own budget, apart from reads', async () => {
  const call = await newCaller()
  for (let i = 0; i < 3; i++) assert.equal((await call('GET', '/api/v1/orders')).status, 200)
  assert.equal((await call('GET', '/api/v1/orders')).status, 429)
  // :search is a read, whatever its method.
  assert.equal((await call('POST', '/api/v1/orders:search', { payload: {} })).status, 429)
  const created = await call('POST', '/api/v1/orders', { payload: { title: 'c' } })
  assert.equal(created.status, 201)
  assert.equal(created.headers['ratelimit-policy'], '"write";q=2;w=60')
  assert.equal(remaining(created, 'write', 60), 1)
  const deleted = await call('DELETE', `/api/v1/orders/${created.body.id as number}`)
  assert.equal(deleted.status, 204)
  assert.equal(remaining(deleted, 'write', 60), 0)
  const undelete = await call('POST', `/api/v1/orders/${created.body.id as number}:undelete`)
  assert.equal(undelete.status, 429)
  assert.equal(undelete.headers['ratelimit-policy'], '"write";q=2;w=60')
  const exported = await app.inject({ method: 'GET', url: '/api/v1/orders:export', headers: await bearer(app, `caller${users}@example.com`) })
  assert.equal(exported.statusCode, 200)
  assert.equal(exported.headers['ratelimit-policy'], '"export";q=1;w=60')
  assert.equal(remaining(exported, 'export', 60), 0)
  assert.equal((await call('GET', '/api/v1/orders:export')).status, 429)
  const facets = await call('GET', '/api/v1/orders:facets?field=status')
  assert.equal(facets.status, 200)
  assert.equal(facets.headers['ratelimit-policy'], '"aggregate";q=1;w=10')
  assert.equal(remaining(facets, 'aggregate', 10), 0)
  const again = await call('GET', '/api/v1/orders:facets?field=status')
  assert.equal(again.status, 429)
  assert.match(again.body.detail, /^You have used your budget of 1 aggregate requests in 10 seconds: try again in (9|10) seconds\.$/)
})

test('a refused request is still refused by its budget, not run: a create past the write budget adds no record', async () => {
  const call = await newCaller()
  for (const title of ['w1', 'w2']) assert.equal((await call('POST', '/api/v1/orders', { payload: { title } })).status, 201)
  assert.equal((await call('POST', '/api/v1/orders', { payload: { title: 'w3' } })).status, 429)
  const admin = await newCaller('admin')
  const listed = await admin('GET', '/api/v1/orders?filter=title%20%3D%20%22w3%22')
  assert.deepEqual(listed.body.items, [])
})

test('without a token, each client address has its own budget; health and the login routes are not counted', async () => {
  const docs = async (remoteAddress: string): Promise<LightMyRequestResponse> => await app.inject({ method: 'GET', url: '/console/', remoteAddress })
  const first = await docs('192.0.2.1')
  assert.equal(first.statusCode, 200)
  assert.equal(first.headers['ratelimit-policy'], '"anonymous";q=2;w=60')
  assert.equal(remaining(first, 'anonymous', 60), 1)
  assert.equal(remaining(await docs('192.0.2.1'), 'anonymous', 60), 0)
  const refused = await docs('192.0.2.1')
  assert.equal(refused.statusCode, 429)
  assert.match(json(refused).detail, /^This client address has used its budget of 2 requests without a token in a minute: try again in \d+ seconds?\.$/)
  assert.equal(remaining(await docs('192.0.2.2'), 'anonymous', 60), 1)
  for (let i = 0; i < 3; i++) {
    for (const path of ['/healthz', '/api/auth/get-session', '/api/auth/status']) {
      const response = await app.inject({ method: 'GET', url: path, remoteAddress: '192.0.2.1' })
      assert.notEqual(response.statusCode, 429, path)
      assert.equal(response.headers['ratelimit-policy'], undefined, path)
      assert.equal(response.headers.ratelimit, undefined, path)
    }
  }
  // The console's files take no token: whoever sends one still counts as the address.
  assert.equal((await app.inject({ method: 'GET', url: '/console/', remoteAddress: '192.0.2.1', headers: await bearer(app, 'caller1@example.com') })).statusCode, 429)
})

test('the docs count against their caller\'s read budget, known by their own check of the token', async () => {
  const email = `caller${++users}@example.com`
  await createUser(app, email, 'user')
  const auth = await bearer(app, email)
  const page = await app.inject({ method: 'GET', url: '/api/docs', headers: auth })
  assert.equal(page.statusCode, 200)
  assert.equal(page.headers['ratelimit-policy'], '"read";q=3;w=60')
  assert.equal(remaining(page, 'read', 60), 2)
  assert.equal(remaining(await caller(app, auth)('GET', '/api/v1/orders'), 'read', 60), 1)
  // Without a token, their own check answers 401 first: nothing is counted, not even the address.
  for (let i = 0; i < 3; i++) {
    const refused = await app.inject({ method: 'GET', url: '/api/docs', remoteAddress: '192.0.2.10' })
    assert.equal(refused.statusCode, 401)
    assert.equal(refused.headers['ratelimit-policy'], undefined)
  }
})

test('a request without a valid token is answered 401 before any budget is counted', async () => {
  const response = await app.inject({ method: 'GET', url: '/api/v1/orders', remoteAddress: '192.0.2.9' })
  assert.equal(response.statusCode, 401)
  assert.equal(response.headers['ratelimit-policy'], undefined)
})

test('an exempt role is not counted and carries no fields; its requests are logged, once a minute per caller', async () => {
  const call = await newCaller('service')
  const before = lines.length
  for (let i = 0; i < 5; i++) {
    const response = await call('GET', '/api/v1/orders')
    assert.equal(response.status, 200)
    assert.equal(response.headers['ratelimit-policy'], undefined)
    assert.equal(response.headers.ratelimit, undefined)
  }
  const logged = lines.slice(before).map((line) => JSON.parse(line) as Record<string, unknown>).filter((entry) => entry.msg === 'request limits: exempt caller (requests since the last line)')
  assert.equal(logged.length, 1)
  assert.deepEqual([logged[0]!.roles, logged[0]!.requests], [['service'], 1])
  assert.equal(typeof logged[0]!.user, 'string')
})

test('the counters\' keys name the class and the caller, or the client address, as the docs\' forgive query expects', async () => {
  const email = `caller${++users}@example.com`
  await createUser(app, email, 'user')
  const auth = await bearer(app, email)
  const call = caller(app, auth)
  assert.equal((await call('GET', '/api/v1/orders')).status, 200)
  assert.equal((await call('POST', '/api/v1/orders', { payload: { title: 'k' } })).status, 201)
  assert.equal((await app.inject({ method: 'GET', url: '/console/', remoteAddress: '192.0.2.8' })).statusCode, 200)
  const id = subjectOf(auth)
  const keys = await withClient(url, async (client) => (await client.query<{ key: string }>('SELECT key FROM tablegate_limits.requests WHERE key LIKE $1 OR key LIKE $2 ORDER BY key', [`%"${id}"%`, '%"192.0.2.8"%'])).rows.map((row) => row.key))
  assert.deepEqual(keys, [`["anonymous","address","192.0.2.8"]`, `["read","user","${id}",null]`, `["write","user","${id}",null]`])
})

function json (response: LightMyRequestResponse): any {
  return JSON.parse(response.body)
}
