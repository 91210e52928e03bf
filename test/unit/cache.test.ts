import { test } from 'node:test'
import assert from 'node:assert/strict'
import { BoundedCache, MAX_KEY_LENGTH } from '../../lib/cache.js'

test('an entry not used for a generation leaves with it', () => {
  const cache = new BoundedCache<number>(2)
  cache.set('a', 1)
  cache.set('b', 2)
  cache.set('c', 3)
  assert.equal(cache.getOrCreate('a', () => 0), 1)
  cache.set('d', 4)
  assert.equal(cache.get('b'), undefined)
  assert.deepEqual([cache.get('a'), cache.get('c'), cache.get('d')], [1, 3, 4])
  assert.equal(cache.size, 3)
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

test('the last max keys used are always held, and never more than twice max', () => {
  const cache = new BoundedCache<number>(100)
  let created = 0
  // 100 keys in turn, as 100 callers: after the first round every lookup hits.
  for (let round = 0; round < 5; round++) for (let i = 0; i < 100; i++) cache.getOrCreate(`caller ${i}`, () => ++created)
  assert.equal(created, 100)
  for (let i = 0; i < 10_000; i++) {
    cache.set(`key ${i}`, i)
    assert.ok(cache.size <= 200, `size ${cache.size} after ${i + 1} insertions`)
  }
  for (let i = 9_900; i < 10_000; i++) assert.equal(cache.get(`key ${i}`), i)
  assert.equal(cache.get('key 9000'), undefined)
})

test('set replaces a value in place; delete removes it from either generation', () => {
  const cache = new BoundedCache<number>(4)
  cache.set('a', 1)
  cache.set('b', 2)
  cache.set('c', 3)
  cache.set('a', 10)
  cache.set('c', 30)
  assert.deepEqual([cache.get('a'), cache.get('b'), cache.get('c')], [10, 2, 30])
  cache.delete('a')
  cache.delete('c')
  assert.deepEqual([cache.get('a'), cache.get('c'), cache.size], [undefined, undefined, 1])
})

test('admitOnReuse keeps a key from its second miss, so keys used once leave (almost) nothing behind', () => {
  const cache = new BoundedCache<number>(100, { admitOnReuse: true })
  let made = 0
  for (let i = 0; i < 1_000; i++) cache.getOrCreate(`id > ${i}`, () => ++made)
  // The doorkeeper's bitmap lets an unseen key pass for seen now and then.
  const passed = cache.size
  assert.ok(passed <= 5, `${passed} of 1,000 keys used once were kept`)
  assert.equal(cache.getOrCreate('first page', () => ++made), 1_001)
  assert.equal(cache.size, passed)
  assert.equal(cache.getOrCreate('first page', () => ++made), 1_002)
  assert.equal(cache.size, passed + 1)
  assert.equal(cache.getOrCreate('first page', () => ++made), 1_002)
  assert.deepEqual([cache.hits, cache.misses], [1, 1_002])
})

test('a doorkeeper forgets after 8,192 new keys, and lets few unseen keys pass for seen', () => {
  const cache = new BoundedCache<number>(100_000, { admitOnReuse: true })
  cache.getOrCreate('seen once', () => 0)
  for (let i = 0; i < 8_000; i++) cache.getOrCreate(`filler ${i}`, () => i)
  const passed = cache.size
  assert.ok(passed < 8_000 * 0.05, `${passed} of 8,000 unseen keys were kept`)
  for (let i = 8_000; i < 9_000; i++) cache.getOrCreate(`filler ${i}`, () => i)
  cache.getOrCreate('seen once', () => 0)
  assert.equal(cache.get('seen once'), undefined)
})
