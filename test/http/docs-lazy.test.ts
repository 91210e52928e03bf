// Scalar's reference carries its browser bundle in memory (35 MB of a process, 23 MB of heap):
// it is imported by the first request for a docs page, so a process that never serves one never
// holds it, and the pages are Scalar's own all the same. The imports are seen through module
// hooks registered once this file's own imports are done.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { register } from 'node:module'
import { MessageChannel } from 'node:worker_threads'
import { buildApp, createUser, bearer } from '../helpers/app.js'
import { freshDatabase, runSql } from '../helpers/db.js'

const loaded: string[] = []
const { port1, port2 } = new MessageChannel()
port1.on('message', (url: string) => { loaded.push(url) })
port1.unref()
register('../fixtures/load-hooks.js', import.meta.url, { data: { port: port2 }, transferList: [port2] })

const SCALAR = /@scalar\/fastify-api-reference\//
async function scalarLoaded (): Promise<boolean> {
  // The hooks run on a thread of their own: their messages may trail the import they tell of.
  for (let tries = 0; tries < 50 && !loaded.some((url) => SCALAR.test(url)); tries++) await new Promise((resolve) => setTimeout(resolve, 10))
  return loaded.some((url) => SCALAR.test(url))
}

test('the docs pages import Scalar on their first request, not at start, and serve its page and bundle', async () => {
  const databaseUrl = await freshDatabase()
  await runSql(databaseUrl, 'CREATE TABLE notes (id serial PRIMARY KEY)')
  const app = await buildApp({ databaseUrl, resources: { notes: { fields: { id: { type: 'integer', readOnly: true } } } } })
  await createUser(app, 'admin@example.com')
  const headers = await bearer(app, 'admin@example.com')
  assert.equal((await app.inject({ method: 'GET', url: '/api/meta', headers })).statusCode, 200)
  assert.equal((await app.inject({ method: 'GET', url: '/api/openapi.json', headers })).statusCode, 200)
  assert.equal(await scalarLoaded(), false, 'Scalar was imported before any docs request')

  const bundle = await app.inject({ method: 'GET', url: '/api/docs/js/scalar.js', headers })
  assert.equal(bundle.statusCode, 200)
  assert.match(String(bundle.headers['content-type']), /^application\/javascript/)
  assert.ok(bundle.body.length > 1_000_000, `a bundle of ${bundle.body.length} characters`)
  assert.equal(await scalarLoaded(), true, 'the first docs request imports Scalar')

  const page = await app.inject({ method: 'GET', url: '/api/docs/', headers })
  assert.equal(page.statusCode, 200)
  assert.match(String(page.headers['content-type']), /^text\/html/)
  // Absolute addresses: the same page works at /api/docs and /api/docs/.
  assert.match(page.body, /src="\/api\/docs\/js\/scalar\.js"/)
  assert.match(page.body, /\/api\/docs\/openapi\.json/)
  const bare = await app.inject({ method: 'GET', url: '/api/docs', headers })
  assert.equal(bare.statusCode, 200)
  assert.equal(bare.body, page.body)
})
