// The admin routes act on the user store as it is now, not as the last revocation poll saw it:
// an admin banned, demoted or removed a moment ago cannot use an older token to undo it, on any
// process. The poll here is 10 s, the longest allowed, so only the admin routes' own read can explain a refusal.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { freshDatabase } from '../helpers/db.js'
import { buildApp, createUser, bearer, caller, usersOf } from '../helpers/app.js'
import type { Config } from '../../lib/config/schema.js'

const databaseUrl = await freshDatabase()
const config: Config = { databaseUrl, roles: ['admin', 'user'], defaultRole: 'user', revocationPollMs: 10_000 }
// Two apps on one database: the change is made through one, and undone (or not) through the other.
const here = await buildApp(config)
const elsewhere = await buildApp(config)
await createUser(here, 'admin@example.com')
const admin = caller(here, await bearer(here, 'admin@example.com'))

async function secondAdmin (email: string): Promise<{ id: string, token: Record<string, string> }> {
  await createUser(here, email, 'admin')
  const token = await bearer(here, email)
  // The token works on both before the change, and its verification is cached on both.
  for (const app of [here, elsewhere]) assert.equal((await caller(app, token)('GET', '/api/auth/admin/list-users')).status, 200)
  return { id: (await usersOf(here).findByEmail(email))!.id, token }
}

test('a banned admin\'s older token cannot unban them, on this process or another, before any poll', async () => {
  const banned = await secondAdmin('banned-admin@example.com')
  assert.equal((await admin('POST', '/api/auth/admin/ban-user', { payload: { userId: banned.id } })).status, 200)
  for (const app of [elsewhere, here]) {
    const undo = await caller(app, banned.token)('POST', '/api/auth/admin/unban-user', { payload: { userId: banned.id } })
    assert.equal(undo.status, 401)
    assert.equal(undo.body.type, 'urn:service:problem:unauthenticated')
  }
  assert.equal((await usersOf(here).findByEmail('banned-admin@example.com'))!.banned, true)
  // The process that made the change applies it at once on its other routes too.
  assert.equal((await caller(here, banned.token)('GET', '/api/meta')).status, 401)
})

test('a demoted admin\'s older token cannot give the role back', async () => {
  const demoted = await secondAdmin('demoted-admin@example.com')
  assert.equal((await admin('POST', '/api/auth/admin/set-role', { payload: { userId: demoted.id, role: 'user' } })).status, 200)
  const undo = await caller(elsewhere, demoted.token)('POST', '/api/auth/admin/set-role', { payload: { userId: demoted.id, role: 'admin' } })
  assert.equal(undo.status, 403)
  assert.equal(undo.body.code, 'YOU_ARE_NOT_ALLOWED_TO_CHANGE_USERS_ROLE')
  assert.equal((await usersOf(here).findByEmail('demoted-admin@example.com'))!.role, 'user')
})

test('a removed admin\'s older token cannot create another admin', async () => {
  const removed = await secondAdmin('removed-admin@example.com')
  assert.equal((await admin('POST', '/api/auth/admin/remove-user', { payload: { userId: removed.id } })).status, 200)
  const ghost = await caller(elsewhere, removed.token)('POST', '/api/auth/admin/create-user', { payload: { email: 'ghost@example.com', password: 'a-long-password-1', role: 'admin' } })
  assert.equal(ghost.status, 401)
  assert.equal(await usersOf(here).findByEmail('ghost@example.com'), undefined)
})
