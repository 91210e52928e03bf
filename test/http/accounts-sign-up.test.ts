// Sign-up (POST /api/auth/sign-up/email) through better-auth 1.7's own client: open, by invitation
// only, or off; the default role, never admin; a taken email answers as a free one, and its owner is
// told through the hook; the password policy; each new account a write event.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createUser, PASSWORD, usersOf } from '../helpers/app.js'
import { accountsApp, assertError, browser, signedIn } from '../helpers/accounts.js'

const { app, base, mailbox, events } = await accountsApp({ passwordPolicy: { minLength: 14, maxLength: 64 } })

test('no one signs up before the first admin is made on the host', async () => {
  const { error } = await browser(base).client.signUp.email({ email: 'early@example.com', password: 'a-passphrase-of-some-length', name: 'Early' })
  assertError(error, 403, 'NO_USERS')
  await createUser(app, 'owner@example.com')
  assert.equal((await usersOf(app).findByEmail('owner@example.com'))!.role, 'admin')
})

const LONG_ENOUGH = 'a-passphrase-of-some-length'

test('open sign-up makes an account with the default role, sends a verification link, and signs nobody in', async () => {
  const b = browser(base)
  const { data, error } = await b.client.signUp.email({ email: 'Dana@Example.com', password: LONG_ENOUGH, name: 'Dana', role: 'admin' } as Parameters<typeof b.client.signUp.email>[0])
  assert.equal(error, null, JSON.stringify(error))
  assert.equal(data!.token, null)
  assert.equal(data!.user.email, 'dana@example.com')
  assert.equal(data!.user.name, 'Dana')
  assert.equal(data!.user.emailVerified, false)
  assert.equal((data!.user as { role?: string }).role, 'user')
  assert.equal(b.jar.size, 0)
  assert.equal((await b.client.getSession()).data, null)

  const mail = await mailbox.next('dana@example.com')
  assert.equal(mail.kind, 'verification')
  assert.equal(mail.user.id, data!.user.id)
  assert.equal(mail.url, `http://localhost:5173/api/auth/verify-email?token=${mail.token}&callbackURL=%2F`)
  assert.ok(Buffer.from(mail.token, 'base64url').length >= 32)

  const dana = await signedIn(base, 'dana@example.com', LONG_ENOUGH)
  assert.equal(dana.id, data!.user.id)
  const created = events.find((e) => e.operation === 'create' && e.key === data!.user.id)
  assert.ok(created !== undefined)
  assert.equal(created.ctx.user?.id, data!.user.id)
  assert.equal(JSON.stringify(created.after).includes(LONG_ENOUGH), false)
})

test('a taken email answers exactly as a free one; its owner is told, and nothing changes', async () => {
  const free = await browser(base).client.signUp.email({ email: 'erin@example.com', password: LONG_ENOUGH, name: 'Someone' })
  const taken = await browser(base).client.signUp.email({ email: 'OWNER@example.com', password: LONG_ENOUGH, name: 'Someone' })
  assert.equal(free.error, null)
  assert.equal(taken.error, null)
  const shape = (user: Record<string, unknown>): Record<string, unknown> => ({ ...user, id: typeof user.id, createdAt: typeof user.createdAt, updatedAt: typeof user.updatedAt, email: undefined })
  assert.deepEqual(shape(taken.data!.user), shape(free.data!.user))
  assert.deepEqual(Object.keys(taken.data!.user).sort(), Object.keys(free.data!.user).sort())
  assert.equal(taken.data!.user.email, 'owner@example.com')
  assert.equal(taken.data!.token, null)

  const told = await mailbox.next('owner@example.com')
  assert.equal(told.kind, 'existing')
  assert.equal(await mailbox.noneTo('owner@example.com'), true)
  // The owner's password is what it was.
  await signedIn(base, 'owner@example.com', PASSWORD)
  assertError((await browser(base).client.signIn.email({ email: 'owner@example.com', password: LONG_ENOUGH })).error, 401, 'INVALID_EMAIL_OR_PASSWORD')
})

test('sign-up refuses passwords outside the policy, a bad email, a missing name, and a foreign callbackURL', async () => {
  const c = browser(base).client
  assertError((await c.signUp.email({ email: 'short@example.com', password: 'thirteen-char', name: 'S' })).error, 400, 'PASSWORD_TOO_SHORT')
  assertError((await c.signUp.email({ email: 'long@example.com', password: 'x'.repeat(65), name: 'L' })).error, 400, 'PASSWORD_TOO_LONG')
  assertError((await c.signUp.email({ email: 'not-an-email', password: LONG_ENOUGH, name: 'N' })).error, 400, 'INVALID_EMAIL')
  assertError((await c.signUp.email({ email: 'noname@example.com', password: LONG_ENOUGH, name: ' ' })).error, 400, 'VALIDATION_ERROR')
  assertError((await c.signUp.email({ email: 'cb@example.com', password: LONG_ENOUGH, name: 'C', callbackURL: 'https://evil.example.com/' })).error, 403, 'INVALID_CALLBACK_URL')
  for (const email of ['short@example.com', 'long@example.com', 'noname@example.com', 'cb@example.com']) {
    assertError((await browser(base).client.signIn.email({ email, password: LONG_ENOUGH })).error, 401, 'INVALID_EMAIL_OR_PASSWORD')
  }
})

test('a refusal is problem+json with better-auth\'s code and message', async () => {
  const response = await fetch(`${base}/api/auth/sign-up/email`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'p@example.com', password: 'short', name: 'P' }) })
  assert.equal(response.status, 400)
  assert.match(response.headers.get('content-type') ?? '', /^application\/problem\+json/)
  const body = await response.json() as Record<string, unknown>
  assert.equal(body.code, 'PASSWORD_TOO_SHORT')
  assert.equal(body.message, 'password must have at least 14 characters')
  assert.equal(body.status, 400)
})

test('with signUp left off, there is no sign-up route (nor reset nor verification routes without their settings)', async () => {
  const off = await accountsApp({ signUp: false, emailVerification: undefined, passwordReset: undefined })
  const c = browser(off.base).client
  assertError((await c.signUp.email({ email: 'x@example.com', password: LONG_ENOUGH, name: 'X' })).error, 404, 'NOT_FOUND')
  assertError((await c.requestPasswordReset({ email: 'x@example.com' })).error, 404, 'NOT_FOUND')
  assertError((await c.sendVerificationEmail({ email: 'x@example.com' })).error, 404, 'NOT_FOUND')
  assert.equal(await off.mailbox.noneTo('x@example.com'), true)
})

// Tolerance: the medians of 20 interleaved sign-ups each differ by less than 25 ms (the machine is
// shared; both hash the password, and a new account's commit does not wait for the disk).
test('a taken and a free email take the same time: medians of 20 tries each differ by < 25 ms', async (t) => {
  const timed = async (email: string): Promise<number> => {
    const started = performance.now()
    const response = await fetch(`${base}/api/auth/sign-up/email`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password: LONG_ENOUGH, name: 'Timed' }) })
    await response.text()
    assert.equal(response.status, 200)
    return performance.now() - started
  }
  const taken: number[] = []
  const free: number[] = []
  for (let i = 0; i < 20; i++) {
    taken.push(await timed('owner@example.com'))
    free.push(await timed(`timed-${i}@example.com`))
  }
  const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
  t.diagnostic(`medians: taken ${median(taken).toFixed(2)} ms, free ${median(free).toFixed(2)} ms`)
  assert.ok(Math.abs(median(taken) - median(free)) < 25, `medians ${median(taken).toFixed(1)} ms (taken) and ${median(free).toFixed(1)} ms (free)`)
})
