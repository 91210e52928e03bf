import { test } from 'node:test'
import assert from 'node:assert/strict'
import { BoundedCache, MAX_KEY_LENGTH } from '../../lib/cache.js'

test('the least recently used entry leaves first', () => {
  const cache = new BoundedCache<number>(2)
  cache.set('a', 1)
  cache.set('b', 2)
  assert.equal(cache.getOrCreate('a', () => 0), 1)
  cache.set('c', 3)
  assert.equal(cache.get('b'), undefined)
  assert.equal(cache.get('a'), 1)
  assert.equal(cache.size, 2)
})

test('a key longer than the limit is computed each time and never kept', () => {
  const cache = new BoundedCache<number>(10)
  const long = 'x'.repeat(MAX_KEY_LENGTH + 1)
  let made = 0
  assert.equal(cache.getOrCreate(long, () => ++made), 1)
  assert.equal(cache.getOrCreate(long, () => ++made), 2)
  cache.set(long, 7)
  assert.equal(cache.size, 0)
  assert.equal(cache.getOrCreate('x'.repeat(MAX_KEY_LENGTH), () => ++made), 3)
  assert.equal(cache.size, 1)
})

test('a creation that throws leaves nothing behind', () => {
  const cache = new BoundedCache<number>(10)
  assert.throws(() => cache.getOrCreate('k', () => { throw new Error('no') }))
  assert.equal(cache.get('k'), undefined)
})
