import { test } from 'node:test'
import assert from 'node:assert/strict'
import { SignJWT, generateKeyPair, exportJWK, type JWK } from 'jose'
import { createVerifier } from '../../lib/auth/verifier.js'
import { isProblem } from '../../lib/problems.js'

const T0 = Date.UTC(2026, 10, 22, 12, 0, 0)

async function keyPair (kid: string) {
  const { privateKey, publicKey } = await generateKeyPair('EdDSA', { extractable: true })
  return { privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg: 'EdDSA' } as JWK }
}

/** `kid` undefined: a token whose header names no key, as many issuers sign them. */
async function sign (privateKey: Awaited<ReturnType<typeof generateKeyPair>>['privateKey'], kid: string | undefined, claims: { iat: number, exp: number, sub?: string }) {
  return await new SignJWT({ role: 'user' }).setProtectedHeader(kid === undefined ? { alg: 'EdDSA' } : { alg: 'EdDSA', kid }).setSubject(claims.sub ?? 'u1')
    .setIssuer('https://api.example.com').setAudience('https://api.example.com').setIssuedAt(claims.iat).setExpirationTime(claims.exp).sign(privateKey)
}

async function rejects (promise: Promise<unknown>, detail: RegExp): Promise<void> {
  await assert.rejects(promise, (err) => isProblem(err) && err.status === 401 && detail.test(err.detail))
}

function setup (verifiedTokens?: number) {
  let now = T0
  let keys: JWK[] = []
  const verifier = createVerifier({
    loadKeys: async () => keys, issuer: 'https://api.example.com', audience: 'https://api.example.com', algorithms: ['EdDSA'], now: () => now, verifiedTokens,
  })
  return { verifier, setNow: (t: number) => { now = t }, setKeys: (k: JWK[]) => { keys = k } }
}

test('a verified token is answered from the cache: even a clock moved before its iat does not re-verify it', async () => {
  const { verifier, setNow, setKeys } = setup()
  const a = await keyPair('a')
  setKeys([a.jwk])
  const token = await sign(a.privateKey, 'a', { iat: T0 / 1000, exp: T0 / 1000 + 900 })
  assert.deepEqual(await verifier.verify(token), { user: { id: 'u1', roles: ['user'] }, tenant: undefined })
  setNow(T0 - 60_000)
  assert.equal((await verifier.verify(token)).user.id, 'u1')
})

test('without the cache, the same clock refuses it: the cache is what answered', async () => {
  const { verifier, setNow, setKeys } = setup(0)
  const a = await keyPair('a')
  setKeys([a.jwk])
  const token = await sign(a.privateKey, 'a', { iat: T0 / 1000, exp: T0 / 1000 + 900 })
  await verifier.verify(token)
  setNow(T0 - 60_000)
  await rejects(verifier.verify(token), /invalid/)
})

test('a cached token expires at its exp, with no leeway', async () => {
  const { verifier, setNow, setKeys } = setup()
  const a = await keyPair('a')
  setKeys([a.jwk])
  const token = await sign(a.privateKey, 'a', { iat: T0 / 1000, exp: T0 / 1000 + 900 })
  await verifier.verify(token)
  setNow(T0 + 899_999)
  await verifier.verify(token)
  setNow(T0 + 900_000)
  await rejects(verifier.verify(token), /expired/)
})

test('a tampered copy of a cached token never matches it', async () => {
  const { verifier, setKeys } = setup()
  const a = await keyPair('a')
  setKeys([a.jwk])
  const token = await sign(a.privateKey, 'a', { iat: T0 / 1000, exp: T0 / 1000 + 900 })
  await verifier.verify(token)
  const [header, payload, signature] = token.split('.') as [string, string, string]
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString())
  const forged = `${header}.${Buffer.from(JSON.stringify({ ...claims, role: 'admin' })).toString('base64url')}.${signature}`
  await rejects(verifier.verify(forged), /invalid/)
  await rejects(verifier.verify(token + 'x'), /invalid/)
})

test('a cached token stops verifying once its key leaves the key set (at the next refresh)', async () => {
  const { verifier, setNow, setKeys } = setup()
  const a = await keyPair('a')
  const b = await keyPair('b')
  setKeys([a.jwk, b.jwk])
  const token = await sign(a.privateKey, 'a', { iat: T0 / 1000, exp: T0 / 1000 + 3600 })
  await verifier.verify(token)
  setKeys([b.jwk])
  setNow(T0 + 599_000)
  await verifier.verify(token)
  setNow(T0 + 600_000)
  await rejects(verifier.verify(token), /invalid/)
})

test('a token without kid is answered from the cache as well: the cache knows the key that verified it, not the header', async () => {
  const { verifier, setNow, setKeys } = setup()
  const a = await keyPair('a')
  setKeys([a.jwk])
  const token = await sign(a.privateKey, undefined, { iat: T0 / 1000, exp: T0 / 1000 + 900 })
  assert.equal((await verifier.verify(token)).user.id, 'u1')
  setNow(T0 - 60_000)
  assert.equal((await verifier.verify(token)).user.id, 'u1')
  assert.deepEqual([verifier.verifiedTokens.hits, verifier.verifiedTokens.misses], [1, 1])
})

test('a cached token without kid stops verifying once its key leaves the set, even for a new key with no kid either', async () => {
  const { verifier, setNow, setKeys } = setup()
  const a = await keyPair('a')
  const b = await keyPair('b')
  const bare = (jwk: JWK): JWK => ({ ...jwk, kid: undefined })
  setKeys([bare(a.jwk)])
  const token = await sign(a.privateKey, undefined, { iat: T0 / 1000, exp: T0 / 1000 + 3600 })
  await verifier.verify(token)
  setKeys([bare(b.jwk)])
  setNow(T0 + 600_000)
  await rejects(verifier.verify(token), /invalid/)
})

test('failed verifications are not cached', async () => {
  const { verifier, setKeys } = setup()
  const a = await keyPair('a')
  const stranger = await keyPair('a')
  setKeys([a.jwk])
  const forged = await sign(stranger.privateKey, 'a', { iat: T0 / 1000, exp: T0 / 1000 + 900 })
  await rejects(verifier.verify(forged), /invalid/)
  await rejects(verifier.verify(forged), /invalid/)
})
