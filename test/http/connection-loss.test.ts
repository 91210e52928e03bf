// A database connection that dies under a write, or a pool with no connection free, is a 503
// problem with Retry-After; the process lives on and the next request is served. (Before, a
// backend terminated inside a write transaction ended the process with an unhandled 'error'.)
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { freshDatabase, runSql } from '../helpers/db.js'
import { buildApp, createUser, bearer, caller } from '../helpers/app.js'
import { query, sql } from '../../lib/index.js'
import { runtimeOf } from '../../lib/runtime.js'

const databaseUrl = await freshDatabase()
await runSql(databaseUrl, 'CREATE TABLE items (id serial PRIMARY KEY, title text NOT NULL)')
const app = await buildApp({
  databaseUrl,
  poolSize: 2,
  connectTimeoutMs: 300,
  resources: { items: { fields: { id: { type: 'integer', readOnly: true }, title: { type: 'string' } } } },
})
// Hooks stand in for a database that goes away mid-write, or a slow one: they run inside the write.
app.tablegate.addWriteHook(async function misbehave (event, tx) {
  const title = (event.after as { title: string }).title
  if (title === 'terminate') await query(tx, sql`SELECT pg_terminate_backend(pg_backend_pid())`)
  if (title === 'slow') await query(tx, sql`SELECT pg_sleep(2)`)
}, { resources: ['items'], operations: ['create'] })
await createUser(app, 'admin@example.com')
const call = caller(app, await bearer(app, 'admin@example.com'))

/** Runs a request, asserts it is a 503 problem with Retry-After, and returns how long it took. */
async function unavailable (request: () => Promise<{ status: number, headers: Record<string, unknown>, body: any }>): Promise<number> {
  const started = Date.now()
  const answer = await request()
  assert.equal(answer.status, 503)
  assert.equal(answer.headers['content-type'], 'application/problem+json; charset=utf-8')
  assert.equal(answer.body.type, 'urn:service:problem:service-unavailable')
  assert.equal(answer.headers['retry-after'], '1')
  return Date.now() - started
}

async function count (): Promise<number> {
  const { rows } = await runtimeOf(app).db.admin.query<{ n: number }>('SELECT count(*)::int AS n FROM items')
  return rows[0]!.n
}

test('a backend terminated inside a write transaction is a 503 with Retry-After; nothing is written, the next write works', async () => {
  const before = await count()
  await unavailable(async () => await call('POST', '/api/v1/items', { payload: { title: 'terminate' } }))
  // Give pg's 'error' event its turn: without a listener it would end the process here.
  await new Promise((resolve) => setTimeout(resolve, 50))
  assert.equal(await count(), before)
  for (let i = 0; i < 3; i++) assert.equal((await call('POST', '/api/v1/items', { payload: { title: `after ${i}` } })).status, 201)
  assert.equal(await count(), before + 3)
})

test('with every connection busy, a request waits at most connectTimeoutMs, then gets 503 with Retry-After', async () => {
  const slow = [call('POST', '/api/v1/items', { payload: { title: 'slow' } }), call('POST', '/api/v1/items', { payload: { title: 'slow' } })]
  await new Promise((resolve) => setTimeout(resolve, 100))
  const elapsed = await unavailable(async () => await call('POST', '/api/v1/items', { payload: { title: 'no room' } }))
  // Waiting for a slow write to end would take 1.9 s or more; 1.5 s leaves a loaded machine five
  // times the connect timeout.
  assert.ok(elapsed >= 250 && elapsed < 1500, `waited ${elapsed} ms`)
  assert.deepEqual((await Promise.all(slow)).map((r) => r.status), [201, 201])
  assert.equal((await call('POST', '/api/v1/items', { payload: { title: 'room again' } })).status, 201)
})

test('a backend that stops answering is given up within the statement timeout and as much again: 503, then service resumes', { timeout: 10_000 }, async () => {
  const frozenApp = await buildApp({
    databaseUrl,
    poolSize: 1,
    // 800 ms, not less: on a loaded machine (CI's browser files beside this one) the first write
    // of a fresh pool once went unanswered for 300 ms and its margin, and this write must succeed.
    statementTimeoutMs: 800,
    resources: { items: { fields: { id: { type: 'integer', readOnly: true }, title: { type: 'string' } } } },
  })
  const frozenCall = caller(frozenApp, await bearer(app, 'admin@example.com'))
  assert.equal((await frozenCall('POST', '/api/v1/items', { payload: { title: 'warm' } })).status, 201)
  // The write pool's one backend: stopped, it holds its connection open and never answers.
  const { rows } = await runtimeOf(app).db.admin.query<{ pid: number }>(
    "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'tablegate' AND pid <> pg_backend_pid()")
  const mine = [] as number[]
  for (const { pid } of rows) {
    mine.push(pid)
    process.kill(pid, 'SIGSTOP')
  }
  try {
    const elapsed = await unavailable(async () => await frozenCall('POST', '/api/v1/items', { payload: { title: 'into the void' } }))
    // Given up after the timeout and the margin (1,600 ms and a sweep); the bound only says "not
    // never", with room for a loaded machine.
    assert.ok(elapsed >= 1500 && elapsed < 7000, `answered after ${elapsed} ms`)
  } finally {
    for (const pid of mine) process.kill(pid, 'SIGCONT')
  }
  assert.equal((await frozenCall('POST', '/api/v1/items', { payload: { title: 'back' } })).status, 201)
})
