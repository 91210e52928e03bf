// Config `bodyLimit`: the largest JSON body, 1 MiB by default. Over it is 413 payload-too-large as
// problem+json, under it works, in createServer and in an app tablegate is registered in. The
// largest bodies the other limits allow (docs/resources.md, "Limits": a 500-operation :batchWrite,
// a 200,000-character :search filter) fit the default.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import Fastify, { type FastifyInstance } from 'fastify'
import { freshDatabase, runSql } from '../helpers/db.js'
import { bearer, buildApp, caller, createUser, json, TEST_SECRET } from '../helpers/app.js'
import { tablegate, serverOptions } from '../../lib/index.js'
import { resolveConfig } from '../../lib/config/resolve.js'
import { ConfigError } from '../../lib/config/validate.js'
import type { Config } from '../../lib/config/schema.js'

const databaseUrl = await freshDatabase()
await runSql(databaseUrl, 'CREATE TABLE notes (id serial PRIMARY KEY, title text NOT NULL, body text NOT NULL)')
// Text as long as the bodies here: what is measured is the body, not a field's bound.
const base: Config = {
  databaseUrl,
  textMaxLength: 4 * 1_048_576,
  resources: { notes: { fields: { id: { type: 'integer', readOnly: true }, title: { type: 'string', searchable: true }, body: { type: 'string' } } } },
}

const TOO_LARGE = {
  type: 'urn:service:problem:payload-too-large',
  title: 'Payload too large',
  status: 413,
  detail: 'The request body is larger than the server accepts.',
  instance: '/api/v1/notes',
}

/** A create whose JSON body is exactly `bytes` long. */
function noteOf (bytes: number): string {
  const empty = JSON.stringify({ title: 't', body: '' })
  return JSON.stringify({ title: 't', body: 'x'.repeat(bytes - empty.length) })
}

async function signedIn (app: FastifyInstance): Promise<Record<string, string>> {
  if (!(await app.tablegate.users!.hasUsers())) await createUser(app, 'admin@example.com')
  return await bearer(app, 'admin@example.com')
}

async function create (app: FastifyInstance, auth: Record<string, string>, payload: string) {
  return await app.inject({ method: 'POST', url: '/api/v1/notes', headers: { ...auth, 'content-type': 'application/json' }, payload })
}

function assertTooLarge (response: Awaited<ReturnType<typeof create>>): void {
  assert.equal(response.statusCode, 413, response.body)
  assert.equal(response.headers['content-type'], 'application/problem+json; charset=utf-8')
  assert.deepEqual(json(response), TOO_LARGE)
}

test('by default 1 MiB: a 500-operation :batchWrite and a 200,000-character :search filter fit; a byte more than 1 MiB is 413', async () => {
  const app = await buildApp(base)
  const auth = await signedIn(app)
  const call = caller(app, auth)
  assert.equal(app.tablegate.config.bodyLimit, 1_048_576)
  // 500 creates of nearly 2 KB each: the largest batch allowed, of records of a good size.
  const ops = Array.from({ length: 500 }, (_, i) => ({ op: 'create', resource: 'notes', data: { title: `note ${i}`, body: 'b'.repeat(1_950) } }))
  assert.ok(JSON.stringify({ ops }).length > 1_000_000)
  const batch = await call('POST', '/api/v1:batchWrite', { payload: { ops } })
  assert.equal(batch.status, 200, JSON.stringify(batch.body).slice(0, 300))
  assert.equal(batch.body.results.length, 500)
  // A filter of 200,000 characters, each three bytes of UTF-8: a body of 600 KB.
  const longest = `title = "${'☃'.repeat(200_000 - 'title = ""'.length)}"`
  assert.equal(longest.length, 200_000)
  const searched = await call('POST', '/api/v1/notes:search', { payload: { filter: longest } })
  assert.equal(searched.status, 200, JSON.stringify(searched.body).slice(0, 300))
  assert.deepEqual(searched.body.items, [])
  assert.equal((await create(app, auth, noteOf(1_048_576))).statusCode, 201)
  assertTooLarge(await create(app, auth, noteOf(1_048_577)))
})

test('createServer with bodyLimit: over it is 413 problem+json, up to it works', async () => {
  const app = await buildApp({ ...base, bodyLimit: 4096 })
  const auth = await signedIn(app)
  assert.equal((await create(app, auth, noteOf(4096))).statusCode, 201)
  assertTooLarge(await create(app, auth, noteOf(4097)))
})

test('app.register(tablegate, config): bodyLimit holds for JSON bodies, above or below the app\'s own Fastify bodyLimit', async () => {
  for (const bodyLimit of [4096, 2 * 1_048_576]) {
    const app = Fastify(serverOptions())
    await app.register(tablegate, { ...base, authSecret: TEST_SECRET, bodyLimit })
    await app.ready()
    try {
      const auth = await signedIn(app)
      assert.equal((await create(app, auth, noteOf(bodyLimit))).statusCode, 201, `${bodyLimit}`)
      assertTooLarge(await create(app, auth, noteOf(bodyLimit + 1)))
    } finally {
      await app.close()
    }
  }
})

test('bodyLimit is a whole number of bytes from 1 KiB to 1 GiB', () => {
  for (const bodyLimit of [0, 1023, 1.5, 2 ** 31, '1mb']) {
    assert.throws(() => resolveConfig({ bodyLimit }, {}), (err: unknown) => err instanceof ConfigError && /config\.bodyLimit/.test(err.message), String(bodyLimit))
  }
  assert.equal(resolveConfig({ bodyLimit: 1024 }, {}).bodyLimit, 1024)
})
