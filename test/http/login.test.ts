// The login routes under /api/auth/* (docs/login.md "Routes", "Sessions and cookies",
// "Host-side user operations" and "Verification"), over HTTP against a real PostgreSQL, with
// better-auth 1.7 shapes.
import { test } from 'node:test'
import { runtimeOf } from '../../lib/runtime.js'
import assert from 'node:assert/strict'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { createLocalJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify, type JWK } from 'jose'
import { buildApp, createUser, bearer, json, PASSWORD, sessionCookie, signIn, TEST_SECRET, usersOf } from '../helpers/app.js'
import { AUTH_PROBLEM_KEYS, assertAuthProblem, assertAuthUser, assertInvalidRecord, assertProblem, cookieOf, freshClient, login, sorted } from '../helpers/login.js'
import { freshDatabase } from '../helpers/db.js'
import { decrypt, deriveKey } from '../../lib/crypto.js'
import { sign as signCookie } from '@fastify/cookie'
import { cookieSecret } from '../../lib/auth/session-cookie.js'

const DEFAULT_URL = 'http://localhost:5173'
function assertNoSecrets (response: LightMyRequestResponse): void {
  assert.doesNotMatch(response.body, /password|\$argon2|hash/i)
}

/** The JWT with the first character of its signature changed (always a significant one). */
function tamperSignature (token: string): string {
  const start = token.lastIndexOf('.') + 1
  return token.slice(0, start) + (token[start] === 'A' ? 'B' : 'A') + token.slice(start + 1)
}

async function getToken (app: FastifyInstance, cookie: string): Promise<LightMyRequestResponse> {
  return await app.inject({ method: 'GET', url: '/api/auth/token', headers: { cookie } })
}

async function createUserRoute (app: FastifyInstance, headers: Record<string, string>, payload: Record<string, unknown>): Promise<LightMyRequestResponse> {
  return await app.inject({ method: 'POST', url: '/api/auth/admin/create-user', headers, payload })
}

/** A minimal valid-looking cookie-authenticated POST, to see whether an Origin passes the check. */
async function createWithCookie (app: FastifyInstance, cookie: string, origin: string | undefined, email: string): Promise<LightMyRequestResponse> {
  return await createUserRoute(app, origin === undefined ? { cookie } : { cookie, origin }, { email, password: PASSWORD })
}

// One app with an admin serves the tests that need nothing else; each uses its own users,
// emails and client addresses. Tests that need an empty store or other settings build their own.
const shared = await buildApp()
await createUser(shared, 'admin@example.com')

// --- GET /api/auth/status --------------------------------------------------------------------

test('GET /api/auth/status is public and says needsAdmin until the first user exists', async () => {
  const app = await buildApp()
  const empty = await app.inject({ method: 'GET', url: '/api/auth/status' })
  assert.equal(empty.statusCode, 200)
  assert.match(String(empty.headers['content-type']), /^application\/json/)
  assert.deepEqual(json(empty), { needsAdmin: true })

  await createUser(app, 'admin@example.com')
  const after = await app.inject({ method: 'GET', url: '/api/auth/status' })
  assert.equal(after.statusCode, 200)
  assert.deepEqual(json(after), { needsAdmin: false })
})

// --- POST /api/auth/sign-in/email ------------------------------------------------------------

test('sign-in is refused while no user exists (401 NO_USERS), and no session cookie is set', async () => {
  const app = await buildApp()
  const response = await login(app, 'admin@example.com')
  assertAuthProblem(response, 401, 'unauthenticated', 'NO_USERS')
  assert.equal(response.headers['www-authenticate'], 'Bearer')
  assert.equal(response.headers['set-cookie'], undefined)
  assert.deepEqual(json(await app.inject({ method: 'GET', url: '/api/auth/status' })), { needsAdmin: true })
})

test('sign-in success: better-auth body without secrets and an HttpOnly Lax session cookie (no Secure on http)', async () => {
  const app = shared
  const stored = await usersOf(app).findByEmail('admin@example.com')
  assert.ok(stored !== undefined)

  const response = await login(app, 'admin@example.com')
  assert.equal(response.statusCode, 200, response.body)
  assert.match(String(response.headers['content-type']), /^application\/json/)
  assert.equal(response.headers['cache-control'], 'no-store')
  const body = json(response)
  assert.deepEqual(sorted(body), ['redirect', 'token', 'url', 'user'])
  assert.equal(body.redirect, false)
  assert.equal(body.token, null)
  assert.equal(body.url, null)
  assertAuthUser(body.user, { id: stored.id, email: 'admin@example.com', role: 'admin' })
  assert.equal(body.user.createdAt, stored.created_at.toISOString())
  assertNoSecrets(response)

  const setCookie = response.headers['set-cookie']
  assert.equal(typeof setCookie, 'string', 'exactly one cookie is set')
  assert.match(String(setCookie), /^better-auth\.session_token=[^;\s]+; Max-Age=604800; Path=\/; HttpOnly; SameSite=Lax$/)
  assert.doesNotMatch(String(setCookie), /Secure/)
  // The cookie value is the session token, never echoed in the body.
  const value = decodeURIComponent(sessionCookie(response).split('=').slice(1).join('='))
  assert.ok(!response.body.includes(value.split('.')[0]!))
})

test('sign-in takes the email case-insensitively and with surrounding spaces', async () => {
  const app = shared
  for (const email of ['Admin@Example.COM', '  admin@example.com ']) {
    const response = await login(app, email)
    assert.equal(response.statusCode, 200, response.body)
    assert.equal(json(response).user.email, 'admin@example.com')
  }
})

test('wrong password and unknown email get the same 401 body (INVALID_EMAIL_OR_PASSWORD)', async () => {
  const app = shared
  const wrong = await login(app, 'admin@example.com', 'not-the-right-password')
  const unknown = await login(app, 'nobody@example.com', PASSWORD)
  const malformed = await login(app, 'not-an-email', PASSWORD)
  for (const response of [wrong, unknown, malformed]) {
    assertAuthProblem(response, 401, 'unauthenticated', 'INVALID_EMAIL_OR_PASSWORD')
    assert.equal(response.headers['www-authenticate'], 'Bearer')
    assert.equal(response.headers['set-cookie'], undefined)
  }
  assert.deepEqual(json(wrong), json(unknown))
  assert.deepEqual(json(wrong), json(malformed))
  assert.equal(wrong.body, unknown.body)
})

test('sign-in with a body that is not { email, password } is 400 invalid-record, not a 500', async () => {
  const app = shared
  const missing = await app.inject({ method: 'POST', url: '/api/auth/sign-in/email', headers: freshClient(), payload: { email: 'admin@example.com' } })
  const body = assertProblem(missing, 400, 'invalid-record')
  assert.ok(Array.isArray(body.errors))
  assert.ok(body.errors.some((e: any) => e.field === 'password'), missing.body)

  const wrongType = await app.inject({ method: 'POST', url: '/api/auth/sign-in/email', headers: freshClient(), payload: { email: 'admin@example.com', password: { value: PASSWORD } } })
  assertProblem(wrongType, 400, 'invalid-record')
  // Values are not coerced: a number where text belongs is refused like an object.
  const numberEmail = await app.inject({ method: 'POST', url: '/api/auth/sign-in/email', headers: freshClient(), payload: { email: 1, password: PASSWORD } })
  assert.equal(assertProblem(numberEmail, 400, 'invalid-record').errors[0].field, 'email')

  const notJson = await app.inject({ method: 'POST', url: '/api/auth/sign-in/email', headers: { ...freshClient(), 'content-type': 'application/json' }, payload: '{"email":' })
  assertProblem(notJson, 400, 'malformed-json')
})

test('every refusal of a login route carries better-auth\'s code and message, the schema\'s, the parser\'s and the verifier\'s included', async () => {
  const app = shared
  const cases: Array<[Promise<LightMyRequestResponse>, number, string]> = [
    [app.inject({ method: 'POST', url: '/api/auth/sign-in/email', headers: freshClient(), payload: {} }), 400, 'VALIDATION_ERROR'],
    [app.inject({ method: 'POST', url: '/api/auth/sign-in/email', headers: { ...freshClient(), 'content-type': 'application/json' }, payload: '{"email":' }), 400, 'MALFORMED_JSON'],
    [app.inject({ method: 'POST', url: '/api/auth/sign-in/email', headers: { ...freshClient(), 'content-type': 'text/plain' }, payload: 'x' }), 415, 'UNSUPPORTED_MEDIA_TYPE'],
    [app.inject({ method: 'GET', url: '/api/auth/admin/list-users', headers: { authorization: 'Bearer not-a-token' } }), 401, 'UNAUTHORIZED'],
  ]
  for (const [sent, status, code] of cases) {
    const response = await sent
    assert.equal(response.statusCode, status, response.body)
    const body = json(response)
    assert.equal(body.code, code, response.body)
    assert.equal(body.message, body.detail)
  }
})

test('with an https public URL the cookie is __Secure-better-auth.session_token and Secure', async () => {
  const publicUrl = 'https://api.example.com'
  const app = await buildApp({ publicUrl })
  await createUser(app, 'admin@example.com')
  const response = await login(app, 'admin@example.com', PASSWORD, { origin: publicUrl })
  assert.equal(response.statusCode, 200, response.body)
  const setCookie = String(response.headers['set-cookie'])
  assert.match(setCookie, /^__Secure-better-auth\.session_token=[^;\s]+; Max-Age=604800; Path=\/; HttpOnly; Secure; SameSite=Lax$/)

  const cookie = sessionCookie(response)
  const token = await getToken(app, cookie)
  assert.equal(token.statusCode, 200, token.body)
  const claims = decodeJwt(json(token).token)
  assert.equal(claims.iss, publicUrl)
  assert.equal(claims.aud, publicUrl)

  // The unprefixed name is not the session cookie of an https deployment.
  const unprefixed = await getToken(app, cookie.replace(/^__Secure-/, ''))
  assertAuthProblem(unprefixed, 401, 'unauthenticated', 'UNAUTHORIZED')

  // A cookie-authenticated POST from the public URL's origin passes.
  const created = await createWithCookie(app, cookie, publicUrl, 'second@example.com')
  assert.equal(created.statusCode, 200, created.body)
})

// --- Banning ---------------------------------------------------------------------------------

test('a banned user cannot sign in (403 BANNED_USER), banning ends sessions, unbanning lets them back', async () => {
  const app = shared
  await createUser(app, 'banned@example.com')
  const cookie = await cookieOf(app, 'banned@example.com')
  assert.equal((await getToken(app, cookie)).statusCode, 200)

  await usersOf(app).setBanned('banned@example.com', true)
  assertAuthProblem(await getToken(app, cookie), 401, 'unauthenticated', 'UNAUTHORIZED')
  const banned = await login(app, 'banned@example.com')
  assertAuthProblem(banned, 403, 'access-denied', 'BANNED_USER')
  assert.equal(banned.headers['set-cookie'], undefined)
  // A wrong password for a banned account reveals nothing about the ban.
  assertAuthProblem(await login(app, 'banned@example.com', 'not-the-right-password'), 401, 'unauthenticated', 'INVALID_EMAIL_OR_PASSWORD')

  await usersOf(app).setBanned('banned@example.com', false)
  const again = await login(app, 'banned@example.com')
  assert.equal(again.statusCode, 200, again.body)
  assertAuthUser(json(again).user, { email: 'banned@example.com', role: 'user' })
  assert.equal((await getToken(app, sessionCookie(again))).statusCode, 200)
  // The session that the ban ended stays ended.
  assertAuthProblem(await getToken(app, cookie), 401, 'unauthenticated', 'UNAUTHORIZED')
})

// --- GET /api/auth/token and GET /api/auth/jwks ----------------------------------------------

test('GET /api/auth/token needs a valid session cookie: none, tampered or unknown is 401', async () => {
  const app = shared
  const cookie = await cookieOf(app, 'admin@example.com')
  const [name, ...rest] = cookie.split('=')
  const value = decodeURIComponent(rest.join('='))
  const dot = value.lastIndexOf('.')
  assert.ok(dot > 0, 'the cookie is signed: <value>.<signature>')
  const flip = (c: string): string => c === 'A' ? 'B' : 'A'
  const withValue = (v: string): string => `${name}=${encodeURIComponent(v)}`
  const tamperedValue = withValue(flip(value[0]!) + value.slice(1))
  const tamperedSignature = withValue(value.slice(0, dot + 1) + flip(value[dot + 1]!) + value.slice(dot + 2))
  const unsigned = withValue(value.slice(0, dot))
  // Correctly signed, but no such session.
  const unknown = `${name}=${encodeURIComponent(signCookie('no-such-session-token', cookieSecret(TEST_SECRET)))}`

  const cases: Array<[string, Record<string, string>]> = [
    ['no cookie', {}],
    ['tampered value', { cookie: tamperedValue }],
    ['tampered signature', { cookie: tamperedSignature }],
    ['unsigned value', { cookie: unsigned }],
    ['unknown session', { cookie: unknown }],
    ['other cookie name', { cookie: `session=${encodeURIComponent(value)}` }],
    ['a bearer token is not a session', await bearer(app, 'admin@example.com')],
  ]
  for (const [label, headers] of cases) {
    const response = await app.inject({ method: 'GET', url: '/api/auth/token', headers })
    assert.equal(response.statusCode, 401, label)
    assertAuthProblem(response, 401, 'unauthenticated', 'UNAUTHORIZED')
    assert.equal(response.headers['www-authenticate'], 'Bearer', label)
  }
  assert.equal((await getToken(app, cookie)).statusCode, 200)
  // The re-encoding above is faithful: the untouched value still works.
  assert.equal((await getToken(app, withValue(value))).statusCode, 200)
})

test('GET /api/auth/token gives an EdDSA JWT for 15 minutes that verifies against /api/auth/jwks', async () => {
  const app = shared
  await createUser(app, 'jwt-user@example.com')
  const stored = await usersOf(app).findByEmail('jwt-user@example.com')
  assert.ok(stored !== undefined)
  const cookie = await cookieOf(app, 'jwt-user@example.com')

  const response = await getToken(app, cookie)
  assert.equal(response.statusCode, 200, response.body)
  assert.match(String(response.headers['content-type']), /^application\/json/)
  assert.equal(response.headers['cache-control'], 'no-store')
  const body = json(response)
  assert.deepEqual(sorted(body), ['token'])
  const token: string = body.token
  assert.match(token, /^[\w-]+\.[\w-]+\.[\w-]+$/)

  const header = decodeProtectedHeader(token)
  assert.equal(header.alg, 'EdDSA')
  assert.equal(typeof header.kid, 'string')
  assert.notEqual(header.kid, '')

  const jwks = json(await app.inject({ method: 'GET', url: '/api/auth/jwks' }))
  assert.ok(jwks.keys.some((k: JWK) => k.kid === header.kid), 'the token names a published key')
  const { payload } = await jwtVerify(token, createLocalJWKSet(jwks), { issuer: DEFAULT_URL, audience: DEFAULT_URL, algorithms: ['EdDSA'] })
  assert.equal(payload.sub, stored.id)
  assert.equal(payload.role, 'user')
  assert.equal(payload.iss, DEFAULT_URL)
  assert.equal(payload.aud, DEFAULT_URL)
  assert.equal(typeof payload.iat, 'number')
  assert.equal(payload.exp! - payload.iat!, 900)
  const now = Math.floor(Date.now() / 1000)
  assert.ok(Math.abs(payload.iat! - now) <= 5)
  await assert.rejects(jwtVerify(token, createLocalJWKSet(jwks), { issuer: 'https://elsewhere.example.com' }))
  await assert.rejects(jwtVerify(token, createLocalJWKSet(jwks), { audience: 'https://elsewhere.example.com' }))

  // A fresh token per call; the session is not consumed.
  assert.equal((await getToken(app, cookie)).statusCode, 200)

  // The token opens the API: the gate lets it through to the (unknown) resource's 404.
  const withToken = await app.inject({ method: 'GET', url: '/api/v1/orders', headers: { authorization: `Bearer ${token}` } })
  assertProblem(withToken, 404, 'not-found')
  const tampered = tamperSignature(token)
  assertProblem(await app.inject({ method: 'GET', url: '/api/v1/orders', headers: { authorization: `Bearer ${tampered}` } }), 401, 'unauthenticated')
})

test('GET /api/auth/jwks is public and has only public Ed25519 keys; the private key is stored encrypted', async () => {
  const app = await buildApp()
  const response = await app.inject({ method: 'GET', url: '/api/auth/jwks' })
  assert.equal(response.statusCode, 200, response.body)
  assert.match(String(response.headers['content-type']), /^application\/json/)
  const body = json(response)
  assert.deepEqual(sorted(body), ['keys'])
  assert.ok(Array.isArray(body.keys) && body.keys.length >= 1)
  for (const key of body.keys) {
    assert.equal(key.kty, 'OKP')
    assert.equal(key.crv, 'Ed25519')
    assert.equal(key.alg, 'EdDSA')
    assert.equal(typeof key.kid, 'string')
    assert.notEqual(key.kid, '')
    assert.equal(typeof key.x, 'string')
    assert.equal('d' in key, false, 'no private member')
    for (const member of ['p', 'q', 'dp', 'dq', 'qi', 'k']) assert.equal(member in key, false)
  }
  assert.doesNotMatch(response.body, /"d"/)

  const { rows } = await runtimeOf(app).db.admin.query<{ id: string, private_key: string }>('SELECT id, private_key FROM auth_key')
  assert.equal(rows.length, body.keys.length)
  for (const row of rows) {
    assert.ok(row.private_key.startsWith('v1.'), 'encrypted, versioned')
    assert.equal(row.private_key.split('.').length, 4)
    assert.ok(!row.private_key.includes('"d"'), 'no plaintext JWK')
    // It opens with the key derived from AUTH_SECRET, to the private half of the published key.
    const privateJwk = JSON.parse(decrypt(deriveKey(TEST_SECRET, 'key-encryption'), row.private_key)) as JWK
    assert.equal(typeof privateJwk.d, 'string')
    assert.ok(!row.private_key.includes(privateJwk.d!))
    const published = body.keys.find((k: JWK) => k.kid === row.id)
    assert.ok(published !== undefined)
    assert.equal(privateJwk.x, published.x)
  }
})

test('a second app on the same database shares the keys with the same AUTH_SECRET and refuses to start with another', async () => {
  const databaseUrl = await freshDatabase()
  const first = await buildApp({ databaseUrl })
  await createUser(first, 'admin@example.com')
  const jwks = json(await first.inject({ method: 'GET', url: '/api/auth/jwks' }))

  await assert.rejects(buildApp({ databaseUrl, authSecret: 'a-different-secret-that-is-long-enough' }), /AUTH_SECRET/)

  const second = await buildApp({ databaseUrl })
  assert.deepEqual(json(await second.inject({ method: 'GET', url: '/api/auth/jwks' })), jwks)
  // A session started on one process yields tokens on the other, which verify on the first.
  const cookie = await cookieOf(first, 'admin@example.com')
  const token = await getToken(second, cookie)
  assert.equal(token.statusCode, 200, token.body)
  const response = await first.inject({ method: 'GET', url: '/api/v1/orders', headers: { authorization: `Bearer ${json(token).token}` } })
  assertProblem(response, 404, 'not-found')
})

// --- POST /api/auth/admin/create-user --------------------------------------------------------

test('create-user: an admin bearer token creates a user, who can then sign in', async () => {
  const app = shared
  const response = await createUserRoute(app, await bearer(app, 'admin@example.com'), { email: 'New.User@Example.com', password: PASSWORD, name: 'New User' })
  assert.equal(response.statusCode, 200, response.body)
  const body = json(response)
  assert.deepEqual(sorted(body), ['user'])
  assertAuthUser(body.user, { email: 'new.user@example.com', name: 'New User', role: 'user' })
  assertNoSecrets(response)

  const signedIn = await login(app, 'new.user@example.com')
  assert.equal(signedIn.statusCode, 200, signedIn.body)
  assert.equal(json(signedIn).user.id, body.user.id)
})

test('create-user: a token from /api/auth/token and an admin session cookie from a trusted origin both work', async () => {
  const app = shared
  const cookie = await cookieOf(app, 'admin@example.com')

  const viaCookie = await createUserRoute(app, { cookie, origin: DEFAULT_URL }, { email: 'via-cookie@example.com', password: PASSWORD })
  assert.equal(viaCookie.statusCode, 200, viaCookie.body)
  assertAuthUser(json(viaCookie).user, { email: 'via-cookie@example.com', role: 'user' })

  const token = json(await getToken(app, cookie)).token
  const viaToken = await createUserRoute(app, { authorization: `Bearer ${token}` }, { email: 'via-token@example.com', password: PASSWORD, role: 'admin' })
  assert.equal(viaToken.statusCode, 200, viaToken.body)
  assertAuthUser(json(viaToken).user, { email: 'via-token@example.com', role: 'admin' })
})

test('create-user: non-admins get 403 YOU_ARE_NOT_ALLOWED_TO_CREATE_USERS, anonymous callers and bad tokens 401', async () => {
  const app = shared
  await createUser(app, 'plain@example.com')
  const payload = { email: 'refused-new@example.com', password: PASSWORD }

  assertAuthProblem(await createUserRoute(app, await bearer(app, 'plain@example.com'), payload), 403, 'access-denied', 'YOU_ARE_NOT_ALLOWED_TO_CREATE_USERS')
  const userCookie = await cookieOf(app, 'plain@example.com')
  assertAuthProblem(await createUserRoute(app, { cookie: userCookie, origin: DEFAULT_URL }, payload), 403, 'access-denied', 'YOU_ARE_NOT_ALLOWED_TO_CREATE_USERS')

  const anonymous = await createUserRoute(app, {}, payload)
  assertAuthProblem(anonymous, 401, 'unauthenticated', 'UNAUTHORIZED')
  assert.equal(anonymous.headers['www-authenticate'], 'Bearer')

  const admin = await bearer(app, 'admin@example.com')
  const badToken = await createUserRoute(app, { authorization: `Bearer ${tamperSignature(admin.authorization!.slice('Bearer '.length))}` }, payload)
  assertProblem(badToken, 401, 'unauthenticated')
  const notBearer = await createUserRoute(app, { authorization: 'Basic YWRtaW46cGFzc3dvcmQ=' }, payload)
  assertProblem(notBearer, 401, 'unauthenticated')

  assert.equal(await usersOf(app).findByEmail('refused-new@example.com'), undefined, 'nothing was created')
})

test('create-user: role outside the list, short password, bad email and duplicate email are refused', async () => {
  const app = shared
  const auth = await bearer(app, 'admin@example.com')

  const role = await createUserRoute(app, auth, { email: 'bad-role@example.com', password: PASSWORD, role: 'superuser' })
  const roleBody = assertInvalidRecord(role, 'role', 'invalid-role')
  assert.equal(roleBody.code, 'YOU_ARE_NOT_ALLOWED_TO_SET_NON_EXISTENT_VALUE')
  assert.match(roleBody.errors[0].message, /superuser/)
  assertInvalidRecord(await createUserRoute(app, auth, { email: 'bad-role@example.com', password: PASSWORD, role: 'user,superuser' }), 'role', 'invalid-role')
  assertInvalidRecord(await createUserRoute(app, auth, { email: 'bad-role@example.com', password: PASSWORD, role: ['user', 'Admin'] }), 'role', 'invalid-role')

  const short = await createUserRoute(app, auth, { email: 'twelve@example.com', password: 'elevenchars' })
  const shortBody = assertInvalidRecord(short, 'password', 'weak-password')
  assert.equal(shortBody.code, 'PASSWORD_TOO_SHORT')
  assert.match(shortBody.errors[0].message, /12/)
  const twelve = await createUserRoute(app, auth, { email: 'twelve@example.com', password: 'twelve-chars' })
  assert.equal(twelve.statusCode, 200, twelve.body)

  const email = await createUserRoute(app, auth, { email: 'not-an-email', password: PASSWORD })
  assert.equal(assertInvalidRecord(email, 'email', 'invalid-email').code, 'INVALID_EMAIL')
  // NUL reaches no database message: a field error, like any other.
  assert.equal(assertInvalidRecord(await createUserRoute(app, auth, { email: 'nul\u0000@example.com', password: PASSWORD }), 'email', 'invalid-email').code, 'INVALID_EMAIL')
  assert.equal(assertInvalidRecord(await createUserRoute(app, auth, { email: 'named@example.com', name: 'a\u0000b', password: PASSWORD }), 'name', 'invalid-name').code, 'VALIDATION_ERROR')

  // An address is one address however its characters are composed (NFC): the second is taken.
  const composed = await createUserRoute(app, auth, { email: 'j\u00fcrgen@example.com', password: PASSWORD })
  assert.equal(composed.statusCode, 200, composed.body)
  assert.equal(assertInvalidRecord(await createUserRoute(app, auth, { email: 'ju\u0308rgen@example.com', password: PASSWORD }), 'email', 'email-taken').code, 'USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL')

  const missing = await createUserRoute(app, auth, { email: 'missing-password@example.com' })
  const missingBody = assertProblem(missing, 400, 'invalid-record')
  assert.ok(missingBody.errors.some((e: any) => e.field === 'password'), missing.body)

  // better-auth's answer to a taken email: 400 USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL.
  const duplicate = await createUserRoute(app, auth, { email: 'ADMIN@example.com', password: PASSWORD })
  assert.equal(assertInvalidRecord(duplicate, 'email', 'email-taken').code, 'USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL')
  assert.equal(assertInvalidRecord(await createUserRoute(app, auth, { email: 'twelve@example.com', password: PASSWORD }), 'email', 'email-taken').code, 'USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL')

  const emails = (await usersOf(app).list()).map((u) => u.email)
  assert.ok(emails.includes('twelve@example.com'))
  for (const refused of ['bad-role@example.com', 'missing-password@example.com', 'not-an-email']) assert.ok(!emails.includes(refused), refused)
  assert.equal(emails.filter((e) => e === 'admin@example.com').length, 1)
})

test('create-user: several comma separated roles are accepted; without a default role one must be chosen', async () => {
  const app = await buildApp({ roles: ['admin', 'user', 'manager'] })
  await createUser(app, 'admin@example.com')
  const auth = await bearer(app, 'admin@example.com')

  const several = await createUserRoute(app, auth, { email: 'both@example.com', password: PASSWORD, role: 'user,manager' })
  assert.equal(several.statusCode, 200, several.body)
  assertAuthUser(json(several).user, { email: 'both@example.com', role: 'user,manager' })
  const token = decodeJwt((await usersOf(app).issueToken('both@example.com')).token)
  assert.equal(token.role, 'user,manager')

  const list = await createUserRoute(app, auth, { email: 'list@example.com', password: PASSWORD, role: ['manager', 'user'] })
  assert.equal(list.statusCode, 200, list.body)
  assert.equal(json(list).user.role, 'manager,user')

  const none = await createUserRoute(app, auth, { email: 'none@example.com', password: PASSWORD })
  const body = assertInvalidRecord(none, 'role', 'role-required')
  assert.equal(body.code, 'ROLE_REQUIRED')
  assert.match(body.errors[0].message, /user/)
  assert.match(body.errors[0].message, /manager/)
})

// --- Other paths under /api/auth ----------------------------------------------------------------

test('there is no public sign-up: other /api/auth/* paths are 404 problems, with or without a token', async () => {
  const app = shared
  const admin = await bearer(app, 'admin@example.com')
  const paths: Array<['GET' | 'POST', string]> = [
    ['POST', '/api/auth/sign-up/email'],
    ['POST', '/api/auth/get-session'],
    ['POST', '/api/auth/token'],
    ['GET', '/api/auth/sign-out'],
    ['POST', '/api/auth/admin/impersonate-user'],
    ['GET', '/api/auth/admin/get-user?id=x'],
    ['GET', '/api/auth'],
    ['GET', '/api/auth/'],
  ]
  for (const [method, url] of paths) {
    const payload = method === 'POST' ? { email: 'signup@example.com', password: PASSWORD, name: 'x' } : undefined
    for (const headers of [freshClient(), { ...freshClient(), ...admin }]) {
      const response = await app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload }) })
      assert.equal(assertAuthProblem(response, 404, 'not-found', 'NOT_FOUND').detail, 'No route matches this method and path.', url)
    }
  }
  // Outside /api/auth an unknown path still needs a token before it is a 404.
  assertProblem(await app.inject({ method: 'GET', url: '/api/authx' }), 401, 'unauthenticated')
  assert.equal(await usersOf(app).findByEmail('signup@example.com'), undefined)
})

// --- Origins ---------------------------------------------------------------------------------

test('cookie-authenticated POSTs need a trusted Origin: foreign is 403 INVALID_ORIGIN, missing or null MISSING_OR_NULL_ORIGIN', async () => {
  const app = shared
  const cookie = await cookieOf(app, 'admin@example.com')

  for (const [origin, says] of [[undefined, /must say its Origin/], ['null', /opaque origin/]] as const) {
    const refused = await createWithCookie(app, cookie, origin, 'origin-refused@example.com')
    assertAuthProblem(refused, 403, 'access-denied', 'MISSING_OR_NULL_ORIGIN')
    assert.match(json(refused).detail, says)
  }
  const refused: string[] = [
    'https://evil.example.com',
    'http://localhost:5174',
    'https://localhost:5173',
    'http://abc.trycloudflare.com',
    'https://trycloudflare.com',
    'https://abc.trycloudflare.com.evil.com',
    'https://evil-trycloudflare.com',
  ]
  for (const origin of refused) {
    const response = await createWithCookie(app, cookie, origin, 'origin-refused@example.com')
    assert.equal(response.statusCode, 403, `origin ${String(origin)}: ${response.body}`)
    assertAuthProblem(response, 403, 'access-denied', 'INVALID_ORIGIN')
  }
  // A Referer from a foreign site is no better.
  const referer = await createUserRoute(app, { cookie, referer: 'https://evil.example.com/page' }, { email: 'origin-refused@example.com', password: PASSWORD })
  assertAuthProblem(referer, 403, 'access-denied', 'INVALID_ORIGIN')
  // Sign-in carrying a (stale) cookie but no Origin is refused too.
  const signInWithCookie = await login(app, 'admin@example.com', PASSWORD, { cookie })
  assertAuthProblem(signInWithCookie, 403, 'access-denied', 'MISSING_OR_NULL_ORIGIN')
  assert.equal(await usersOf(app).findByEmail('origin-refused@example.com'), undefined)

  const accepted: Array<[string, Record<string, string>]> = [
    ['public URL origin', { origin: DEFAULT_URL }],
    ['https tunnel', { origin: 'https://abc.trycloudflare.com' }],
    ['nested https tunnel label', { origin: 'https://a-b.c.trycloudflare.com' }],
    ['same-origin Referer', { referer: `${DEFAULT_URL}/login?next=/` }],
  ]
  let n = 0
  for (const [label, headers] of accepted) {
    n += 1
    const response = await createUserRoute(app, { cookie, ...headers }, { email: `origin-ok${n}@example.com`, password: PASSWORD })
    assert.equal(response.statusCode, 200, `${label}: ${response.body}`)
  }
})

test('sign-in from a foreign Origin is 403 even without a cookie; trusted origins sign in', async () => {
  const app = shared
  const foreign = await login(app, 'admin@example.com', PASSWORD, { origin: 'https://evil.example.com' })
  assertAuthProblem(foreign, 403, 'access-denied', 'INVALID_ORIGIN')
  assert.equal(foreign.headers['set-cookie'], undefined)
  const plainTunnel = await login(app, 'admin@example.com', PASSWORD, { origin: 'http://abc.trycloudflare.com' })
  assertAuthProblem(plainTunnel, 403, 'access-denied', 'INVALID_ORIGIN')

  for (const origin of [DEFAULT_URL, 'https://abc.trycloudflare.com']) {
    const response = await login(app, 'admin@example.com', PASSWORD, { origin })
    assert.equal(response.statusCode, 200, `${origin}: ${response.body}`)
  }
  // No Origin and no cookie: a script or CLI, not a browser; allowed.
  assert.equal((await login(app, 'admin@example.com')).statusCode, 200)
})

test('trustedOrigins from the config are accepted, others still refused', async () => {
  // Entries are origins: case, a default port and a trailing slash do not matter.
  const app = await buildApp({ trustedOrigins: ['https://App.Example.com:443/', 'https://*.Preview.example.com'] })
  await createUser(app, 'admin@example.com')
  const cookie = await cookieOf(app, 'admin@example.com', { origin: 'https://app.example.com' })
  assert.equal((await createWithCookie(app, cookie, 'https://app.example.com', 'a@example.com')).statusCode, 200)
  assert.equal((await createWithCookie(app, cookie, 'https://pr-1.preview.example.com', 'b@example.com')).statusCode, 200)
  assertAuthProblem(await createWithCookie(app, cookie, 'https://other.example.com', 'c@example.com'), 403, 'access-denied', 'INVALID_ORIGIN')
  assertAuthProblem(await createWithCookie(app, cookie, 'http://app.example.com', 'c@example.com'), 403, 'access-denied', 'INVALID_ORIGIN')
})

test('TRUSTED_ORIGINS from the environment are accepted', async () => {
  const saved = process.env.TRUSTED_ORIGINS
  process.env.TRUSTED_ORIGINS = 'https://env-one.example.com, https://env-two.example.com/'
  let app: FastifyInstance
  try {
    app = await buildApp()
  } finally {
    if (saved === undefined) delete process.env.TRUSTED_ORIGINS
    else process.env.TRUSTED_ORIGINS = saved
  }
  await createUser(app, 'admin@example.com')
  const cookie = await cookieOf(app, 'admin@example.com')
  assert.equal((await createWithCookie(app, cookie, 'https://env-one.example.com', 'a@example.com')).statusCode, 200)
  assert.equal((await createWithCookie(app, cookie, 'https://env-two.example.com', 'b@example.com')).statusCode, 200)
  assert.equal((await login(app, 'admin@example.com', PASSWORD, { origin: 'https://env-two.example.com' })).statusCode, 200)
  assertAuthProblem(await createWithCookie(app, cookie, 'https://env-three.example.com', 'c@example.com'), 403, 'access-denied', 'INVALID_ORIGIN')
})

// --- Sign-in rate limit ----------------------------------------------------------------------

function assertTooManyRequests (response: LightMyRequestResponse): void {
  const body = assertProblem(response, 429, 'too-many-requests', AUTH_PROBLEM_KEYS)
  assert.equal(body.code, 'TOO_MANY_REQUESTS')
  const retryAfter = String(response.headers['retry-after'])
  assert.match(retryAfter, /^\d+$/)
  assert.ok(Number(retryAfter) >= 1 && Number(retryAfter) <= 60, retryAfter)
  assert.equal(response.headers['set-cookie'], undefined)
}

test('sign-in is limited to 5 attempts per minute per client by default (429 too-many-requests)', async () => {
  const app = shared
  const client = { 'x-forwarded-for': '203.0.113.7' }
  for (let i = 1; i <= 5; i += 1) {
    // Failed and successful attempts both count.
    const response = await signIn(app, 'admin@example.com', i % 2 === 0 ? PASSWORD : 'not-the-right-password', client)
    assert.notEqual(response.statusCode, 429, `attempt ${i}`)
  }
  const sixth = await signIn(app, 'admin@example.com', PASSWORD, client)
  assertTooManyRequests(sixth)
  assertTooManyRequests(await signIn(app, 'admin@example.com', PASSWORD, client))

  const other = await signIn(app, 'admin@example.com', PASSWORD, { 'x-forwarded-for': '203.0.113.8' })
  assert.equal(other.statusCode, 200, other.body)
  // Other login routes are not limited by it.
  assert.equal((await app.inject({ method: 'GET', url: '/api/auth/status', headers: client })).statusCode, 200)
})

test('signInPerMinute: 2 refuses the third attempt', async () => {
  const app = await buildApp({ signInPerMinute: 2 })
  await createUser(app, 'admin@example.com')
  const client = { 'x-forwarded-for': '203.0.113.9' }
  assert.equal((await signIn(app, 'admin@example.com', PASSWORD, client)).statusCode, 200)
  assert.equal((await signIn(app, 'admin@example.com', PASSWORD, client)).statusCode, 200)
  assertTooManyRequests(await signIn(app, 'admin@example.com', PASSWORD, client))
  assert.equal((await signIn(app, 'admin@example.com', PASSWORD, { 'x-forwarded-for': '203.0.113.10' })).statusCode, 200)
})

test('processes on one database share the limit, and a window that ended counts anew', async () => {
  const databaseUrl = await freshDatabase()
  const first = await buildApp({ databaseUrl, signInPerMinute: 3 })
  const second = await buildApp({ databaseUrl, signInPerMinute: 3 })
  await createUser(first, 'admin@example.com')
  const client = { 'x-forwarded-for': '203.0.113.30' }
  assert.equal((await signIn(first, 'admin@example.com', PASSWORD, client)).statusCode, 200)
  assert.equal((await signIn(second, 'admin@example.com', PASSWORD, client)).statusCode, 200)
  assert.equal((await signIn(first, 'admin@example.com', PASSWORD, client)).statusCode, 200)
  assertTooManyRequests(await signIn(second, 'admin@example.com', PASSWORD, client))
  assertTooManyRequests(await signIn(first, 'admin@example.com', PASSWORD, client))
  // The minute has passed (moved back rather than waited for): attempts count from one again.
  await usersOf(first).pool.query("UPDATE auth_rate_limit SET window_ends = now() - interval '1 second'")
  assert.equal((await signIn(second, 'admin@example.com', PASSWORD, client)).statusCode, 200)
  const { rows } = await usersOf(first).pool.query('SELECT key, hits FROM auth_rate_limit')
  assert.deepEqual(rows, [{ key: '203.0.113.30', hits: 1 }])
})

test('behind a trusted (here loopback) proxy that appends, the limiter keys on the last x-forwarded-for entry, which a client cannot choose', async () => {
  const app = await buildApp({ signInPerMinute: 2 })
  await createUser(app, 'admin@example.com')
  const spoofed = (i: number) => ({ 'x-forwarded-for': `10.0.0.${i}, 203.0.113.20` })
  assert.equal((await signIn(app, 'admin@example.com', PASSWORD, spoofed(1))).statusCode, 200)
  assert.equal((await signIn(app, 'admin@example.com', PASSWORD, spoofed(2))).statusCode, 200)
  assertTooManyRequests(await signIn(app, 'admin@example.com', PASSWORD, spoofed(3)))
})

test('rememberMe: false sets a browser-session cookie (no Max-Age)', async () => {
  const response = await shared.inject({ method: 'POST', url: '/api/auth/sign-in/email', headers: { 'x-forwarded-for': '198.18.0.1' }, payload: { email: 'admin@example.com', password: PASSWORD, rememberMe: false } })
  assert.equal(response.statusCode, 200)
  const cookie = String(response.headers['set-cookie'])
  assert.match(cookie, /^better-auth\.session_token=[^;]+; Path=\/; HttpOnly; SameSite=Lax$/)
})

// --- X-Meta-Version --------------------------------------------------------------------------

test('every /api/auth/* response carries X-Meta-Version, errors included', async () => {
  const app = await buildApp({ signInPerMinute: 1 })
  const anonymous = String((await app.inject({ method: 'GET', url: '/api/v1/orders' })).headers['x-meta-version'])
  assert.notEqual(anonymous, 'undefined')
  const noUsers = await signIn(app, 'admin@example.com', PASSWORD, { 'x-forwarded-for': '192.0.2.1' })
  await createUser(app, 'admin@example.com')
  const signedIn = await signIn(app, 'admin@example.com', PASSWORD, { 'x-forwarded-for': '192.0.2.2' })
  const cookie = sessionCookie(signedIn)
  const responses: Array<[string, LightMyRequestResponse]> = [
    ['status', await app.inject({ method: 'GET', url: '/api/auth/status' })],
    ['jwks', await app.inject({ method: 'GET', url: '/api/auth/jwks' })],
    ['sign-in 401', noUsers],
    ['sign-in 200', signedIn],
    ['sign-in 429', await signIn(app, 'admin@example.com', PASSWORD, { 'x-forwarded-for': '192.0.2.2' })],
    ['sign-in 403 origin', await signIn(app, 'admin@example.com', PASSWORD, { 'x-forwarded-for': '192.0.2.3', origin: 'https://evil.example.com' })],
    ['token 200', await getToken(app, cookie)],
    ['token 401', await app.inject({ method: 'GET', url: '/api/auth/token' })],
    ['create-user 401', await createUserRoute(app, {}, { email: 'x@example.com', password: PASSWORD })],
    ['create-user 400', await createUserRoute(app, await bearer(app, 'admin@example.com'), { email: 'x@example.com', password: 'short' })],
  ]
  for (const [label, response] of responses) {
    const version = response.headers['x-meta-version']
    assert.equal(typeof version, 'string', label)
    assert.match(String(version), /^[\w-]{8,}$/, label)
  }
  // The public routes answer as a caller without roles.
  assert.equal(responses[0]![1].headers['x-meta-version'], anonymous)
  assert.equal(responses[7]![1].headers['x-meta-version'], anonymous)
})
