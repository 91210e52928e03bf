// The sign-in limiter's client is request.ip under `trustProxy` (docs/login.md, "Sign-in limit and
// the client address"): x-forwarded-for is believed only from trusted peers (by default loopback
// and private networks), so a client that reaches the server directly cannot pick a fresh bucket
// for each attempt.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { buildApp, createUser, PASSWORD, usersOf } from '../helpers/app.js'
import { assertAuthProblem } from '../helpers/login.js'
import { createServer } from '../../lib/server.js'
import { ConfigError } from '../../lib/config/validate.js'

async function attempt (app: FastifyInstance, remoteAddress: string, forwardedFor?: string): Promise<LightMyRequestResponse> {
  return await app.inject({
    method: 'POST',
    url: '/api/auth/sign-in/email',
    remoteAddress,
    headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor },
    payload: { email: 'admin@example.com', password: PASSWORD },
  })
}

async function limited (config: Parameters<typeof buildApp>[0] = {}): Promise<FastifyInstance> {
  const app = await buildApp({ signInPerMinute: 2, ...config })
  await createUser(app, 'admin@example.com')
  return app
}

async function buckets (app: FastifyInstance): Promise<Array<{ key: string, hits: number }>> {
  return (await usersOf(app).pool.query('SELECT key, hits FROM auth_rate_limit ORDER BY key')).rows
}

test('by default a direct public peer is its own client whatever x-forwarded-for it sends: spoofed values share one bucket', async () => {
  const app = await limited()
  assert.equal((await attempt(app, '198.51.100.7', '203.0.113.1')).statusCode, 200)
  assert.equal((await attempt(app, '198.51.100.7', '203.0.113.2')).statusCode, 200)
  assertAuthProblem(await attempt(app, '198.51.100.7', '203.0.113.3'), 429, 'too-many-requests', 'TOO_MANY_REQUESTS')
  assertAuthProblem(await attempt(app, '198.51.100.7'), 429, 'too-many-requests', 'TOO_MANY_REQUESTS')
  assert.deepEqual(await buckets(app), [{ key: '198.51.100.7', hits: 4 }])
  // Another direct peer has its own bucket.
  assert.equal((await attempt(app, '198.51.100.8', '203.0.113.1')).statusCode, 200)
})

test('by default loopback and private-network peers are proxies: the client they name gets the bucket', async () => {
  const app = await limited()
  const statuses: number[] = []
  for (const proxy of ['127.0.0.1', '10.1.2.3', '192.168.0.10', '172.16.5.5', '::1', 'fd00::1']) {
    statuses.push((await attempt(app, proxy, '203.0.113.50')).statusCode)
  }
  // One client through six proxies: two attempts, then the limit.
  assert.deepEqual(statuses, [200, 200, 429, 429, 429, 429])
  assert.deepEqual(await buckets(app), [{ key: '203.0.113.50', hits: 6 }])
  // Behind a proxy that appends, the entries before its own are the client's say, not believed.
  assertAuthProblem(await attempt(app, '10.0.0.1', '192.0.2.99, 203.0.113.50'), 429, 'too-many-requests', 'TOO_MANY_REQUESTS')
})

test('behind a public load balancer, trustProxy names it: the real client address is used', async () => {
  const app = await limited({ trustProxy: ['198.51.100.0/24'] })
  assert.equal((await attempt(app, '198.51.100.1', '203.0.113.10')).statusCode, 200)
  assert.equal((await attempt(app, '198.51.100.2', '203.0.113.10')).statusCode, 200)
  assertAuthProblem(await attempt(app, '198.51.100.1', '203.0.113.10'), 429, 'too-many-requests', 'TOO_MANY_REQUESTS')
  assert.equal((await attempt(app, '198.51.100.1', '203.0.113.11')).statusCode, 200)
  // A peer outside the list is not believed.
  assert.equal((await attempt(app, '192.0.2.1', '203.0.113.10')).statusCode, 200)
  assert.deepEqual((await buckets(app)).map((b) => b.key), ['192.0.2.1', '203.0.113.10', '203.0.113.11'])
  // The session records the same address.
  const { rows } = await usersOf(app).pool.query('SELECT DISTINCT ip_address FROM auth_session ORDER BY ip_address')
  assert.deepEqual(rows.map((r) => r.ip_address), ['192.0.2.1', '203.0.113.10', '203.0.113.11'])
})

test('trustProxy: false believes no one, true everyone; TRUST_PROXY sets it from the environment', async () => {
  const none = await limited({ trustProxy: false })
  await attempt(none, '127.0.0.1', '203.0.113.20')
  assert.deepEqual((await buckets(none)).map((b) => b.key), ['127.0.0.1'])

  const all = await limited({ trustProxy: true })
  await attempt(all, '198.51.100.9', '203.0.113.21, 192.0.2.5')
  assert.deepEqual((await buckets(all)).map((b) => b.key), ['203.0.113.21'])

  const saved = process.env.TRUST_PROXY
  process.env.TRUST_PROXY = '198.51.100.9'
  try {
    const fromEnv = await limited()
    await attempt(fromEnv, '198.51.100.9', '203.0.113.22')
    await attempt(fromEnv, '127.0.0.1', '203.0.113.23')
    assert.deepEqual((await buckets(fromEnv)).map((b) => b.key), ['127.0.0.1', '203.0.113.22'])
  } finally {
    if (saved === undefined) delete process.env.TRUST_PROXY
    else process.env.TRUST_PROXY = saved
  }
})

test('a trustProxy entry that is no address, range or named range, or a hop count, fails the start, naming it', async () => {
  await assert.rejects(createServer({ trustProxy: 1 }), (err: Error) => err instanceof ConfigError && /config\.trustProxy: a hop count cannot tell a proxy from a client/.test(err.message))
  await assert.rejects(createServer({ trustProxy: ['10.0.0.0/8', 'proxy.internal'] }),
    (err: Error) => err instanceof ConfigError && /config\.trustProxy: 'proxy\.internal' is not an IP address/.test(err.message))
  await assert.rejects(createServer({ trustProxy: '10.0.0.0/33' }), ConfigError)
  await assert.rejects(createServer({ trustProxy: {} as never }), (err: Error) => err instanceof ConfigError && /config\.trustProxy/.test(err.message))
})
