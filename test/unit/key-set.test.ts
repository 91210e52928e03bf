// The verifier's key set with a fake clock (docs/login.md, "Verification"): read once, again every
// refreshMs, and on an unknown kid at most once per minReloadMs however many such tokens arrive.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { exportJWK, generateKeyPair, type JWK, type JWTHeaderParameters } from 'jose'
import { createKeySet, KeySetUnavailableError } from '../../lib/auth/key-set.js'

async function publicJwk (kid: string): Promise<JWK> {
  const { publicKey } = await generateKeyPair('Ed25519')
  return { ...await exportJWK(publicKey), kid, alg: 'EdDSA', use: 'sig' }
}

const k1 = await publicJwk('k1')
const k2 = await publicJwk('k2')
const k3 = await publicJwk('k3')

function header (kid?: string, alg = 'EdDSA'): JWTHeaderParameters {
  return kid === undefined ? { alg } : { alg, kid }
}

/** A key source whose keys the test changes, counting reads; `fail` makes the next reads throw. */
function source (keys: JWK[]) {
  const state = {
    keys,
    reads: 0,
    fail: false,
    load: async (): Promise<JWK[]> => {
      state.reads++
      if (state.fail) throw new Error('key source down')
      return [...state.keys]
    },
  }
  return state
}

function clock (start = 1_700_000_000_000) {
  const c = { t: start, now: () => c.t }
  return c
}

test('the first lookup loads the set once; known kids need no further reads', async () => {
  const src = source([k1, k2])
  const c = clock()
  const keys = createKeySet(src.load, { now: c.now })
  assert.equal(keys.loads, 0)
  assert.ok(await keys.keyFor(header('k1')) !== undefined)
  assert.ok(await keys.keyFor(header('k2')) !== undefined)
  c.t += 599_999
  for (let i = 0; i < 100; i++) assert.ok(await keys.keyFor(header(i % 2 === 0 ? 'k1' : 'k2')) !== undefined)
  assert.equal(keys.loads, 1)
  assert.equal(src.reads, 1)
})

test('a flood of unknown kids reloads at most once per 30 s', async () => {
  const src = source([k1])
  const c = clock()
  const keys = createKeySet(src.load, { now: c.now })
  assert.ok(await keys.keyFor(header('k1')) !== undefined)
  assert.equal(src.reads, 1)

  // Within 30 s of the first read: 1,000 made-up kids, sequential and concurrent, read nothing more.
  c.t += 1_000
  for (let i = 0; i < 500; i++) assert.equal(await keys.keyFor(header(`made-up-${i}`)), undefined)
  assert.deepEqual(new Set(await Promise.all(Array.from({ length: 500 }, async (_, i) => await keys.keyFor(header(`burst-${i}`))))), new Set([undefined]))
  assert.equal(src.reads, 1)

  // 30 s later: another flood of 1,000 spread over the next 30 s reads exactly once.
  c.t += 30_000
  const floodStart = c.t
  const readsBefore = src.reads
  for (let i = 0; i < 1_000; i++) {
    c.t = floodStart + Math.floor(i * 29.999)
    assert.equal(await keys.keyFor(header(`flood-${i}`)), undefined)
  }
  assert.equal(src.reads - readsBefore, 1)
  assert.equal(keys.loads, 2)

  // Once 30 s have passed since that reload: exactly one more, however many lookups.
  c.t = floodStart + 30_000
  await Promise.all(Array.from({ length: 1_000 }, async (_, i) => await keys.keyFor(header(`again-${i}`))))
  assert.equal(src.reads - readsBefore, 2)
  assert.equal(keys.loads, 3)
  // Known kids still verify throughout.
  assert.ok(await keys.keyFor(header('k1')) !== undefined)
  assert.equal(keys.loads, 3)
})

test('an unknown kid picks up a newly published key, within the reload limit', async () => {
  const src = source([k1])
  const c = clock()
  const keys = createKeySet(src.load, { now: c.now })
  await keys.keyFor(header('k1'))
  src.keys = [k1, k2]
  // Too soon after the first read: not yet.
  c.t += 10_000
  assert.equal(await keys.keyFor(header('k2')), undefined)
  assert.equal(src.reads, 1)
  c.t += 20_000
  assert.ok(await keys.keyFor(header('k2')) !== undefined)
  assert.equal(src.reads, 2)
})

test('the set is read again after refreshMs, so a removed key stops matching', async () => {
  const src = source([k1, k2])
  const c = clock()
  const keys = createKeySet(src.load, { now: c.now, refreshMs: 600_000 })
  assert.ok(await keys.keyFor(header('k2')) !== undefined)
  src.keys = [k1]
  c.t += 599_999
  assert.ok(await keys.keyFor(header('k2')) !== undefined, 'still cached before refreshMs')
  assert.equal(src.reads, 1)
  c.t += 1
  assert.equal(await keys.keyFor(header('k2')), undefined)
  assert.ok(await keys.keyFor(header('k1')) !== undefined)
  assert.equal(src.reads, 2)
  // A key added meanwhile appears at the following refresh without any unknown-kid lookup.
  src.keys = [k1, k3]
  c.t += 600_000
  assert.ok(await keys.keyFor(header('k3')) !== undefined)
  assert.equal(src.reads, 3)
})

test('the default refresh is 10 minutes and the default reload limit 30 s', async () => {
  const src = source([k1])
  const c = clock()
  const keys = createKeySet(src.load, { now: c.now })
  await keys.keyFor(header('k1'))
  c.t += 29_999
  await keys.keyFor(header('nope'))
  assert.equal(src.reads, 1)
  c.t += 1
  await keys.keyFor(header('nope'))
  assert.equal(src.reads, 2)
  c.t += 599_999
  await keys.keyFor(header('k1'))
  assert.equal(src.reads, 2)
  c.t += 1
  await keys.keyFor(header('k1'))
  assert.equal(src.reads, 3)
})

test('concurrent lookups share one in-flight load', async () => {
  let release!: (keys: JWK[]) => void
  let reads = 0
  const load = async (): Promise<JWK[]> => {
    reads++
    return await new Promise<JWK[]>((resolve) => { release = resolve })
  }
  const c = clock()
  const keys = createKeySet(load, { now: c.now })
  const pending = Array.from({ length: 50 }, async (_, i) => await keys.keyFor(header(i % 2 === 0 ? 'k1' : 'k2')))
  await new Promise((resolve) => setImmediate(resolve))
  assert.equal(reads, 1)
  release([k1, k2])
  const found = await Promise.all(pending)
  assert.ok(found.every((key) => key !== undefined))
  assert.equal(reads, 1)
  assert.equal(keys.loads, 1)

  // A refresh is shared the same way.
  c.t += 600_000
  const again = Array.from({ length: 20 }, async () => await keys.keyFor(header('k1')))
  await new Promise((resolve) => setImmediate(resolve))
  assert.equal(reads, 2)
  release([k1])
  assert.ok((await Promise.all(again)).every((key) => key !== undefined))
  assert.equal(reads, 2)
})

test('a failed refresh keeps the previous keys, and a failing source is not read on every lookup', async () => {
  const src = source([k1, k2])
  const c = clock()
  const keys = createKeySet(src.load, { now: c.now })
  assert.ok(await keys.keyFor(header('k1')) !== undefined)
  src.fail = true
  c.t += 600_000
  assert.ok(await keys.keyFor(header('k1')) !== undefined, 'refresh failed: the last good set still verifies')
  assert.ok(await keys.keyFor(header('k2')) !== undefined)
  assert.equal(src.reads, 2)
  // Nor does an unknown kid reach the failing source again within 30 s, and it throws nothing.
  assert.equal(await keys.keyFor(header('unknown')), undefined)
  for (let i = 0; i < 100; i++) {
    c.t += 100
    assert.ok(await keys.keyFor(header('k1')) !== undefined)
  }
  assert.equal(src.reads, 2, 'the failing source is retried at most once per 30 s')
  // The source comes back without k2: the next attempt (30 s after the failed one) replaces the set.
  src.fail = false
  src.keys = [k1]
  c.t += 30_000
  assert.ok(await keys.keyFor(header('k1')) !== undefined)
  assert.equal(src.reads, 3)
  assert.equal(await keys.keyFor(header('k2')), undefined)
})

test('a failed reload on an unknown kid keeps the keys and answers no key', async () => {
  const src = source([k1])
  const c = clock()
  const keys = createKeySet(src.load, { now: c.now })
  await keys.keyFor(header('k1'))
  src.fail = true
  c.t += 30_000
  assert.equal(await keys.keyFor(header('k2')), undefined)
  assert.equal(src.reads, 2)
  assert.ok(await keys.keyFor(header('k1')) !== undefined)
})

test('a first load that fails throws KeySetUnavailableError; a later lookup tries again', async () => {
  const src = source([k1])
  src.fail = true
  const c = clock()
  const keys = createKeySet(src.load, { now: c.now })
  await assert.rejects(keys.keyFor(header('k1')), (err: unknown) => {
    assert.ok(err instanceof KeySetUnavailableError)
    assert.equal((err.cause as Error).message, 'key source down')
    return true
  })
  src.fail = false
  assert.ok(await keys.keyFor(header('k1')) !== undefined)
  assert.equal(src.reads, 2)
})

test('only signing keys for the header algorithm match; no kid needs exactly one candidate', async () => {
  const c = clock()
  const encryption = { ...k3, use: 'enc' }
  const keys = createKeySet(async () => [k1, { ...k2, alg: 'ES256' }, encryption], { now: c.now })
  assert.ok(await keys.keyFor(header('k1')) !== undefined)
  assert.equal(await keys.keyFor(header('k2')), undefined, 'alg of the key differs from the header')
  assert.equal(await keys.keyFor(header('k3')), undefined, 'an encryption key never verifies')
  assert.equal(await keys.keyFor(header('k1', 'RS256')), undefined)
  // No kid: the one usable key for EdDSA is used.
  assert.ok(await keys.keyFor(header()) !== undefined)
  const two = createKeySet(async () => [k1, k2], { now: c.now })
  assert.equal(await two.keyFor(header()), undefined, 'no kid and two candidates: no guess')
})
