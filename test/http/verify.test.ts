// The authentication gate and the built-in bearer-token verifier, attack by attack (docs/login.md
// "Verification": every failure a 401 problem, no clock leeway on exp, nbf honoured, an iat in the
// future refused; docs/meta.md: X-Meta-Version on every response).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createPublicKey } from 'node:crypto'
import { SignJWT, decodeJwt, exportJWK, generateKeyPair, type JWK, type JWTPayload } from 'jose'
import type { LightMyRequestResponse } from 'fastify'
import { buildApp, createUser, bearer, json, usersOf } from '../helpers/app.js'

const app = await buildApp()
await createUser(app, 'admin@example.com', 'admin')
await createUser(app, 'user@example.com', 'user')
await createUser(app, 'other@example.com', 'user')

const issuer = app.tablegate.config.publicUrl
const adminAuth = await bearer(app, 'admin@example.com')
const userAuth = await bearer(app, 'user@example.com')
const userToken = userAuth.authorization!.slice('Bearer '.length)
const userId = decodeJwt(userToken).sub!
const signing = await usersOf(app).keys.current()
const anonymousVersion = app.tablegate.metaVersion([])

const PROTECTED = ['/api/v1/orders', '/api/meta', '/api/openapi.json', '/api/docs', '/api/anything-unknown', '/unknown']

function nowSeconds (): number {
  return Math.floor(Date.now() / 1000)
}

function b64url (value: unknown): string {
  return Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url')
}

/** Claims of a token that would pass, before an attack changes one of them. */
function goodClaims (overrides: JWTPayload = {}): JWTPayload {
  const now = nowSeconds()
  return { sub: userId, role: 'user', iss: issuer, aud: issuer, iat: now, exp: now + 600, ...overrides }
}

/** Signs claims exactly as given (no defaults added) with the server's real key unless told otherwise. */
async function sign (claims: JWTPayload, options: { key?: Parameters<SignJWT['sign']>[0], header?: Record<string, unknown> } = {}): Promise<string> {
  return await new SignJWT(claims)
    .setProtectedHeader({ alg: 'EdDSA', kid: signing.kid, typ: 'JWT', ...options.header })
    .sign(options.key ?? signing.privateKey)
}

async function get (url: string, token?: string, authorization?: string): Promise<LightMyRequestResponse> {
  const value = authorization ?? (token === undefined ? undefined : `Bearer ${token}`)
  return await app.inject({ method: 'GET', url, headers: value === undefined ? {} : { authorization: value } })
}

function assertUnauthenticated (response: LightMyRequestResponse, url: string): Record<string, unknown> {
  assert.equal(response.statusCode, 401, `${url}: ${response.body}`)
  assert.equal(response.headers['content-type'], 'application/problem+json; charset=utf-8')
  const challenge = response.headers['www-authenticate']
  assert.equal(typeof challenge, 'string')
  assert.ok((challenge as string).startsWith('Bearer'), `challenge ${String(challenge)}`)
  // An unverified credential never counts: the caller has no roles.
  assert.equal(response.headers['x-meta-version'], anonymousVersion)
  const body = json(response)
  assert.equal(body.type, 'urn:service:problem:unauthenticated')
  assert.equal(body.title, 'Unauthenticated')
  assert.equal(body.status, 401)
  assert.equal(typeof body.detail, 'string')
  assert.equal(body.instance, url)
  return body
}

async function assertRefused (token: string, label: string): Promise<Record<string, unknown>> {
  const response = await get('/api/v1/orders', token)
  assert.equal(response.statusCode, 401, `${label} was accepted: ${response.body}`)
  return assertUnauthenticated(response, '/api/v1/orders')
}

test('without a token every API, system and unknown route answers the exact 401 problem', async () => {
  for (const url of PROTECTED) {
    const response = await get(url)
    assertUnauthenticated(response, url)
    assert.equal(response.headers['www-authenticate'], 'Bearer')
    assert.deepEqual(json(response), {
      type: 'urn:service:problem:unauthenticated',
      title: 'Unauthenticated',
      status: 401,
      detail: 'An access token is required: send Authorization: Bearer <token>.',
      instance: url,
    })
  }
  for (const method of ['POST', 'PATCH', 'DELETE'] as const) {
    const response = await app.inject({ method, url: '/api/v1/orders/1', payload: {} })
    assertUnauthenticated(response, '/api/v1/orders/1')
  }
})

test('the public login routes answer without a token', async () => {
  const status = await get('/api/auth/status')
  assert.equal(status.statusCode, 200)
  assert.deepEqual(json(status), { needsAdmin: false })
  assert.equal(status.headers['x-meta-version'], anonymousVersion)
  const jwks = await get('/api/auth/jwks')
  assert.equal(jwks.statusCode, 200)
})

test('a valid token passes the gate: an unknown route is then 404, not 401', async () => {
  for (const url of ['/api/v1/orders', '/api/anything-unknown', '/unknown']) {
    const response = await app.inject({ method: 'GET', url, headers: userAuth })
    assert.equal(response.statusCode, 404, `${url}: ${response.body}`)
    assert.equal(json(response).type, 'urn:service:problem:not-found')
    assert.equal(response.headers['www-authenticate'], undefined)
  }
  // The scheme name is case-insensitive (RFC 9110 section 11.1).
  assert.equal((await get('/api/v1/orders', undefined, `bearer ${userToken}`)).statusCode, 404)
  // A token signed here by hand with the real key and the right claims passes too, so the attacks
  // below fail for the reason they test and not because the helper is wrong.
  assert.equal((await get('/api/v1/orders', await sign(goodClaims()))).statusCode, 404)
})

test('a token minted with ttlSeconds is accepted and carries that lifetime', async () => {
  const { token, expiresAt } = await usersOf(app).issueToken('user@example.com', { ttlSeconds: 60 })
  const claims = decodeJwt(token)
  assert.equal(claims.exp! - claims.iat!, 60)
  assert.equal(new Date(expiresAt).getTime(), claims.exp! * 1000)
  assert.equal((await get('/api/v1/orders', token)).statusCode, 404)
})

test('alg none is refused', async () => {
  const payload = b64url(goodClaims())
  for (const alg of ['none', 'None', 'NONE']) {
    await assertRefused(`${b64url({ alg, typ: 'JWT', kid: signing.kid })}.${payload}.`, `alg ${alg}`)
    await assertRefused(`${b64url({ alg, typ: 'JWT' })}.${payload}.`, `alg ${alg} without kid`)
  }
})

test('an HS256 token keyed with the public key is refused (no algorithm confusion)', async () => {
  const response = await get('/api/auth/jwks')
  const [jwk] = json(response).keys as JWK[]
  assert.ok(jwk !== undefined && typeof jwk.x === 'string')
  const pem = createPublicKey({ key: jwk as import('node:crypto').JsonWebKey, format: 'jwk' }).export({ type: 'spki', format: 'pem' }) as string
  const secrets: Record<string, Uint8Array> = {
    'JWK JSON text': new TextEncoder().encode(JSON.stringify(jwk)),
    'raw x bytes': Buffer.from(jwk.x!, 'base64url'),
    'x as text': new TextEncoder().encode(jwk.x!),
    'PEM text': new TextEncoder().encode(pem),
  }
  for (const [label, secret] of Object.entries(secrets)) {
    for (const header of [{ alg: 'HS256', kid: jwk.kid }, { alg: 'HS256' }]) {
      const token = await new SignJWT(goodClaims({ role: 'admin' })).setProtectedHeader({ ...header, typ: 'JWT' }).sign(secret)
      await assertRefused(token, `HS256 with ${label}`)
    }
  }
})

test('an expired token is refused with no leeway, and the detail says it expired', async () => {
  const now = nowSeconds()
  const body = await assertRefused(await sign(goodClaims({ iat: now - 120, exp: now - 1 })), 'exp one second ago')
  assert.match(String(body.detail), /expired/i)
  const response = await get('/api/v1/orders', await sign(goodClaims({ iat: now - 120, exp: now - 1 })))
  assert.match(String(response.headers['www-authenticate']), /^Bearer error="invalid_token"/)
  // exp is the first instant the token is no longer valid (RFC 7519 section 4.1.4).
  await assertRefused(await sign(goodClaims({ iat: now - 120, exp: now })), 'exp now')
})

test('a token not yet valid (nbf in the future) is refused', async () => {
  await assertRefused(await sign(goodClaims({ nbf: nowSeconds() + 5 })), 'nbf in the future')
  // nbf in the past is fine.
  assert.equal((await get('/api/v1/orders', await sign(goodClaims({ nbf: nowSeconds() - 5 })))).statusCode, 404)
})

test('a token issued in the future (iat) is refused', async () => {
  await assertRefused(await sign(goodClaims({ iat: nowSeconds() + 5 })), 'iat in the future')
})

test('a tampered payload with the original signature is refused', async () => {
  const [header, payload, signature] = userToken.split('.') as [string, string, string]
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as JWTPayload
  assert.equal(claims.role, 'user')
  await assertRefused(`${header}.${b64url({ ...claims, role: 'admin' })}.${signature}`, 'role changed to admin')
  await assertRefused(`${header}.${b64url({ ...claims, sub: 'someone-else' })}.${signature}`, 'sub changed')
  await assertRefused(`${header}.${b64url({ ...claims, exp: claims.exp! + 86_400 })}.${signature}`, 'exp extended')
  // Header tampering, and a signature that is not the token's own.
  await assertRefused(`${b64url({ alg: 'EdDSA', kid: signing.kid })}.${payload}.${signature}`, 'header changed')
  const [, , adminSignature] = adminAuth.authorization!.slice(7).split('.')
  await assertRefused(`${header}.${payload}.${adminSignature!}`, 'another token\'s signature')
  await assertRefused(`${header}.${payload}.`, 'signature removed')
})

test('a token signed with another Ed25519 key is refused, whatever kid it names', async () => {
  const attacker = await generateKeyPair('Ed25519')
  const admin = goodClaims({ role: 'admin' })
  await assertRefused(await sign(admin, { key: attacker.privateKey }), 'foreign key with the real kid')
  await assertRefused(await sign(admin, { key: attacker.privateKey, header: { kid: 'no-such-kid' } }), 'foreign key with an unknown kid')
  await assertRefused(await sign(admin, { key: attacker.privateKey, header: { kid: undefined } }), 'foreign key without kid')
  // The attacker's key embedded in the header is ignored.
  const embedded = await exportJWK(attacker.publicKey)
  await assertRefused(await sign(admin, { key: attacker.privateKey, header: { kid: undefined, jwk: embedded } }), 'embedded jwk')
  await assertRefused(await sign(admin, { key: attacker.privateKey, header: { jwk: embedded } }), 'embedded jwk with the real kid')
})

test('a token naming a kid that does not exist is refused, even when signed with the real key', async () => {
  await assertRefused(await sign(goodClaims(), { header: { kid: 'does-not-exist' } }), 'unknown kid')
  await assertRefused(await sign(goodClaims(), { header: { kid: '' } }), 'empty kid')
})

test('wrong issuer, wrong audience and missing claims are refused', async () => {
  const { exp: _exp, ...withoutExp } = goodClaims()
  const { sub: _sub, ...withoutSub } = goodClaims()
  const { iss: _iss, ...withoutIss } = goodClaims()
  const { aud: _aud, ...withoutAud } = goodClaims()
  const cases: Record<string, JWTPayload> = {
    'wrong iss': goodClaims({ iss: 'https://evil.example.com' }),
    'wrong aud': goodClaims({ aud: 'https://evil.example.com' }),
    'aud list without us': goodClaims({ aud: ['https://evil.example.com', 'https://other.example.com'] }),
    'missing sub': withoutSub,
    'empty sub': goodClaims({ sub: '' }),
    'missing exp': withoutExp,
    'missing iss': withoutIss,
    'missing aud': withoutAud,
  }
  for (const [label, claims] of Object.entries(cases)) await assertRefused(await sign(claims), label)
  // A numeric sub cannot be signed through SignJWT's builder checks: build it by hand.
  const numericSub = { ...goodClaims(), sub: 42 } as unknown as JWTPayload
  await assertRefused(await sign(numericSub), 'numeric sub')
})

test('a non-Bearer scheme or a Bearer value that is not a JWT is refused', async () => {
  const headers = [
    'Basic dXNlckBleGFtcGxlLmNvbTpjb3JyZWN0LWhvcnNlLWJhdHRlcnk=',
    `Basic ${userToken}`,
    `Token ${userToken}`,
    userToken,
    'Bearer',
    'Bearer ',
    'Bearer garbage',
    'Bearer a.b.c',
    'Bearer ...',
    `Bearer ${userToken}x`,
    `Bearer ${userToken} ${userToken}`,
    `Bearer ${userToken}, Basic abc`,
  ]
  for (const authorization of headers) {
    const response = await get('/api/v1/orders', undefined, authorization)
    assert.equal(response.statusCode, 401, `${authorization} was accepted`)
    assertUnauthenticated(response, '/api/v1/orders')
  }
})

test('X-Meta-Version is on 401s and differs by roles, equal for the same roles', async () => {
  const anonymous = await get('/api/meta')
  assert.equal(anonymous.statusCode, 401)
  assert.equal(typeof anonymous.headers['x-meta-version'], 'string')
  assert.notEqual(anonymous.headers['x-meta-version'], '')

  const other = await bearer(app, 'other@example.com')
  const [admin, user, sameRoles] = await Promise.all([adminAuth, userAuth, other].map(async (headers) =>
    await app.inject({ method: 'GET', url: '/api/anything-unknown', headers })))
  assert.equal(admin!.statusCode, 404)
  assert.equal(typeof admin!.headers['x-meta-version'], 'string')
  assert.notEqual(admin!.headers['x-meta-version'], user!.headers['x-meta-version'])
  assert.equal(user!.headers['x-meta-version'], sameRoles!.headers['x-meta-version'])
  assert.notEqual(user!.headers['x-meta-version'], anonymous.headers['x-meta-version'])
  assert.equal(admin!.headers['x-meta-version'], app.tablegate.metaVersion(['admin']))
  assert.equal(user!.headers['x-meta-version'], app.tablegate.metaVersion(['user']))

  // A forged admin token gets the anonymous version, not the admin's.
  const [header, payload, signature] = userToken.split('.') as [string, string, string]
  const forged = { ...JSON.parse(Buffer.from(payload, 'base64url').toString()), role: 'admin' }
  const response = await get('/api/anything-unknown', `${header}.${b64url(forged)}.${signature}`)
  assert.equal(response.statusCode, 401)
  assert.equal(response.headers['x-meta-version'], anonymous.headers['x-meta-version'])
})
