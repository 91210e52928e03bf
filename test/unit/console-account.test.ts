// The account screens' rules (console/src/account-forms.ts): the page's account settings, a new
// password against the policy and its repetition, the words for the login routes' refusals, where
// a mail's link landed, and the caller's sessions as the account page lists them. The browser's
// side of it: http/console-account-browser.test.ts.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { checkNewPassword, deviceOf, landingOf, messageOf, parseAccounts, policyHint, RESET_LINK_UNUSABLE, sessionRows, type Accounts } from '../../console/src/account-forms.js'

const policy: Accounts = { passwordReset: true, emailVerification: true, passwordMinLength: 12, passwordMaxLength: 16 }

test('the account settings are read from the page\'s tag; anything missing or malformed is off, with the server\'s default policy', () => {
  assert.deepEqual(parseAccounts('{"passwordReset":true,"emailVerification":false,"passwordMinLength":10,"passwordMaxLength":64}'),
    { passwordReset: true, emailVerification: false, passwordMinLength: 10, passwordMaxLength: 64 })
  const off = { passwordReset: false, emailVerification: false, passwordMinLength: 12, passwordMaxLength: 128 }
  for (const content of [undefined, '', '%ACCOUNTS%', 'null', '[]', '"x"']) assert.deepEqual(parseAccounts(content), off, String(content))
  assert.deepEqual(parseAccounts('{"passwordReset":"yes","passwordMinLength":0,"passwordMaxLength":1.5}'), off)
  assert.equal(policyHint(policy), '12 to 16 characters.')
})

test('a new password within the policy, counted in characters as the server counts them, typed the same twice', () => {
  assert.deepEqual(checkNewPassword(policy, 'twelve-chars', 'twelve-chars'), {})
  assert.deepEqual(checkNewPassword(policy, 'eleven-char', 'eleven-char'), { newPassword: 'Too short: at least 12 characters.' })
  assert.deepEqual(checkNewPassword(policy, 'seventeen-chars!!', 'seventeen-chars!!'), { newPassword: 'Too long: at most 16 characters.' })
  // Twelve emoji are 24 UTF-16 units but twelve characters: long enough, not too long.
  const emoji = '💡'.repeat(12)
  assert.deepEqual(checkNewPassword(policy, emoji, emoji), {})
  assert.deepEqual(checkNewPassword(policy, '💡'.repeat(11), '💡'.repeat(11)), { newPassword: 'Too short: at least 12 characters.' })
  assert.deepEqual(checkNewPassword(policy, 'twelve-chars', 'twelve-charz'), { repeat: 'The two passwords differ.' })
  assert.deepEqual(checkNewPassword(policy, '', 'x'), { newPassword: 'Too short: at least 12 characters.', repeat: 'The two passwords differ.' })
})

test('the login routes\' refusals in the console\'s words, by better-auth\'s code; any other code keeps the server\'s message', () => {
  assert.equal(messageOf('INVALID_TOKEN', 'Invalid token', policy), RESET_LINK_UNUSABLE)
  assert.equal(messageOf('TOKEN_EXPIRED', 'Token expired', policy), RESET_LINK_UNUSABLE)
  assert.equal(messageOf('PASSWORD_TOO_SHORT', 'password must have at least 12 characters', policy), 'The new password is too short: at least 12 characters.')
  assert.equal(messageOf('PASSWORD_TOO_LONG', 'x', policy), 'The new password is too long: at most 16 characters.')
  assert.equal(messageOf('INVALID_PASSWORD', 'Invalid password', policy), 'The current password is wrong.')
  assert.match(messageOf('EMAIL_NOT_VERIFIED', 'Email not verified', policy), /^Your email is not verified yet/)
  assert.equal(messageOf('TOO_MANY_REQUESTS', 'Too many requests.', policy), 'Too many requests: wait a minute, then try again.')
  assert.equal(messageOf('INVALID_EMAIL_OR_PASSWORD', 'Invalid email or password', policy), 'Invalid email or password')
  assert.equal(messageOf(undefined, '500 Internal Server Error', policy), '500 Internal Server Error')
})

test('a link lands with its token, or with why it cannot be used, in the URL\'s query', () => {
  assert.deepEqual(landingOf('?token=abc_-1'), { kind: 'token', token: 'abc_-1' })
  assert.deepEqual(landingOf('?error=INVALID_TOKEN'), { kind: 'error', code: 'INVALID_TOKEN' })
  // A refusal wins over a token: the link is not to be used.
  assert.deepEqual(landingOf('?token=abc&error=INVALID_TOKEN'), { kind: 'error', code: 'INVALID_TOKEN' })
  for (const search of ['', '?', '?token=', '?error=', '?other=1']) assert.deepEqual(landingOf(search), { kind: 'none' }, search)
})

test('sessions: this one first, then the latest sign-in; each by its device, address and minute', () => {
  const rows = sessionRows([
    { token: 'a', createdAt: '2026-03-04T05:06:07.000Z', expiresAt: '2026-03-11T05:06:07.000Z', ipAddress: '198.51.100.1', userAgent: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36' },
    { token: 'b', createdAt: '2026-03-05T00:00:00.000Z', expiresAt: '2026-03-12T00:00:00.000Z', ipAddress: null, userAgent: null },
    { token: 'c', createdAt: '2026-03-01T09:30:59.999Z', expiresAt: '2026-03-08T09:30:59.999Z', ipAddress: '2001:db8::1', userAgent: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_1) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Safari/605.1.15' },
  ], 'c')
  assert.deepEqual(rows, [
    { id: 'c', device: 'Safari on macOS', address: '2001:db8::1', signedIn: '2026-03-01 09:30 UTC', current: true },
    { id: 'b', device: 'Unknown device', address: '', signedIn: '2026-03-05 00:00 UTC', current: false },
    { id: 'a', device: 'Chrome on Linux', address: '198.51.100.1', signedIn: '2026-03-04 05:06 UTC', current: false },
  ])
  assert.deepEqual(sessionRows([], undefined), [])
})

test('a device in a few words: the browser and its system, else the agent as it came (cut short)', () => {
  assert.equal(deviceOf('Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0'), 'Edge on Windows')
  assert.equal(deviceOf('Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0'), 'Firefox on Linux')
  assert.equal(deviceOf('Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/131.0.0.0 Safari/537.36'), 'Chrome on Linux')
  assert.equal(deviceOf('Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36'), 'Chrome on Android')
  assert.equal(deviceOf('curl/8.5.0'), 'curl/8.5.0')
  assert.equal(deviceOf('x'.repeat(80)), `${'x'.repeat(57)}…`)
  assert.equal(deviceOf('  '), 'Unknown device')
})
