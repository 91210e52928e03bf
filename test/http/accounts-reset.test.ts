// Password reset through better-auth 1.7's own client: requestPasswordReset answers the same for
// known and unknown emails, in the same time; resetPassword takes a token once, before it expires,
// and only one issued after the last password change; a reset ends every session and access token.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createUser, PASSWORD } from '../helpers/app.js'
import { runSql } from '../helpers/db.js'
import { accountsApp, assertError, browser, signedIn, tokenWorks } from '../helpers/accounts.js'

const { app, base, mailbox, databaseUrl, events } = await accountsApp()
await createUser(app, 'owner@example.com')
await createUser(app, 'rita@example.com')

const NEW_PASSWORD = 'a-brand-new-passphrase'

async function resetLink (email: string, redirectTo?: string): Promise<string> {
  const { data, error } = await browser(base).client.requestPasswordReset({ email, ...(redirectTo === undefined ? {} : { redirectTo }) })
  assert.equal(error, null, JSON.stringify(error))
  assert.deepEqual(data, { status: true, message: 'If this email exists in our system, check your email for the reset link' })
  const mail = await mailbox.next(email)
  assert.equal(mail.kind, 'reset')
  return mail.token
}

test('a reset link: the token in the mail, and the link\'s redirect to the page that takes the new password', async () => {
  const token = await resetLink('rita@example.com', '/reset')
  assert.ok(Buffer.from(token, 'base64url').length >= 32)
  const link = `http://localhost:5173/api/auth/reset-password/${token}?callbackURL=%2Freset`
  const followed = await fetch(link.replace('http://localhost:5173', base), { redirect: 'manual' })
  assert.equal(followed.status, 302)
  assert.equal(followed.headers.get('location'), `/reset?token=${token}`)
  assert.equal(followed.headers.get('referrer-policy'), 'no-referrer')
  assert.equal(followed.headers.get('cache-control'), 'no-store')
  const forged = await fetch(`${base}/api/auth/reset-password/forged-token?callbackURL=%2Freset`, { redirect: 'manual' })
  assert.equal(forged.headers.get('location'), '/reset?error=INVALID_TOKEN')
  // Only toward a trusted place.
  assertError((await browser(base).client.requestPasswordReset({ email: 'rita@example.com', redirectTo: 'https://evil.example.com/' })).error, 403, 'INVALID_CALLBACK_URL')
})

test('a reset sets the password and ends every session and access token of the user; the token works once', async () => {
  const before = await signedIn(base, 'rita@example.com')
  const bearer = (await before.client.token()).data!.token
  assert.equal(await tokenWorks(base, bearer), true)
  const token = await resetLink('rita@example.com')

  const c = browser(base).client
  assertError((await c.resetPassword({ newPassword: 'too-short', token })).error, 400, 'PASSWORD_TOO_SHORT')
  const { data, error } = await c.resetPassword({ newPassword: NEW_PASSWORD, token })
  assert.equal(error, null, JSON.stringify(error))
  assert.deepEqual(data, { status: true })

  assert.equal((await before.client.getSession()).data, null)
  assert.equal(await tokenWorks(base, bearer), false)
  assertError((await browser(base).client.signIn.email({ email: 'rita@example.com', password: PASSWORD })).error, 401, 'INVALID_EMAIL_OR_PASSWORD')
  const after = await signedIn(base, 'rita@example.com', NEW_PASSWORD)
  assert.equal(await tokenWorks(base, (await after.client.token()).data!.token), true)

  // Reused: the same answer as a token never issued.
  assertError((await c.resetPassword({ newPassword: 'yet-another-passphrase', token })).error, 400, 'INVALID_TOKEN')
  assertError((await c.resetPassword({ newPassword: 'yet-another-passphrase', token: 'forged-0123456789abcdef0123456789abcdef0123' })).error, 400, 'INVALID_TOKEN')
  await signedIn(base, 'rita@example.com', NEW_PASSWORD)

  const reset = events.filter((e) => e.key === after.id && e.operation === 'update').at(-1)
  assert.equal(reset?.ctx.user?.id, after.id)
})

test('an expired token, and one issued before a password change, set nothing', async () => {
  const expired = await resetLink('rita@example.com')
  await runSql(databaseUrl, "UPDATE tablegate_auth.auth_one_time_token SET expires_at = now() - interval '1 second'")
  assertError((await browser(base).client.resetPassword({ newPassword: 'expired-link-passphrase', token: expired })).error, 400, 'INVALID_TOKEN')

  // Two links; the password changes through the first; the second is void.
  const first = await resetLink('rita@example.com')
  const second = await resetLink('rita@example.com')
  assert.equal((await browser(base).client.resetPassword({ newPassword: 'first-link-passphrase', token: first })).error, null)
  assertError((await browser(base).client.resetPassword({ newPassword: 'second-link-passphrase', token: second })).error, 400, 'INVALID_TOKEN')

  // A link, then a change of password by the signed-in user: the link is void.
  const pending = await resetLink('rita@example.com')
  const rita = await signedIn(base, 'rita@example.com', 'first-link-passphrase')
  assert.equal((await rita.client.changePassword({ currentPassword: 'first-link-passphrase', newPassword: NEW_PASSWORD })).error, null)
  assertError((await browser(base).client.resetPassword({ newPassword: 'pending-link-passphrase', token: pending })).error, 400, 'INVALID_TOKEN')
  await signedIn(base, 'rita@example.com', NEW_PASSWORD)
})

test('an unknown email gets the same status and body as a known one, and no mail', async () => {
  const known = await fetch(`${base}/api/auth/request-password-reset`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'owner@example.com' }) })
  const unknown = await fetch(`${base}/api/auth/request-password-reset`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'nobody@example.com' }) })
  assert.equal(known.status, 200)
  assert.equal(unknown.status, 200)
  assert.equal(await unknown.text(), await known.text())
  assert.deepEqual([...unknown.headers.keys()].sort(), [...known.headers.keys()].sort())
  await mailbox.next('owner@example.com')
  assert.equal(await mailbox.noneTo('nobody@example.com'), true)
})

// Tolerance: the medians of 20 interleaved requests each differ by less than 25 ms (the machine is
// shared; the same statement runs either way, so the true difference is far below that).
test('known and unknown emails take the same time: medians of 20 tries each differ by < 25 ms', async (t) => {
  const timed = async (email: string): Promise<number> => {
    const started = performance.now()
    const response = await fetch(`${base}/api/auth/request-password-reset`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-forwarded-for': `192.0.2.${Math.floor(Math.random() * 250) + 1}` }, body: JSON.stringify({ email }) })
    await response.text()
    assert.equal(response.status, 200)
    return performance.now() - started
  }
  const known: number[] = []
  const unknown: number[] = []
  for (let i = 0; i < 20; i++) {
    known.push(await timed('owner@example.com'))
    unknown.push(await timed(`nobody-${i}@example.com`))
  }
  const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
  const difference = Math.abs(median(known) - median(unknown))
  t.diagnostic(`medians: known ${median(known).toFixed(2)} ms, unknown ${median(unknown).toFixed(2)} ms`)
  assert.ok(difference < 25, `medians ${median(known).toFixed(1)} ms (known) and ${median(unknown).toFixed(1)} ms (unknown)`)
})
