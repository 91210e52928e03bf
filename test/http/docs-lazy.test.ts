// Scalar's reference carries its browser bundle in memory (35 MB of a process, 23 MB of heap):
// it is loaded by the first request for a docs page, so a process that never serves one never
// holds it, and the pages are Scalar's own all the same.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { runInNewContext } from 'node:vm'
import { setFlagsFromString } from 'node:v8'
import { buildApp, createUser, bearer } from '../helpers/app.js'
import { freshDatabase, runSql } from '../helpers/db.js'

setFlagsFromString('--expose-gc')
const collect = runInNewContext('gc') as () => void
const heapMb = (): number => {
  collect()
  return process.memoryUsage().heapUsed / 1048576
}

test('the docs pages load Scalar on their first request, and answer as Scalar does', async () => {
  const databaseUrl = await freshDatabase()
  await runSql(databaseUrl, 'CREATE TABLE notes (id serial PRIMARY KEY)')
  const app = await buildApp({ databaseUrl, resources: { notes: { fields: { id: { type: 'integer', readOnly: true } } } } })
  await createUser(app, 'admin@example.com')
  const headers = await bearer(app, 'admin@example.com')
  await app.inject({ method: 'GET', url: '/api/meta', headers })
  // The answer is read in a function of its own, so the heap measured after it holds no answer.
  const bundle = async (): Promise<{ status: number, type: string, length: number }> => {
    const answer = await app.inject({ method: 'GET', url: '/api/docs/js/scalar.js', headers })
    return { status: answer.statusCode, type: String(answer.headers['content-type']), length: answer.body.length }
  }
  const started = heapMb()
  const first = await bundle()
  const grown = heapMb() - started
  assert.equal(first.status, 200)
  assert.match(first.type, /^application\/javascript/)
  assert.ok(first.length > 1_000_000, `a bundle of ${first.length} characters`)
  // The module's source and the bundle's text, held from now on: 36 MB here, where a first request
  // to a Scalar loaded at start added 8 MB (the answer's flat copy, which comes and goes).
  assert.ok(grown > 20, `the first docs request added ${grown.toFixed(1)} MB of heap`)
  assert.deepEqual(await bundle(), first)

  const page = await app.inject({ method: 'GET', url: '/api/docs/', headers })
  assert.equal(page.statusCode, 200)
  assert.match(String(page.headers['content-type']), /^text\/html/)
  assert.match(page.body, /js\/scalar\.js/)
  assert.match(page.body, /openapi\.json/)
  const bare = await app.inject({ method: 'GET', url: '/api/docs', headers })
  assert.equal(bare.statusCode, 301)
  assert.equal(bare.headers.location, '/api/docs/')
})
