// Request limits across processes: two apps on one database (as two processes behind a load
// balancer, or behind PgBouncer in a pooled run) draw on one budget per caller, even under
// concurrent requests; an app without `rateLimits` counts nothing and sends no fields; bad
// settings stop the start, saying which key.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createServer } from '../../lib/server.js'
import type { Config } from '../../lib/config/schema.js'
import { freshDatabase, runSql } from '../helpers/db.js'
import { buildApp, createUser, bearer, caller, TEST_SECRET } from '../helpers/app.js'

const databaseUrl = await freshDatabase()
await runSql(databaseUrl, `
  CREATE TABLE notes (id serial PRIMARY KEY, body text NOT NULL);
  INSERT INTO notes (body) VALUES ('one'), ('two');
`)
const resources: Config['resources'] = { notes: { fields: { id: { type: 'integer', readOnly: true }, body: { type: 'string' } } } }
const rateLimits = { read: '4/min', write: '10/min', aggregate: '300/min' }
const one = await buildApp({ databaseUrl, resources, rateLimits })
const other = await buildApp({ databaseUrl, resources, rateLimits })

let users = 0
/** A new caller's token: the apps share the login store, so either accepts it. */
async function newToken (): Promise<Record<string, string>> {
  const email = `caller${++users}@example.com`
  await createUser(one, email, 'user')
  return await bearer(one, email)
}

test('one caller\'s reads through two apps count against one budget', async () => {
  const auth = await newToken()
  const left: string[] = []
  for (const app of [one, other, one, other]) {
    const response = await caller(app, auth)('GET', '/api/v1/notes')
    assert.equal(response.status, 200)
    assert.equal(response.headers['ratelimit-policy'], '"read";q=4;w=60')
    left.push(/r=(\d+)/.exec(String(response.headers.ratelimit))![1]!)
  }
  assert.deepEqual(left, ['3', '2', '1', '0'])
  assert.equal((await caller(one, auth)('GET', '/api/v1/notes')).status, 429)
  assert.equal((await caller(other, auth)('GET', '/api/v1/notes/1')).status, 429)
})

test('concurrent writes through two apps: exactly the budget passes, the rest is 429', async () => {
  const auth = await newToken()
  const responses = await Promise.all(Array.from({ length: 16 }, async (_, i) => await caller(i % 2 === 0 ? one : other, auth)('POST', '/api/v1/notes', { payload: { body: `n${i}` } })))
  const statuses = responses.map((r) => r.status).sort()
  assert.deepEqual(statuses, [...Array<number>(10).fill(201), ...Array<number>(6).fill(429)])
  const left = responses.filter((r) => r.status === 201).map((r) => Number(/r=(\d+)/.exec(String(r.headers.ratelimit))![1])).sort((a, b) => a - b)
  assert.deepEqual(left, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9])
  // The two records of the start and the ten the budget let through.
  assert.equal(await countNotes(), 12)
})

test('a budget of 300 is taken three requests at a time by each app, and no more than 300 pass in all', async () => {
  const auth = await newToken()
  const facets = async (i: number): Promise<number> => (await caller(i % 2 === 0 ? one : other, auth)('GET', '/api/v1/notes:facets?field=body')).status
  const first = await caller(one, auth)('GET', '/api/v1/notes:facets?field=body')
  assert.equal(first.status, 200)
  assert.equal(first.headers['ratelimit-policy'], '"aggregate";q=300;w=60')
  assert.match(String(first.headers.ratelimit), /^"aggregate";r=299;t=(59|60)$/)
  // The next request through the other app counts from the other app's lease: three further on.
  assert.match(String((await caller(other, auth)('GET', '/api/v1/notes:facets?field=body')).headers.ratelimit), /^"aggregate";r=296;t=(59|60)$/)
  const statuses = await Promise.all(Array.from({ length: 340 }, async (_, i) => await facets(i)))
  assert.equal(statuses.filter((status) => status === 200).length, 298)
  assert.equal(statuses.filter((status) => status === 429).length, 42)
})

async function countNotes (): Promise<number> {
  const app = await buildApp({ databaseUrl, resources })
  await createUser(app, 'counter@example.com', 'admin')
  const response = await caller(app, await bearer(app, 'counter@example.com'))('GET', '/api/v1/notes?count=exact&page_size=1')
  return response.body.total_size as number
}

test('without rateLimits nothing is counted and no answer carries the fields', async () => {
  const app = await buildApp({ databaseUrl, resources })
  const auth = await newToken()
  for (let i = 0; i < 6; i++) {
    const response = await caller(app, auth)('GET', '/api/v1/notes')
    assert.equal(response.status, 200)
    assert.equal(response.headers['ratelimit-policy'], undefined)
    assert.equal(response.headers.ratelimit, undefined)
    assert.equal(response.headers['retry-after'], undefined)
  }
})

test('a budget that does not parse, or an exempt role that is no role, stops the start naming the key', async () => {
  await assert.rejects(createServer({ databaseUrl, authSecret: TEST_SECRET, rateLimits: { read: '600 per minute' } }), {
    name: 'ConfigError',
    message: 'config.rateLimits.read: \'600 per minute\' is not a budget such as \'600/min\', \'100/10s\' or \'5000/h\' (requests, a slash, then a window in s, min, h or d)',
  })
  await assert.rejects(createServer({ databaseUrl, authSecret: TEST_SECRET, rateLimits: { write: '10/30d' } }), {
    message: 'config.rateLimits.write: \'10/30d\' has a window longer than 24 days',
  })
  await assert.rejects(createServer({ databaseUrl, authSecret: TEST_SECRET, rateLimits: { read: '5/s', exempt: ['servce'] }, roles: ['admin', 'user', 'service'] }), {
    message: 'config.rateLimits.exempt: \'servce\' is not a role of config.roles (did you mean \'service\'?)',
  })
  await assert.rejects(createServer({ databaseUrl, authSecret: TEST_SECRET, rateLimits: { reads: '5/s' } } as Config), {
    message: 'invalid config: config.rateLimits.reads: unknown key (did you mean \'read\'?)',
  })
})

test('limits on without their table (no migration run) stop the start, saying to migrate', async () => {
  const fresh = await freshDatabase()
  await (await createServer({ databaseUrl: fresh, authSecret: TEST_SECRET })).close()
  await assert.rejects(createServer({ databaseUrl: fresh, authSecret: TEST_SECRET, migrateOnStart: false, rateLimits: { read: '5/s' } }), {
    message: 'config.rateLimits: the request counters\' table tablegate_limits.requests is missing: run `tablegate migrate` (or start with migrateOnStart)',
  })
})
