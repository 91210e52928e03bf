// `npm run bench:auth`: the cost of the login path and of token verification, each beside its
// floor in one run. Sign-in over HTTP (inject) vs a bare argon2 verify; the gate's verify vs a
// bare jose jwtVerify vs a bare node:crypto Ed25519 verify.
import { cpus } from 'node:os'
import { runtimeOf } from '../lib/runtime.js'
import { verify as cryptoVerify, createPublicKey } from 'node:crypto'
import { jwtVerify, importJWK, type JWK } from 'jose'
import { benchDatabase } from './database.js'
import { createServer } from '../lib/server.js'
import { hashPassword, verifyPassword } from '../lib/auth/passwords.js'
import { createVerifier } from '../lib/auth/verifier.js'
import type { Revocation } from '../lib/auth/revocations.js'

const PASSWORD = 'correct-horse-battery'

function quantile (sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!
}

async function measure (runs: number, work: () => Promise<unknown> | unknown): Promise<{ p50: number, p99: number, mean: number }> {
  for (let i = 0; i < Math.min(200, runs); i++) await work()
  const times: number[] = []
  for (let i = 0; i < runs; i++) {
    const start = process.hrtime.bigint()
    await work()
    times.push(Number(process.hrtime.bigint() - start) / 1000)
  }
  times.sort((a, b) => a - b)
  return { p50: quantile(times, 0.5), p99: quantile(times, 0.99), mean: times.reduce((a, b) => a + b, 0) / times.length }
}

function row (name: string, r: { p50: number, p99: number, mean: number }, unit: 'µs' | 'ms'): string {
  const f = (v: number): string => (unit === 'ms' ? v / 1000 : v).toFixed(unit === 'ms' ? 1 : 0).padStart(8)
  return `${name.padEnd(44)}${f(r.p50)}${f(r.p99)}${f(r.mean)}  ${unit}`
}

const database = await benchDatabase()
const databaseUrl = database.url
const app = await createServer({ databaseUrl, authSecret: 'bench-secret-0123456789abcdef', signInPerMinute: 1_000_000 })
try {
  const users = runtimeOf(app).users!
  await users.create({ email: 'bench@example.com', password: PASSWORD })
  const { token } = await users.issueToken('bench@example.com')
  const jwk = (await users.keys.publicJwks())[0] as JWK
  const joseKey = await importJWK(jwk, 'EdDSA')
  const nodeKey = createPublicKey({ key: jwk as import('node:crypto').JsonWebKey, format: 'jwk' })
  const [header, payload, signature] = token.split('.') as [string, string, string]
  const signingInput = Buffer.from(`${header}.${payload}`)
  const sig = Buffer.from(signature, 'base64url')
  const hash = await hashPassword(PASSWORD)
  const verifier = runtimeOf(app).verifier

  console.log(`machine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, node ${process.version}`)
  console.log(`${'scenario'.padEnd(44)}${'p50'.padStart(8)}${'p99'.padStart(8)}${'mean'.padStart(8)}`)
  console.log(row('sign-in over HTTP (inject, argon2id + session)', await measure(60, async () => {
    const r = await app.inject({ method: 'POST', url: '/api/auth/sign-in/email', payload: { email: 'bench@example.com', password: PASSWORD } })
    if (r.statusCode !== 200) throw new Error(`sign-in answered ${r.statusCode}`)
  }), 'ms'))
  console.log(row('  floor: bare argon2id verify', await measure(60, async () => await verifyPassword(hash, PASSWORD)), 'ms'))
  const uncached = createVerifier({ loadKeys: users.keys.publicJwks, issuer: app.tablegate.config.publicUrl, audience: app.tablegate.config.publicUrl, algorithms: ['EdDSA'], verifiedTokens: 0 })
  console.log(row('token verification, repeated token (cache hit)', await measure(5000, async () => await verifier.verify(token)), 'µs'))
  // Bans, deletions and role changes of 10,000 other users; then one for this token's user.
  const revoked = new Map<string, Revocation>(Array.from({ length: 10_000 }, (_, i) => [`user-${i}`, { endedBefore: Date.now(), rolesSince: undefined, roles: [] }]))
  const withRevocations = createVerifier({ loadKeys: users.keys.publicJwks, issuer: app.tablegate.config.publicUrl, audience: app.tablegate.config.publicUrl, algorithms: ['EdDSA'], revocations: { lookup: (id) => revoked.get(id) } })
  console.log(row('  cache hit, 10,000 revocations of others', await measure(5000, async () => await withRevocations.verify(token)), 'µs'))
  const sub = JSON.parse(Buffer.from(payload, 'base64url').toString()).sub as string
  revoked.set(sub, { endedBefore: undefined, rolesSince: Date.now() + 60_000, roles: ['user'] })
  console.log(row('  cache hit, its user\'s roles changed since', await measure(5000, async () => await withRevocations.verify(token)), 'µs'))
  console.log(row('token verification, cache off (first sight)', await measure(5000, async () => await uncached.verify(token)), 'µs'))
  console.log(row('  floor: bare jose jwtVerify', await measure(5000, async () => await jwtVerify(token, joseKey, { algorithms: ['EdDSA'] })), 'µs'))
  console.log(row('  floor: bare node:crypto Ed25519 verify', await measure(5000, () => cryptoVerify(null, signingInput, nodeKey, sig)), 'µs'))
  console.log(row('gated request, 404 (inject, verify + routing)', await measure(3000, async () => await app.inject({ method: 'GET', url: '/api/v1/none', headers: { authorization: `Bearer ${token}` } })), 'µs'))
  console.log(row('  floor: public request (inject, /api/auth/x 404)', await measure(3000, async () => await app.inject({ method: 'GET', url: '/api/auth/none' })), 'µs'))
} finally {
  await app.close()
  await database.stop()
}
