// A client that goes away mid-export leaves nothing running: mid-stream (the cursor waits on the
// client) the transaction is rolled back and the connection returned; during a slow fetch the
// statement is cancelled in PostgreSQL. Checked in pg_stat_activity, over a real socket.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { connect } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'
import { freshDatabase, runSql, withClient } from '../helpers/db.js'
import { buildApp, createUser, bearer } from '../helpers/app.js'
import { SLOW_RESOURCES, slowSchema } from '../fixtures/slow.js'

const databaseUrl = await freshDatabase()
await runSql(databaseUrl, slowSchema({ items: 100000, rows: 100000, seconds: 0.02 }))
const app = await buildApp({ databaseUrl, resources: SLOW_RESOURCES })
await createUser(app, 'admin@example.com')
const auth = await bearer(app, 'admin@example.com')
await app.listen({ port: 0, host: '127.0.0.1' })
const { port } = app.server.address() as { port: number }

/** Sends a GET on a raw socket, reads `bytes` of the answer, then drops the connection. */
async function readThenLeave (path: string, bytes: number, leaveAfterMs?: number): Promise<string> {
  const socket = connect(port, '127.0.0.1')
  socket.write(`GET ${path} HTTP/1.1\r\nHost: localhost\r\nAuthorization: ${auth.authorization}\r\n\r\n`)
  let received = ''
  await new Promise<void>((resolve) => {
    const leave = (): void => { socket.destroy(); resolve() }
    if (leaveAfterMs !== undefined) setTimeout(leave, leaveAfterMs)
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString()
      if (received.length >= bytes) leave()
    })
  })
  return received
}

/** The statements of this database's other connections that are not idle. */
async function busy (table: string): Promise<string[]> {
  return await withClient(databaseUrl, async (c) => (await c.query<{ state: string }>(
    "SELECT state FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND state <> 'idle' AND query LIKE $1",
    [`%FROM "${table}"%`])).rows.map((r) => r.state))
}

async function settles (table: string): Promise<string[]> {
  let states = await busy(table)
  for (let i = 0; i < 50 && states.length > 0; i++) {
    await sleep(100)
    states = await busy(table)
  }
  return states
}

test('a client that leaves mid-stream leaves no transaction open', async () => {
  const head = await readThenLeave('/api/v1/items:export', 64 * 1024)
  assert.match(head, /^HTTP\/1\.1 200 OK/)
  assert.deepEqual(await settles('items'), [])
})

test('a client that leaves during a slow fetch has its statement cancelled', async () => {
  await readThenLeave('/api/v1/slow:export', Infinity, 500)
  // The first fetch of 1,000 rows takes 20 s: only a cancel ends it within the 5 s allowed here.
  assert.deepEqual(await settles('slow'), [])
  // The pool is whole again: the next request is served.
  const again = await app.inject({ method: 'GET', url: '/api/v1/items:export?filter=id%20%3C%203', headers: auth })
  assert.equal(again.statusCode, 200)
  assert.equal(again.body.split('\n').length, 3)
})

test('a quarter of the read pool streams exports at most: past it, 429 with Retry-After, and the slot frees when the client leaves', async () => {
  const small = await buildApp({ databaseUrl, poolSize: 4, resources: SLOW_RESOURCES })
  await small.listen({ port: 0, host: '127.0.0.1' })
  const smallPort = (small.server.address() as { port: number }).port
  const smallAuth = await bearer(small, 'admin@example.com')
  const holding = connect(smallPort, '127.0.0.1')
  holding.write(`GET /api/v1/slow:export HTTP/1.1\r\nHost: localhost\r\nAuthorization: ${smallAuth.authorization}\r\n\r\n`)
  await sleep(300)
  const refused = await small.inject({ method: 'GET', url: '/api/v1/slow:export', headers: smallAuth })
  assert.equal(refused.statusCode, 429)
  assert.equal(refused.json().type, 'urn:service:problem:too-many-requests')
  assert.equal(refused.headers['retry-after'], '5')
  holding.destroy()
  assert.deepEqual(await settles('slow'), [])
  const served = await small.inject({ method: 'GET', url: '/api/v1/slow:export?filter=id%20%3C%203', headers: smallAuth })
  assert.equal(served.statusCode, 200)
})

test('exportTimeoutMs bounds an export: a first fetch past it is a 504, and nothing is left running', async () => {
  const bounded = await buildApp({ databaseUrl, exportTimeoutMs: 300, resources: SLOW_RESOURCES })
  const answer = await bounded.inject({ method: 'GET', url: '/api/v1/slow:export', headers: await bearer(bounded, 'admin@example.com') })
  assert.equal(answer.statusCode, 504)
  assert.equal(answer.json().type, 'urn:service:problem:statement-timeout')
  assert.deepEqual(await settles('slow'), [])
})
