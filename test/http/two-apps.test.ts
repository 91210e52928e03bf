// Two apps in one process share nothing: same resource names, other columns, other rules, other
// hidden fields, other secrets, used interleaved. (Before state moved onto each app, a checked
// rule filter cached by resource name and text made the second app's list answer 500.)
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { freshDatabase, runSql } from '../helpers/db.js'
import { buildApp, createUser, bearer, caller } from '../helpers/app.js'

const SAME_RULE = 'owner != "nobody"'

const oneUrl = await freshDatabase()
await runSql(oneUrl, `
  CREATE TABLE orders (id serial PRIMARY KEY, title text NOT NULL, owner_id text NOT NULL, cost numeric, version integer NOT NULL DEFAULT 1);
  INSERT INTO orders (title, owner_id, cost) VALUES ('one-a', 'ann', 1), ('one-b', 'nobody', 2);
`)
const otherUrl = await freshDatabase()
await runSql(otherUrl, `
  CREATE TABLE orders (number serial PRIMARY KEY, label text NOT NULL, owner_col text NOT NULL, cost numeric, version integer NOT NULL DEFAULT 1);
  INSERT INTO orders (label, owner_col, cost) VALUES ('other-a', 'nobody', 3), ('other-b', 'bob', 4), ('other-c', 'bob', 5);
`)

const one = await buildApp({
  databaseUrl: oneUrl,
  resources: {
    orders: {
      version: 'version',
      fields: { id: { type: 'integer', readOnly: true }, title: { type: 'string' }, owner: { type: 'string', column: 'owner_id' }, cost: { type: 'decimal' } },
      access: { read: { filter: SAME_RULE }, update: { filter: SAME_RULE }, fields: { cost: { read: ['admin'] } } },
    },
  },
})
const other = await buildApp({
  databaseUrl: otherUrl,
  authSecret: 'another-secret-that-is-long-enough-9876543210',
  resources: {
    orders: {
      key: 'number',
      version: 'version',
      fields: { number: { type: 'integer', readOnly: true }, label: { type: 'string' }, owner: { type: 'string', column: 'owner_col' }, cost: { type: 'decimal' } },
      access: { read: { filter: SAME_RULE }, update: { filter: SAME_RULE }, fields: { label: { read: ['admin'] } } },
    },
  },
})
await createUser(one, 'admin@example.com')
await createUser(one, 'user@example.com', 'user')
await createUser(other, 'admin@example.com')
await createUser(other, 'user@example.com', 'user')
const inOne = caller(one, await bearer(one, 'user@example.com'))
const inOther = caller(other, await bearer(other, 'user@example.com'))

test('the same rule text over other columns filters each app\'s own rows, interleaved', async () => {
  for (let round = 0; round < 3; round++) {
    const first = await inOne('GET', '/api/v1/orders?order_by=id')
    assert.equal(first.status, 200)
    assert.deepEqual(first.body.items.map((r: { title: string }) => r.title), ['one-a'])
    const second = await inOther('GET', '/api/v1/orders?order_by=number')
    assert.equal(second.status, 200)
    assert.deepEqual(second.body.items.map((r: { number: number }) => r.number), [2, 3])
  }
})

test('each app hides its own fields and knows only its own columns', async () => {
  const first = (await inOne('GET', '/api/v1/orders')).body.items[0]
  const second = (await inOther('GET', '/api/v1/orders')).body.items[0]
  assert.deepEqual(Object.keys(first), ['id', 'title', 'owner', 'version', 'etag', 'permissions'])
  assert.deepEqual(Object.keys(second), ['number', 'owner', 'cost', 'version', 'etag', 'permissions'])
  const unknown = await inOther('GET', '/api/v1/orders?filter=title%20%3D%20%22x%22')
  assert.equal(unknown.status, 400)
  assert.equal(unknown.body.type, 'urn:service:problem:invalid-filter')
  const same = await inOne('GET', '/api/v1/orders?filter=title%20%3D%20%22one-a%22')
  assert.equal(same.status, 200)
  assert.equal(same.body.items.length, 1)
})

test('guarded updates run in each app against its own rows and rules', async () => {
  const mine = (await inOne('GET', '/api/v1/orders')).body.items[0]
  const theirs = (await inOther('GET', '/api/v1/orders')).body.items[0]
  const updatedOne = await inOne('PATCH', `/api/v1/orders/${mine.id}`, { payload: { title: 'one-a2' }, headers: { 'if-match': mine.etag } })
  assert.equal(updatedOne.status, 200)
  const updatedOther = await inOther('PATCH', `/api/v1/orders/${theirs.number}`, { payload: { owner: 'carl' }, headers: { 'if-match': theirs.etag } })
  assert.equal(updatedOther.status, 200)
  // A row the rule hides in one app is not found there, whatever the other app allows.
  const hidden = await inOne('PATCH', '/api/v1/orders/2', { payload: { title: 'x' }, headers: { 'if-match': '*' } })
  assert.equal(hidden.status, 404)
})

test('page tokens and ETags of one app mean nothing to the other', async () => {
  const page = await inOther('GET', '/api/v1/orders?page_size=1&order_by=number')
  assert.notEqual(page.body.next_page_token, '')
  const replayed = await inOne('GET', `/api/v1/orders?page_size=1&page_token=${encodeURIComponent(page.body.next_page_token)}`)
  assert.equal(replayed.status, 400)
  assert.equal(replayed.body.type, 'urn:service:problem:invalid-parameter')
  const tokenOfOther = (await bearer(other, 'user@example.com')).authorization
  const foreign = await one.inject({ method: 'GET', url: '/api/v1/orders', headers: { authorization: tokenOfOther } })
  assert.equal(foreign.statusCode, 401)
})
