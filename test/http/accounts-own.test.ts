// A signed-in user's own account through better-auth 1.7's own client: change-password (with and
// without revokeOtherSessions), update-user, list-sessions, revoke-session, revoke-other-sessions and
// delete-user (never the last active admin); each change an auth.users write event.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { problem } from '../../lib/problems.js'
import { createUser, PASSWORD } from '../helpers/app.js'
import { accountsApp, assertError, browser, signedIn, tokenWorks } from '../helpers/accounts.js'

const { app, base, events } = await accountsApp()
await createUser(app, 'admin@example.com')
await createUser(app, 'olga@example.com')

const NEW_PASSWORD = 'olga-has-a-new-one'

test('without a session every own-account route is 401 UNAUTHORIZED', async () => {
  const c = browser(base).client
  assertError((await c.changePassword({ currentPassword: PASSWORD, newPassword: NEW_PASSWORD })).error, 401, 'UNAUTHORIZED')
  assertError((await c.updateUser({ name: 'X' })).error, 401, 'UNAUTHORIZED')
  assertError((await c.listSessions()).error, 401, 'UNAUTHORIZED')
  assertError((await c.revokeOtherSessions()).error, 401, 'UNAUTHORIZED')
  assertError((await c.deleteUser({ password: PASSWORD })).error, 401, 'UNAUTHORIZED')
})

test('change-password needs the current password; other sessions stay unless revokeOtherSessions', async () => {
  const here = await signedIn(base, 'olga@example.com')
  const there = await signedIn(base, 'olga@example.com')
  assertError((await here.client.changePassword({ currentPassword: 'not-the-password', newPassword: NEW_PASSWORD })).error, 400, 'INVALID_PASSWORD')
  assertError((await here.client.changePassword({ currentPassword: PASSWORD, newPassword: 'short' })).error, 400, 'PASSWORD_TOO_SHORT')

  const changed = await here.client.changePassword({ currentPassword: PASSWORD, newPassword: NEW_PASSWORD })
  assert.equal(changed.error, null, JSON.stringify(changed.error))
  assert.equal(changed.data!.token, null)
  assert.equal(changed.data!.user.email, 'olga@example.com')
  assert.notEqual((await there.client.getSession()).data, null)
  assertError((await browser(base).client.signIn.email({ email: 'olga@example.com', password: PASSWORD })).error, 401, 'INVALID_EMAIL_OR_PASSWORD')
  const update = events.filter((e) => e.key === here.id && e.operation === 'update').at(-1)
  assert.equal(update?.ctx.user?.id, here.id)
  assert.doesNotMatch(JSON.stringify(update), /olga-has-a-new-one|argon2/)
})

test('revokeOtherSessions ends the other sessions and every token issued before; this browser goes on', async () => {
  const here = await signedIn(base, 'olga@example.com', NEW_PASSWORD)
  const there = await signedIn(base, 'olga@example.com', NEW_PASSWORD)
  const oldHere = (await here.client.token()).data!.token
  const oldThere = (await there.client.token()).data!.token
  const changed = await here.client.changePassword({ currentPassword: NEW_PASSWORD, newPassword: PASSWORD, revokeOtherSessions: true })
  assert.equal(changed.error, null, JSON.stringify(changed.error))
  assert.equal((await there.client.getSession()).data, null)
  assert.equal(await tokenWorks(base, oldThere), false)
  assert.equal(await tokenWorks(base, oldHere), false)
  assert.notEqual((await here.client.getSession()).data, null)
  assert.equal(await tokenWorks(base, (await here.client.token()).data!.token), true)
})

test('update-user sets name and image; the email only through change-email', async () => {
  const olga = await signedIn(base, 'olga@example.com')
  assert.deepEqual((await olga.client.updateUser({ name: 'Olga K.', image: 'https://img.example.com/olga.png' })).data, { status: true })
  const { user } = (await olga.client.getSession()).data!
  assert.deepEqual([user.name, user.image], ['Olga K.', 'https://img.example.com/olga.png'])
  assert.equal((await olga.client.updateUser({ image: null })).error, null)
  assert.equal((await olga.client.getSession()).data!.user.image, null)
  assertError((await olga.client.updateUser({ email: 'x@example.com' } as { name?: string })).error, 400, 'EMAIL_CAN_NOT_BE_UPDATED')
  // better-auth's client sends a call without arguments as a GET: the empty body goes by fetch.
  const empty = await olga.fetch(`${base}/api/auth/update-user`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })
  assert.equal(empty.status, 400)
  assert.equal((await empty.json() as { code: string }).code, 'VALIDATION_ERROR')
  assertError((await olga.client.updateUser({ image: 'javascript:alert(1)' })).error, 400, 'VALIDATION_ERROR')
})

test('list-sessions shows the user\'s own sessions; revoke-session ends one of them, never another user\'s', async () => {
  const a = await signedIn(base, 'olga@example.com')
  await a.client.revokeOtherSessions()
  const b = await signedIn(base, 'olga@example.com')
  const admin = await signedIn(base, 'admin@example.com')
  const listed = await a.client.listSessions()
  assert.equal(listed.error, null, JSON.stringify(listed.error))
  assert.equal(listed.data!.length, 2)
  assert.ok(listed.data!.every((s) => s.userId === a.id))
  assert.doesNotMatch(JSON.stringify(listed.data), new RegExp([...a.jar.values()][0]!.split('.')[0]!))

  const adminSession = (await admin.client.listSessions()).data![0]!
  assert.deepEqual((await a.client.revokeSession({ token: adminSession.token })).data, { status: true })
  assert.notEqual((await admin.client.getSession()).data, null)

  const bId = (await b.client.getSession()).data!.session.id
  assert.deepEqual((await a.client.revokeSession({ token: bId })).data, { status: true })
  assert.equal((await b.client.getSession()).data, null)
  const aId = (await a.client.getSession()).data!.session.id
  assert.deepEqual((await a.client.revokeSession({ token: aId })).data, { status: true })
  assert.equal((await a.client.getSession()).data, null)
  assert.equal(a.jar.size, 0)
})

test('revoke-other-sessions keeps only the caller\'s session', async () => {
  const a = await signedIn(base, 'olga@example.com')
  const b = await signedIn(base, 'olga@example.com')
  assert.deepEqual((await a.client.revokeOtherSessions()).data, { status: true })
  assert.equal((await b.client.getSession()).data, null)
  assert.deepEqual((await a.client.listSessions()).data!.map((s) => s.id), [(await a.client.getSession()).data!.session.id])
  assert.ok(events.some((e) => e.key === a.id && e.operation === 'revoke-sessions' && e.ctx.user?.id === a.id))
})

test('delete-user needs the password; the last active admin cannot delete themselves', async () => {
  const admin = await signedIn(base, 'admin@example.com')
  assertError((await admin.client.deleteUser({ password: PASSWORD })).error, 409, 'LAST_ADMIN')
  assert.notEqual((await admin.client.getSession()).data, null)

  const olga = await signedIn(base, 'olga@example.com')
  const bearer = (await olga.client.token()).data!.token
  assertError((await olga.client.deleteUser({ password: 'not-the-password' })).error, 400, 'INVALID_PASSWORD')
  assertError((await olga.client.deleteUser({})).error, 400, 'INVALID_PASSWORD')
  const deleted = await olga.client.deleteUser({ password: PASSWORD })
  assert.equal(deleted.error, null, JSON.stringify(deleted.error))
  assert.deepEqual(deleted.data, { success: true, message: 'User deleted' })
  assert.equal((await olga.client.getSession()).data, null)
  assert.equal(await tokenWorks(base, bearer), false)
  assertError((await browser(base).client.signIn.email({ email: 'olga@example.com', password: PASSWORD })).error, 401, 'INVALID_EMAIL_OR_PASSWORD')
  assert.ok(events.some((e) => e.key === olga.id && e.operation === 'delete' && e.ctx.user?.id === olga.id))
})

test('a write hook that refuses a change undoes it: the change runs in the store\'s transaction', async () => {
  const refuse = fp(async (hooked: FastifyInstance) => {
    hooked.tablegate.addWriteHook((event) => {
      if (event.after?.name === 'Forbidden') throw problem('conflict', 'That name is not allowed here.')
    }, { resources: ['auth.users'] })
  }, { name: 'refuse-name', dependencies: ['tablegate'] })
  const strict = await accountsApp({ plugins: [refuse] })
  await createUser(strict.app, 'ivan@example.com')
  const ivan = await signedIn(strict.base, 'ivan@example.com')
  const { error } = await ivan.client.updateUser({ name: 'Forbidden' })
  assert.equal(error?.status, 409, JSON.stringify(error))
  assert.equal((await ivan.client.getSession()).data!.user.name, '')
  assert.equal((await ivan.client.updateUser({ name: 'Ivan' })).error, null)
  assert.equal((await ivan.client.getSession()).data!.user.name, 'Ivan')
})
