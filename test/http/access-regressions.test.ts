// Regressions found by the access test matrix: record checks on hidden fields, permissions of
// soft-deleted rows, invisible resources answering before parameter checks, undefined row filters.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { freshDatabase, runSql } from '../helpers/db.js'
import { buildApp, createUser, bearer, caller } from '../helpers/app.js'
import { NO_ROUTE_DETAIL } from '../../lib/problems.js'

const databaseUrl = await freshDatabase()
await runSql(databaseUrl, `
  CREATE TABLE orders (id serial PRIMARY KEY, title text NOT NULL, cost numeric, team text, deleted_at timestamptz);
  INSERT INTO orders (title, cost, team) VALUES ('cheap', 5, 'a'), ('dear', 5000, 'a'), ('teamless', 1, NULL);
  CREATE TABLE secrets (id serial PRIMARY KEY, value text);
`)
const app = await buildApp({
  databaseUrl,
  resources: {
    orders: {
      softDelete: 'deleted_at',
      fields: { id: { type: 'integer', readOnly: true }, title: { type: 'string' }, cost: { type: 'decimal' }, team: { type: 'string' } },
      access: {
        delete: { check: (record) => !(Number(record.cost) > 1000) },
        fields: { cost: { read: ['admin'], write: ['admin'] } },
      },
    },
    secrets: { fields: { id: { type: 'integer', readOnly: true }, value: { type: 'string' } }, access: { read: ['admin'], create: ['admin'], update: ['admin'], delete: ['admin'] } },
    // A rule reading a claim the token does not carry: it must match nothing, not every NULL.
    teamless: { table: 'orders', fields: { id: { type: 'integer', readOnly: true }, team: { type: 'string' } }, access: { read: (ctx) => ({ filter: { team: (ctx.user as { team?: string }).team } }) } },
  },
})
await createUser(app, 'admin@example.com')
await createUser(app, 'user@example.com', 'user')
const user = caller(app, await bearer(app, 'user@example.com'))

test('a record check on a field the caller cannot read still sees the stored value', async () => {
  const got = await user('GET', '/api/v1/orders/2')
  assert.equal(got.body.cost, undefined)
  assert.deepEqual(got.body.permissions, { update: true, delete: false, fields: { id: 'read', title: 'edit', team: 'edit', deleted_at: 'read' } })
  const listed = await user('GET', '/api/v1/orders?fields=id')
  assert.deepEqual(listed.body.items.map((r: { id: number, permissions: { delete: boolean } }) => [r.id, r.permissions.delete]), [[1, true], [2, false], [3, true]])
  const refused = await user('DELETE', '/api/v1/orders/2')
  assert.equal(refused.status, 403)
  assert.equal(refused.body.type, 'urn:service:problem:access-denied')
  assert.doesNotMatch(JSON.stringify(refused.body), /5000/)
  assert.equal((await user('GET', '/api/v1/orders/2')).status, 200)
})

test('a soft-deleted record offers neither update nor delete', async () => {
  assert.equal((await user('DELETE', '/api/v1/orders/1')).status, 204)
  const shown = await user('GET', '/api/v1/orders/1?show_deleted=true')
  assert.equal(shown.body.permissions.update, false)
  assert.equal(shown.body.permissions.delete, false)
})

test('an invisible resource is the unknown-route 404 before any parameter or key is looked at', async () => {
  for (const [method, url] of [['GET', '/api/v1/secrets?nonsense=1'], ['PATCH', '/api/v1/secrets/not-a-key'], ['DELETE', '/api/v1/secrets/x,y'], ['POST', '/api/v1/secrets/abc:undelete'], ['POST', '/api/v1/secrets:search']] as const) {
    const response = await user(method, url, method === 'PATCH' || url.endsWith(':search') ? { payload: { bogus: true } } : {})
    assert.equal(response.status, 404, `${method} ${url}`)
    assert.equal(response.body.detail, NO_ROUTE_DETAIL)
  }
})

test('an equality filter on an undefined value matches no row', async () => {
  const listed = await user('GET', '/api/v1/teamless')
  assert.equal(listed.status, 200)
  assert.deepEqual(listed.body.items, [])
})

test('a read rule that returns { check } fails closed: the start names it, and returned by a function it answers 500, not every row', async () => {
  await assert.rejects(buildApp({ databaseUrl, resources: { secrets: { fields: { id: { type: 'integer', readOnly: true }, value: { type: 'string' } }, access: { read: { check: () => false } } } } }),
    { message: 'invalid config: config.resources.secrets.access.read: a read judges no record, so its rule takes true, false, roles or { filter }, not { check }' })
  const reported: Error[] = []
  const checked = await buildApp({
    databaseUrl,
    onUnhandledError: (err) => { reported.push(err as Error) },
    resources: { secrets: { fields: { id: { type: 'integer', readOnly: true }, value: { type: 'string' } }, access: { read: () => ({ check: () => false }) } } },
  })
  const call = caller(checked, await bearer(checked, 'user@example.com'))
  for (const url of ['/api/v1/secrets', '/api/v1/secrets/1']) {
    const response = await call('GET', url)
    assert.equal(response.status, 500, url)
    assert.equal(response.body.type, 'urn:service:problem:internal-error')
    assert.equal(JSON.stringify(response.body).includes('value'), false)
  }
  assert.match(reported[0]?.message ?? '', /the read rule of secrets returned \{ check \}: a read judges no record/)
  await checked.close()
})
