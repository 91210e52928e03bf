import { test } from 'node:test'
import assert from 'node:assert/strict'
import { decrypt, deriveKey, encrypt, pooledIvs } from '../../lib/crypto.js'
import { pageTokens } from '../../lib/query/page-token.js'

test('pooled IVs are 12 bytes, never repeat across refills, and are not overwritten by a refill', () => {
  const next = pooledIvs()
  const first = next()
  const kept = Buffer.from(first)
  const seen = new Set<string>()
  for (let i = 0; i < 5000; i++) {
    const iv = next()
    assert.equal(iv.length, 12)
    seen.add(iv.toString('hex'))
  }
  assert.equal(seen.size, 5000)
  assert.ok(!seen.has(kept.toString('hex')))
  assert.deepEqual(first, kept, 'an IV handed out keeps its bytes after later refills')
})

test('what is encrypted with pooled IVs decrypts, and each encryption of the same text differs', () => {
  const key = deriveKey('a-secret-that-is-long-enough-0123456789', 'page-token')
  const ivs = pooledIvs()
  const texts = Array.from({ length: 2000 }, () => encrypt(key, 'the same plaintext', ivs))
  assert.equal(new Set(texts).size, texts.length)
  for (const text of texts.slice(-3)) assert.equal(decrypt(key, text), 'the same plaintext')
})

test('derived keys are secret key objects of 32 bytes, one per purpose, so ciphers and HMACs take them without probing a Buffer', () => {
  const secret = 'a-secret-that-is-long-enough-0123456789'
  const pageToken = deriveKey(secret, 'page-token')
  assert.equal(pageToken.type, 'secret')
  assert.equal(pageToken.symmetricKeySize, 32)
  assert.ok(pageToken.equals(deriveKey(secret, 'page-token')))
  assert.ok(!pageToken.equals(deriveKey(secret, 'etag')))
})

test('a page served again gets its kept token from the second time on; a page served once is not kept', () => {
  const tokens = pageTokens(deriveKey('a-secret-that-is-long-enough-0123456789', 'page-token'))
  const cursor = { direction: 'forward' as const, values: ['50'] }
  const first = tokens.encode('["items","",[["id","ASC"]],false]', cursor, undefined, 'scope')
  const second = tokens.encode('["items","",[["id","ASC"]],false]', cursor, undefined, 'scope')
  const third = tokens.encode('["items","",[["id","ASC"]],false]', cursor, undefined, 'scope')
  assert.notEqual(first, second, 'the first encryption is not kept')
  assert.equal(third, second)
  for (const token of [first, second]) assert.deepEqual(tokens.decode('["items","",[["id","ASC"]],false]', token, 'scope'), cursor)
})
