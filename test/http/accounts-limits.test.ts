// The sign-in limiter's store limits sign-up, reset requests and verification sends too: per client
// (`request.ip`) `signInPerMinute` a minute, and per email address as many an hour, across processes;
// over either, 429 problem+json with better-auth's code and Retry-After. Known and unknown emails
// count alike, so the limit tells nothing about accounts.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createUser } from '../helpers/app.js'
import { accountsApp, assertError, browser } from '../helpers/accounts.js'

const { app, base } = await accountsApp({ signInPerMinute: 2 })
await createUser(app, 'owner@example.com')

const PASSPHRASE = 'a-long-enough-passphrase'

async function post (path: string, body: Record<string, unknown>, address: string): Promise<Response> {
  return await fetch(`${base}/api/auth/${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-forwarded-for': address }, body: JSON.stringify(body) })
}

async function assertLimited (response: Response): Promise<void> {
  assert.equal(response.status, 429)
  assert.match(response.headers.get('content-type') ?? '', /^application\/problem\+json/)
  const wait = Number(response.headers.get('retry-after'))
  assert.ok(Number.isInteger(wait) && wait >= 1 && wait <= 3600, String(wait))
  const body = await response.json() as Record<string, unknown>
  assert.equal(body.code, 'TOO_MANY_REQUESTS')
  assert.equal(body.type, 'urn:service:problem:too-many-requests')
}

test('per client: the third reset request from one address in a minute is refused, whatever the email', async () => {
  assert.equal((await post('request-password-reset', { email: 'owner@example.com' }, '203.0.113.10')).status, 200)
  assert.equal((await post('request-password-reset', { email: 'a@example.com' }, '203.0.113.10')).status, 200)
  await assertLimited(await post('request-password-reset', { email: 'b@example.com' }, '203.0.113.10'))
  // Another client is not held by it.
  assert.equal((await post('request-password-reset', { email: 'c@example.com' }, '203.0.113.11')).status, 200)
})

test('per address: a known and an unknown email are limited alike, from any number of clients', async () => {
  for (const email of ['owner@example.com', 'nobody@example.com']) {
    assert.equal((await post('send-verification-email', { email }, '203.0.113.20')).status, 200)
    assert.equal((await post('send-verification-email', { email }, '203.0.113.21')).status, 200)
    await assertLimited(await post('send-verification-email', { email }, '203.0.113.22'))
  }
})

test('sign-up is limited per client and per address; the client\'s own refusal is better-auth\'s error', async () => {
  const b = browser(base, '203.0.113.30')
  assert.equal((await b.client.signUp.email({ email: 'one@example.com', password: PASSPHRASE, name: 'One' })).error, null)
  assert.equal((await b.client.signUp.email({ email: 'two@example.com', password: PASSPHRASE, name: 'Two' })).error, null)
  assertError((await b.client.signUp.email({ email: 'three@example.com', password: PASSPHRASE, name: 'Three' })).error, 429, 'TOO_MANY_REQUESTS')

  await post('sign-up/email', { email: 'owner@example.com', password: PASSPHRASE, name: 'X' }, '203.0.113.31')
  await post('sign-up/email', { email: 'owner@example.com', password: PASSPHRASE, name: 'X' }, '203.0.113.32')
  await assertLimited(await post('sign-up/email', { email: 'owner@example.com', password: PASSPHRASE, name: 'X' }, '203.0.113.33'))
})

test('the reset and sign-up budgets are apart from sign-in\'s', async () => {
  const b = browser(base, '203.0.113.40')
  await post('request-password-reset', { email: 'owner@example.com' }, '203.0.113.40')
  await post('request-password-reset', { email: 'owner@example.com' }, '203.0.113.40')
  assertError((await b.client.signIn.email({ email: 'owner@example.com', password: 'wrong-password-here' })).error, 401, 'INVALID_EMAIL_OR_PASSWORD')
})
