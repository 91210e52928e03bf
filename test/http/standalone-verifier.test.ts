// The generic verifier against a remote key set (docs/login.md, "Verification"):
// a tiny JWKS server on 127.0.0.1, createVerifier with a fake clock, then a whole tablegate server
// that takes its tokens from that key set and has no login routes of its own.
import { after, test } from 'node:test'
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import Fastify from 'fastify'
import { SignJWT, exportJWK, generateKeyPair, type CryptoKey, type JWK, type JWTPayload } from 'jose'
import { createVerifier, type VerifierOptions } from '../../lib/auth/verifier.js'
import { Problem } from '../../lib/problems.js'
import { buildApp, json } from '../helpers/app.js'

const ISSUER = 'https://auth.example.com'
const AUDIENCE = 'https://api.example.com'

interface Signer { readonly kid: string, readonly alg: string, readonly privateKey: CryptoKey, readonly jwk: JWK }

async function signer (kid: string, alg: string): Promise<Signer> {
  const { publicKey, privateKey } = await generateKeyPair(alg)
  return { kid, alg, privateKey, jwk: { ...await exportJWK(publicKey), kid, alg, use: 'sig' } }
}

const ed = await signer('ed', 'EdDSA')
const rsa = await signer('rsa', 'RS256')
const ec = await signer('ec', 'ES256')
const stranger = await signer('stranger', 'EdDSA')

// The remote auth server's JWKS endpoint, counting reads.
const jwksServer = Fastify()
let published: JWK[] = [ed.jwk, rsa.jwk, ec.jwk]
let fetches = 0
jwksServer.get('/.well-known/jwks.json', async () => {
  fetches++
  return { keys: published }
})
const address = await jwksServer.listen({ host: '127.0.0.1', port: 0 })
after(async () => { await jwksServer.close() })
const jwksUrl = `${address}/.well-known/jwks.json`

function clock () {
  const c = { t: Date.now(), now: () => c.t }
  return c
}

async function token (claims: JWTPayload, options: { by?: Signer, kid?: string, nowMs?: number } = {}): Promise<string> {
  const by = options.by ?? ed
  const now = Math.floor((options.nowMs ?? Date.now()) / 1000)
  return await new SignJWT({ sub: 'user-1', iss: ISSUER, aud: AUDIENCE, iat: now, exp: now + 3600, ...claims })
    .setProtectedHeader({ alg: by.alg, kid: options.kid ?? by.kid, typ: 'JWT' })
    .sign(by.privateKey)
}

function verifierOn (c: { now: () => number }, options: Partial<VerifierOptions> = {}) {
  return createVerifier({ jwksUrl, issuer: ISSUER, audience: AUDIENCE, now: c.now, ...options })
}

function isUnauthenticated (err: unknown): boolean {
  assert.ok(err instanceof Problem, `not a problem: ${String(err)}`)
  assert.equal(err.status, 401)
  assert.equal(err.slug, 'unauthenticated')
  assert.match(err.headers['www-authenticate'] ?? '', /^Bearer/)
  return true
}

test('a valid token verifies to { user: { id, roles }, tenant }', async () => {
  const c = clock()
  const verifier = verifierOn(c)
  assert.deepEqual(await verifier.verify(await token({ role: 'user,manager' }, { nowMs: c.t })), { user: { id: 'user-1', roles: ['user', 'manager'] }, tenant: undefined })
  assert.deepEqual(await verifier.authenticate(`Bearer ${await token({ sub: 'u2' }, { nowMs: c.t })}`), { user: { id: 'u2', roles: [] }, tenant: undefined })
  await assert.rejects(verifier.authenticate(undefined), isUnauthenticated)
  await assert.rejects(verifier.authenticate(`Basic ${await token({}, { nowMs: c.t })}`), isUnauthenticated)
})

test('rolesClaim reads roles from an array or a comma separated string', async () => {
  const c = clock()
  const verifier = verifierOn(c, { rolesClaim: 'roles' })
  const ofRoles = async (roles: unknown) => (await verifier.verify(await token({ roles, role: 'admin' }, { nowMs: c.t }))).user.roles
  assert.deepEqual(await ofRoles(['admin', 'user']), ['admin', 'user'])
  assert.deepEqual(await ofRoles('admin, user,,'), ['admin', 'user'])
  assert.deepEqual(await ofRoles(['user', 7, null]), ['user'])
  assert.deepEqual(await ofRoles(undefined), [], 'the default role claim is not read when rolesClaim names another')
  assert.deepEqual(await ofRoles({ admin: true }), [])
})

test('tenantClaim names the tenant claim and tenant fixes the tenant', async () => {
  const c = clock()
  const byClaim = verifierOn(c, { tenantClaim: 'org' })
  assert.equal((await byClaim.verify(await token({ org: 'acme' }, { nowMs: c.t }))).tenant, 'acme')
  assert.equal((await byClaim.verify(await token({ org: '' }, { nowMs: c.t }))).tenant, undefined)
  assert.equal((await byClaim.verify(await token({ org: 42 }, { nowMs: c.t }))).tenant, undefined)
  assert.equal((await byClaim.verify(await token({}, { nowMs: c.t }))).tenant, undefined)
  const fixed = verifierOn(c, { tenantClaim: 'org', tenant: 'fixed' })
  assert.equal((await fixed.verify(await token({ org: 'acme' }, { nowMs: c.t }))).tenant, 'fixed')
  assert.equal((await fixed.verify(await token({}, { nowMs: c.t }))).tenant, 'fixed')
  // Without tenantClaim no claim is a tenant.
  assert.equal((await verifierOn(c).verify(await token({ org: 'acme', tenant: 'acme' }, { nowMs: c.t }))).tenant, undefined)
})

test('issuer, audience and the clock are checked against the fake now', async () => {
  const c = clock()
  const verifier = verifierOn(c)
  await assert.rejects(verifier.verify(await token({ iss: 'https://evil.example.com' }, { nowMs: c.t })), isUnauthenticated)
  await assert.rejects(verifier.verify(await token({ aud: ISSUER }, { nowMs: c.t })), isUnauthenticated)
  const valid = await token({}, { nowMs: c.t })
  c.t += 3_599_000
  await verifier.verify(valid)
  c.t += 1_000
  await assert.rejects(verifier.verify(valid), (err: unknown) => isUnauthenticated(err) && /expired/.test((err as Problem).detail))
  c.t -= 3_600_000 + 5_000
  await assert.rejects(verifier.verify(valid), isUnauthenticated, 'iat in the future of the verifier clock')
})

test('RS256 and ES256 tokens verify with their key; a key of another kid does not', async () => {
  const c = clock()
  const verifier = verifierOn(c)
  assert.equal((await verifier.verify(await token({ sub: 'rsa-user' }, { by: rsa, nowMs: c.t }))).user.id, 'rsa-user')
  assert.equal((await verifier.verify(await token({ sub: 'ec-user' }, { by: ec, nowMs: c.t }))).user.id, 'ec-user')
  await assert.rejects(verifier.verify(await token({}, { by: rsa, kid: 'ec', nowMs: c.t })), isUnauthenticated)
  await assert.rejects(verifier.verify(await token({}, { by: stranger, kid: 'ed', nowMs: c.t })), isUnauthenticated)
})

test('a flood of unknown kids makes at most one JWKS fetch per 30 s', async () => {
  const c = clock()
  const verifier = verifierOn(c)
  const start = fetches
  await verifier.verify(await token({}, { nowMs: c.t }))
  assert.equal(fetches - start, 1)

  const flood = async (label: string): Promise<void> => {
    const tokens = await Promise.all(Array.from({ length: 200 }, async (_, i) => await token({}, { by: stranger, kid: `${label}-${i}`, nowMs: c.t })))
    const results = await Promise.allSettled(tokens.map(async (t) => await verifier.verify(t)))
    for (const result of results) {
      assert.equal(result.status, 'rejected')
      isUnauthenticated((result as PromiseRejectedResult).reason)
    }
  }
  c.t += 1_000
  await flood('early')
  assert.equal(fetches - start, 1, 'within 30 s of the first read: no fetch')
  c.t += 30_000
  await flood('late')
  assert.equal(fetches - start, 2, 'one fetch for the whole flood')
  const afterTwo = 2
  c.t += 10_000
  await flood('within')
  assert.equal(fetches - start, afterTwo)
  c.t += 20_000
  await flood('next')
  assert.equal(fetches - start, afterTwo + 1)
  // The known key still verifies and costs nothing more.
  await verifier.verify(await token({}, { nowMs: c.t }))
  assert.equal(fetches - start, afterTwo + 1)
})

test('a key removed from the JWKS stops verifying after the 10 minute refresh', async () => {
  const c = clock()
  const verifier = verifierOn(c)
  const start = fetches
  await verifier.verify(await token({}, { by: rsa, nowMs: c.t }))
  published = [ed.jwk, ec.jwk]
  try {
    c.t += 599_000
    await verifier.verify(await token({}, { by: rsa, nowMs: c.t }))
    assert.equal(fetches - start, 1)
    c.t += 1_000
    await assert.rejects(verifier.verify(await token({}, { by: rsa, nowMs: c.t })), isUnauthenticated)
    assert.equal(fetches - start, 2)
  } finally {
    published = [ed.jwk, rsa.jwk, ec.jwk]
  }
})

test('an HS256 token is refused by default and accepted when HS256 is passed explicitly', async () => {
  const c = clock()
  const secret = randomBytes(32)
  const keys: JWK[] = [{ kty: 'oct', k: secret.toString('base64url') }]
  const hs = await new SignJWT({ sub: 'hmac-user', iss: ISSUER, aud: AUDIENCE, role: 'user' })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuedAt(Math.floor(c.t / 1000))
    .setExpirationTime(Math.floor(c.t / 1000) + 600)
    .sign(secret)
  const byDefault = createVerifier({ keys, issuer: ISSUER, audience: AUDIENCE, now: c.now })
  await assert.rejects(byDefault.verify(hs), isUnauthenticated)
  const explicit = createVerifier({ keys, issuer: ISSUER, audience: AUDIENCE, now: c.now, algorithms: ['HS256'] })
  assert.deepEqual(await explicit.verify(hs), { user: { id: 'hmac-user', roles: ['user'] }, tenant: undefined })
  // The wrong secret is still refused.
  const forged = await new SignJWT({ sub: 'hmac-user', iss: ISSUER, aud: AUDIENCE, role: 'admin' })
    .setProtectedHeader({ alg: 'HS256' }).setIssuedAt(Math.floor(c.t / 1000)).setExpirationTime(Math.floor(c.t / 1000) + 600).sign(randomBytes(32))
  await assert.rejects(explicit.verify(forged), isUnauthenticated)
})

test('the remote public keys used as HMAC secrets forge nothing', async () => {
  const c = clock()
  const verifier = verifierOn(c)
  for (const jwk of [ed.jwk, rsa.jwk, ec.jwk]) {
    for (const secret of [new TextEncoder().encode(JSON.stringify(jwk)), Buffer.from((jwk.x ?? jwk.n)!, 'base64url')]) {
      const forged = await new SignJWT({ sub: 'admin', role: 'admin', iss: ISSUER, aud: AUDIENCE })
        .setProtectedHeader({ alg: 'HS256', kid: jwk.kid }).setIssuedAt(Math.floor(c.t / 1000)).setExpirationTime(Math.floor(c.t / 1000) + 600).sign(secret)
      await assert.rejects(verifier.verify(forged), isUnauthenticated)
    }
  }
  const none = `${Buffer.from(JSON.stringify({ alg: 'none', kid: 'ed' })).toString('base64url')}.${Buffer.from(JSON.stringify({ sub: 'admin', iss: ISSUER, aud: AUDIENCE, exp: Math.floor(c.t / 1000) + 600 })).toString('base64url')}.`
  await assert.rejects(verifier.verify(none), isUnauthenticated)
})

test('a JWKS that cannot be read at all is a 503, never an accepted token', async () => {
  const c = clock()
  const verifier = createVerifier({ jwksUrl: `${address}/missing`, issuer: ISSUER, audience: AUDIENCE, now: c.now })
  await assert.rejects(verifier.verify(await token({}, { nowMs: c.t })), (err: unknown) => {
    assert.ok(err instanceof Problem)
    assert.equal(err.status, 503)
    return true
  })
})

test('a whole server with a remote verifier accepts its tokens and has no login routes', async () => {
  const app = await buildApp({ verifier: { jwksUrl, issuer: ISSUER, audience: AUDIENCE } })
  assert.equal(app.tablegate.users, undefined)
  const inject = async (url: string, authorization?: string, method: 'GET' | 'POST' = 'GET') =>
    await app.inject({ method, url, headers: authorization === undefined ? {} : { authorization }, ...(method === 'POST' ? { payload: {} } : {}) })

  for (const by of [ed, rsa, ec]) {
    const response = await inject('/api/v1/x', `Bearer ${await token({ role: 'admin' }, { by })}`)
    assert.equal(response.statusCode, 404, response.body)
    assert.equal(json(response).type, 'urn:service:problem:not-found')
    assert.equal(response.headers['x-meta-version'], app.tablegate.metaVersion(['admin']))
  }

  const refused = [
    undefined,
    `Bearer ${await token({ role: 'admin' }, { by: stranger })}`,
    `Bearer ${await token({ role: 'admin' }, { by: stranger, kid: 'ed' })}`,
    `Bearer ${await token({ iss: 'https://evil.example.com' })}`,
    `Bearer ${await token({ aud: ISSUER })}`,
    `Bearer ${await token({ exp: Math.floor(Date.now() / 1000) - 1 })}`,
    'Bearer garbage',
  ]
  for (const authorization of refused) {
    const response = await inject('/api/v1/x', authorization)
    assert.equal(response.statusCode, 401, `${String(authorization)}: ${response.body}`)
    assert.match(String(response.headers['www-authenticate']), /^Bearer/)
    assert.equal(json(response).type, 'urn:service:problem:unauthenticated')
    assert.equal(response.headers['x-meta-version'], app.tablegate.metaVersion([]))
  }

  // No login routes: /api/auth/* is not public here, and behind the gate it does not exist.
  for (const url of ['/api/auth/status', '/api/auth/jwks', '/api/auth/token']) {
    const response = await inject(url)
    assert.equal(response.statusCode, 401, url)
    assert.equal(response.headers['www-authenticate'], 'Bearer')
  }
  assert.equal((await inject('/api/auth/sign-in/email', undefined, 'POST')).statusCode, 401)
  const withToken = await inject('/api/auth/status', `Bearer ${await token({})}`)
  assert.equal(withToken.statusCode, 404)
})
