// If-None-Match on a get: the record's current ETag (weakly compared, RFC 9110) or `*` gives 304
// with no body and the same ETag and X-Meta-Version; anything else, or a changed record, a 200.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { freshDatabase, runSql } from '../helpers/db.js'
import { buildApp, createUser, bearer, caller } from '../helpers/app.js'

const databaseUrl = await freshDatabase()
await runSql(databaseUrl, 'CREATE TABLE items (id serial PRIMARY KEY, title text NOT NULL, version integer NOT NULL DEFAULT 1)')
const app = await buildApp({ databaseUrl, resources: { items: { version: 'version', fields: { id: { type: 'integer', readOnly: true }, title: { type: 'string' }, version: { type: 'integer', readOnly: true } } } } })
await createUser(app, 'admin@example.com')
const call = caller(app, await bearer(app, 'admin@example.com'))
const created = await call('POST', '/api/v1/items', { payload: { title: 'first' } })
const path = `/api/v1/items/${created.body.id}`

test('the current ETag, weak or strong, quoted or not, in a list, or *: 304 with no body, same ETag and X-Meta-Version', async () => {
  const fresh = await call('GET', path)
  const etag = fresh.headers.etag as string
  for (const header of [etag, `W/${etag}`, etag.slice(1, -1), `"nope", ${etag}`, '*']) {
    const got = await call('GET', path, { headers: { 'if-none-match': header } })
    assert.equal(got.status, 304, header)
    assert.equal(got.body, undefined)
    assert.equal(got.headers.etag, etag)
    assert.equal(got.headers['x-meta-version'], fresh.headers['x-meta-version'])
  }
})

test('another ETag, or a record changed since, is a 200 with the record', async () => {
  const before = (await call('GET', path)).headers.etag as string
  assert.equal((await call('GET', path, { headers: { 'if-none-match': '"something-else"' } })).status, 200)
  await call('PATCH', path, { payload: { title: 'second' }, headers: { 'if-match': before } })
  const after = await call('GET', path, { headers: { 'if-none-match': before } })
  assert.equal(after.status, 200)
  assert.equal(after.body.title, 'second')
  assert.notEqual(after.headers.etag, before)
})

test('* on a record that does not exist is still a 404', async () => {
  const missing = await call('GET', '/api/v1/items/999999', { headers: { 'if-none-match': '*' } })
  assert.equal(missing.status, 404)
  assert.equal(missing.body.type, 'urn:service:problem:not-found')
})
