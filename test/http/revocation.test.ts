// Tokens outlive nothing that ends a user: after a ban or a deletion, every token issued before is
// refused, and after a role change it holds no role the user lost, on every process within the poll
// interval (here 100 ms; 5 s by default, so within 10 s everywhere: docs/login.md, "Revocation").
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { freshDatabase, runSql } from '../helpers/db.js'
import { buildApp, createUser, bearer, caller, usersOf } from '../helpers/app.js'
import type { Config } from '../../lib/config/schema.js'

const databaseUrl = await freshDatabase()
await runSql(databaseUrl, 'CREATE TABLE reports (id serial PRIMARY KEY, title text NOT NULL); INSERT INTO reports (title) VALUES (\'q1\')')
const config: Config = {
  databaseUrl,
  roles: ['admin', 'manager', 'user'],
  defaultRole: 'user',
  revocationPollMs: 100,
  resources: { reports: { fields: { id: { type: 'integer', readOnly: true }, title: { type: 'string' } }, access: { read: ['manager'], create: ['manager'] } } },
}
// Two apps on one database: the change is made through one, and seen by both.
const here = await buildApp(config)
const elsewhere = await buildApp(config)
await createUser(here, 'admin@example.com')

/** Polls until `check` holds, at most `ms`; returns how long it took. */
async function within (ms: number, check: () => Promise<boolean>): Promise<number> {
  const started = Date.now()
  while (!(await check())) {
    if (Date.now() - started > ms) assert.fail(`not within ${ms} ms`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  return Date.now() - started
}

async function statusOf (app: typeof here, auth: Record<string, string>): Promise<number> {
  return (await caller(app, auth)('GET', '/api/v1/reports')).status
}

test('a ban ends the tokens issued before it on every process; unbanning does not revive them', async () => {
  await createUser(here, 'ann@example.com', 'manager')
  const token = await bearer(here, 'ann@example.com')
  assert.equal(await statusOf(here, token), 200)
  assert.equal(await statusOf(elsewhere, token), 200)
  await usersOf(here).setBanned('ann@example.com', true)
  await within(1000, async () => await statusOf(here, token) === 401 && await statusOf(elsewhere, token) === 401)
  const refused = await caller(elsewhere, token)('GET', '/api/v1/reports')
  assert.equal(refused.body.type, 'urn:service:problem:unauthenticated')
  assert.match(String(refused.headers['www-authenticate']), /^Bearer error="invalid_token"/)
  // A write with the old token is refused just the same.
  assert.equal((await caller(elsewhere, token)('POST', '/api/v1/reports', { payload: { title: 'x' } })).status, 401)
  await usersOf(here).setBanned('ann@example.com', false)
  await new Promise((resolve) => setTimeout(resolve, 1100))
  assert.equal(await statusOf(elsewhere, token), 401)
  assert.equal(await statusOf(elsewhere, await bearer(here, 'ann@example.com')), 200)
})

test('deleting a user ends their tokens', async () => {
  await createUser(here, 'bob@example.com', 'manager')
  const token = await bearer(here, 'bob@example.com')
  assert.equal(await statusOf(elsewhere, token), 200)
  await usersOf(here).delete('bob@example.com')
  await within(1000, async () => await statusOf(elsewhere, token) === 401 && await statusOf(here, token) === 401)
})

test('after a role change, a token issued before holds no role the user lost', async () => {
  await createUser(here, 'cy@example.com', 'manager')
  const token = await bearer(here, 'cy@example.com')
  const before = await caller(elsewhere, token)('GET', '/api/v1/reports')
  assert.equal(before.status, 200)
  await usersOf(here).setRole('cy@example.com', 'user')
  // Reading reports needs the manager role the token no longer carries: 403, and X-Meta-Version
  // says the roles changed.
  await within(1000, async () => await statusOf(elsewhere, token) === 403 && await statusOf(here, token) === 403)
  const after = await caller(elsewhere, token)('GET', '/api/v1/reports')
  assert.notEqual(after.headers['x-meta-version'], before.headers['x-meta-version'])
  // A token holds the roles it was issued with that the user still has: given back, they count again.
  await usersOf(here).setRole('cy@example.com', 'manager,user')
  await within(1000, async () => await statusOf(elsewhere, token) === 200)
  assert.equal(await statusOf(elsewhere, await bearer(here, 'cy@example.com')), 200)
})
