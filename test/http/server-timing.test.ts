// Server-Timing (config serverTiming): each answer names its stages with their durations; the
// db stage is the time spent on the request's own statements. Off by default.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { freshDatabase, runSql } from '../helpers/db.js'
import { buildApp, createUser, bearer, caller } from '../helpers/app.js'
import { SLOW_RESOURCES, slowSchema } from '../fixtures/slow.js'

const databaseUrl = await freshDatabase()
await runSql(databaseUrl, slowSchema({ items: 20, rows: 5, seconds: 0.02 }))
const resources = SLOW_RESOURCES
const timed = await buildApp({ databaseUrl, serverTiming: true, resources })
const plain = await buildApp({ databaseUrl, resources })
await createUser(timed, 'admin@example.com')

function stages (header: string | string[] | number | undefined): Record<string, number> {
  assert.equal(typeof header, 'string', 'a Server-Timing header')
  return Object.fromEntries((header as string).split(', ').map((part) => {
    const [name, duration] = part.split(';dur=')
    return [name!, Number(duration)]
  }))
}

test('a list, a get and a create name every stage; a slow statement shows in db', async () => {
  const call = caller(timed, await bearer(timed, 'admin@example.com'))
  for (const [method, url, payload] of [['GET', '/api/v1/items'], ['GET', '/api/v1/items/1'], ['POST', '/api/v1/items', { title: 'new' }]] as const) {
    const answer = await call(method, url, payload === undefined ? {} : { payload })
    assert.ok(answer.status < 300, `${method} ${url}`)
    const times = stages(answer.headers['server-timing'])
    assert.deepEqual(Object.keys(times), ['auth', 'access', 'plan', 'db', 'serialize'])
    for (const [stage, ms] of Object.entries(times)) assert.ok(ms >= 0 && ms < 1000, `${stage} ${ms}`)
    assert.ok(times.db! > 0, `${method} ${url} waited on the database`)
  }
  const slow = stages((await call('GET', '/api/v1/slow')).headers['server-timing'])
  assert.ok(slow.db! >= 100, `five rows of pg_sleep(0.02): db ${slow.db}`)
})

test('errors carry it too; an app without serverTiming sends none', async () => {
  const call = caller(timed, await bearer(timed, 'admin@example.com'))
  const missing = await call('GET', '/api/v1/items/999999')
  assert.equal(missing.status, 404)
  assert.ok(stages(missing.headers['server-timing']).db! > 0)
  const other = caller(plain, await bearer(plain, 'admin@example.com'))
  const answer = await other('GET', '/api/v1/items')
  assert.equal(answer.status, 200)
  assert.equal(answer.headers['server-timing'], undefined)
})
