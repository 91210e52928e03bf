// Email verification through better-auth 1.7's own client, with emailVerification.required: a user
// who signed up has neither a session nor a token until the link is followed; links are single use;
// send-verification-email answers the same for any email; change-email moves only on the new
// address's link, and never onto a taken address.
import { after, test } from 'node:test'
import assert from 'node:assert/strict'
import { createServer } from '../../lib/server.js'
import { createUser, PASSWORD, TEST_SECRET } from '../helpers/app.js'
import { runSql } from '../helpers/db.js'
import { accountsApp, assertError, browser, signedIn } from '../helpers/accounts.js'

const { app, base, mailbox, databaseUrl } = await accountsApp({}, { verificationRequired: true })
await createUser(app, 'owner@example.com')

const SAM_PASSWORD = 'sam-signs-up-himself'

test('required verification: no sign-in before the link is followed (EMAIL_NOT_VERIFIED), then sign-in and a token', async () => {
  const up = await browser(base).client.signUp.email({ email: 'sam@example.com', password: SAM_PASSWORD, name: 'Sam' })
  assert.equal(up.error, null, JSON.stringify(up.error))
  assertError((await browser(base).client.signIn.email({ email: 'sam@example.com', password: SAM_PASSWORD })).error, 403, 'EMAIL_NOT_VERIFIED')
  // A wrong password still says only that: nothing about verification.
  assertError((await browser(base).client.signIn.email({ email: 'sam@example.com', password: 'not-his-password' })).error, 401, 'INVALID_EMAIL_OR_PASSWORD')

  const mail = await mailbox.next('sam@example.com')
  const verified = await browser(base).client.verifyEmail({ query: { token: mail.token } })
  assert.equal(verified.error, null, JSON.stringify(verified.error))
  assert.deepEqual(verified.data, { status: true, user: null })
  const sam = await signedIn(base, 'sam@example.com', SAM_PASSWORD)
  assert.equal((await sam.client.getSession()).data!.user.emailVerified, true)
  assert.equal((await sam.client.token()).error, null)

  // Used once: the same link again is an invalid token; so is one never issued.
  assertError((await browser(base).client.verifyEmail({ query: { token: mail.token } })).error, 401, 'INVALID_TOKEN')
  assertError((await browser(base).client.verifyEmail({ query: { token: 'forged' } })).error, 401, 'INVALID_TOKEN')
  // Users an admin or the host made are not held to it.
  await signedIn(base, 'owner@example.com', PASSWORD)
})

test('a followed link with callbackURL redirects there, with ?error=CODE when it cannot be used', async () => {
  await browser(base).client.signUp.email({ email: 'tia@example.com', password: SAM_PASSWORD, name: 'Tia' })
  const mail = await mailbox.next('tia@example.com')
  const ok = await fetch(`${base}/api/auth/verify-email?token=${mail.token}&callbackURL=%2Fwelcome`, { redirect: 'manual' })
  assert.equal(ok.status, 302)
  assert.equal(ok.headers.get('location'), '/welcome')
  const again = await fetch(`${base}/api/auth/verify-email?token=${mail.token}&callbackURL=%2Fwelcome`, { redirect: 'manual' })
  assert.equal(again.headers.get('location'), '/welcome?error=INVALID_TOKEN')
  const foreign = await fetch(`${base}/api/auth/verify-email?token=${mail.token}&callbackURL=https%3A%2F%2Fevil.example.com%2F`, { redirect: 'manual' })
  assert.equal(foreign.status, 403)
  assert.equal((await foreign.json() as { code: string }).code, 'INVALID_CALLBACK_URL')
})

test('an expired link says so', async () => {
  await browser(base).client.signUp.email({ email: 'uma@example.com', password: SAM_PASSWORD, name: 'Uma' })
  const mail = await mailbox.next('uma@example.com')
  await runSql(databaseUrl, "UPDATE tablegate_auth.auth_one_time_token SET expires_at = now() - interval '1 second'")
  assertError((await browser(base).client.verifyEmail({ query: { token: mail.token } })).error, 401, 'TOKEN_EXPIRED')
})

test('send-verification-email: the same answer for any email; a link only to an unverified account', async () => {
  const answers = []
  for (const email of ['uma@example.com', 'sam@example.com', 'nobody@example.com']) {
    const { data, error } = await browser(base).client.sendVerificationEmail({ email })
    answers.push({ data, error })
  }
  assert.deepEqual(answers, Array(3).fill({ data: { status: true }, error: null }))
  const mail = await mailbox.next('uma@example.com')
  assert.equal((await browser(base).client.verifyEmail({ query: { token: mail.token } })).error, null)
  assert.equal(await mailbox.noneTo('sam@example.com'), true)
  assert.equal(await mailbox.noneTo('nobody@example.com'), true)

  // Signed in, only for the caller's own address, and not when it is verified already.
  const sam = await signedIn(base, 'sam@example.com', SAM_PASSWORD)
  assertError((await sam.client.sendVerificationEmail({ email: 'uma@example.com' })).error, 400, 'EMAIL_MISMATCH')
  assertError((await sam.client.sendVerificationEmail({ email: 'sam@example.com' })).error, 400, 'EMAIL_ALREADY_VERIFIED')
})

test('change-email: a link to the new address, which becomes the user\'s when followed; a taken address gets nothing', async () => {
  const sam = await signedIn(base, 'sam@example.com', SAM_PASSWORD)
  assert.deepEqual((await sam.client.changeEmail({ newEmail: 'owner@example.com' })).data, { status: true })
  assert.equal(await mailbox.noneTo('owner@example.com'), true)
  assertError((await sam.client.changeEmail({ newEmail: 'SAM@example.com' })).error, 400, 'EMAIL_IS_THE_SAME')

  assert.deepEqual((await sam.client.changeEmail({ newEmail: 'samuel@example.com' })).data, { status: true })
  const mail = await mailbox.next('samuel@example.com')
  assert.equal(mail.user.id, sam.id)
  assert.equal((await sam.client.getSession()).data!.user.email, 'sam@example.com')
  assert.equal((await browser(base).client.verifyEmail({ query: { token: mail.token } })).error, null)
  const session = (await sam.client.getSession()).data!
  assert.equal(session.user.email, 'samuel@example.com')
  assert.equal(session.user.emailVerified, true)
  assertError((await browser(base).client.signIn.email({ email: 'sam@example.com', password: SAM_PASSWORD })).error, 401, 'INVALID_EMAIL_OR_PASSWORD')
  await signedIn(base, 'samuel@example.com', SAM_PASSWORD)
})

test('a session of a user who is not verified mints no token once verification is required', async () => {
  // The same store served first without the requirement (a sign-in then), and now with it.
  const lenient = await createServer({ authSecret: TEST_SECRET, databaseUrl, signUp: 'open', signInPerMinute: 1000 })
  after(async () => { await lenient.close() })
  const lenientBase = await lenient.listen({ port: 0, host: '127.0.0.1' })
  await browser(lenientBase).client.signUp.email({ email: 'vic@example.com', password: SAM_PASSWORD, name: 'Vic' })
  const vic = await signedIn(lenientBase, 'vic@example.com', SAM_PASSWORD)
  const strict = browser(base)
  for (const [name, value] of vic.jar) strict.jar.set(name, value)
  assertError((await strict.client.token()).error, 403, 'EMAIL_NOT_VERIFIED')
})
