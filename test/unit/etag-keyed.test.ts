// The ETag of a record without a version column (lib/serialize/etag.ts): SipHash-2-4-128 as its
// reference computes it, over values that no other values can be written as, under a key of the
// server's and of the resource's (docs/decisions.md, "To-many embeds at the floor's cost").
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { sipHash128 } from '../../lib/siphash.js'
import { deriveKey } from '../../lib/crypto.js'
import { etags } from '../../lib/serialize/etag.js'
import type { FieldModel, ResourceModel } from '../../lib/model/types.js'

// The reference's vectors (github.com/veorq/SipHash, vectors.h, vectors_sip128): key 00 01 … 0f,
// message 00 01 … of the length given: none, less than a block, blocks and a byte over or under.
const VECTORS: Record<number, string> = {
  0: 'a3817f04ba25a8e66df67214c7550293',
  1: 'da87c1d86b99af44347659119b22fc45',
  7: 'a1f1ebbed8dbc153c0b84aa61ff08239',
  8: '3b62a9ba6258f5610f83e264f31497b4',
  15: '5493e99933b0a8117e08ec0f97cfc3d9',
  16: '6ee2a4ca67b054bbfd3315bf85230577',
  62: '5853542321f567a005d547a4f04759bd',
  63: '5150d1772f50834a503e069a973fbd7c',
}

test('SipHash-2-4-128 gives the reference\'s vectors, whatever the length left over after the last full block', () => {
  const hash = sipHash128(Uint8Array.from({ length: 16 }, (_, i) => i))
  const out = new Int32Array(4)
  for (const [length, expected] of Object.entries(VECTORS)) {
    // A longer buffer than the message: only `length` bytes are read.
    const bytes = Uint8Array.from({ length: Number(length) + 9 }, (_, i) => i < Number(length) ? i : 0xff)
    hash(bytes, Number(length), out)
    assert.equal(Buffer.from(out.buffer).toString('hex'), expected, `${length} bytes`)
  }
  assert.throws(() => sipHash128(new Uint8Array(8)), /16 bytes/)
})

/** SipHash-2-4-128 as its paper writes it, in BigInts: slow, and plainly the function. */
function referenceSipHash (key: Uint8Array, message: Uint8Array): string {
  const mask = (1n << 64n) - 1n
  const word = (bytes: Uint8Array, at: number, n = 8): bigint => {
    let w = 0n
    for (let i = n - 1; i >= 0; i--) w = (w << 8n) | BigInt(bytes[at + i]!)
    return w
  }
  const rotl = (x: bigint, b: bigint): bigint => ((x << b) | (x >> (64n - b))) & mask
  const k0 = word(key, 0)
  const k1 = word(key, 8)
  const v = [k0 ^ 0x736f6d6570736575n, k1 ^ 0x646f72616e646f6dn ^ 0xeen, k0 ^ 0x6c7967656e657261n, k1 ^ 0x7465646279746573n]
  const round = (): void => {
    v[0] = (v[0]! + v[1]!) & mask; v[1] = rotl(v[1]!, 13n) ^ v[0]; v[0] = rotl(v[0], 32n)
    v[2] = (v[2]! + v[3]!) & mask; v[3] = rotl(v[3]!, 16n) ^ v[2]
    v[0] = (v[0] + v[3]) & mask; v[3] = rotl(v[3], 21n) ^ v[0]
    v[2] = (v[2] + v[1]) & mask; v[1] = rotl(v[1], 17n) ^ v[2]; v[2] = rotl(v[2], 32n)
  }
  const compress = (m: bigint): void => { v[3] = v[3]! ^ m; round(); round(); v[0] = v[0]! ^ m }
  const full = message.length - (message.length % 8)
  for (let at = 0; at < full; at += 8) compress(word(message, at))
  compress((BigInt(message.length & 255) << 56n) | word(message, full, message.length - full))
  const half = (): string => {
    for (let i = 0; i < 4; i++) round()
    const x = v[0]! ^ v[1]! ^ v[2]! ^ v[3]!
    return Buffer.from(Array.from({ length: 8 }, (_, i) => Number((x >> BigInt(8 * i)) & 255n))).toString('hex')
  }
  v[2] = v[2]! ^ 0xeen
  const first = half()
  v[1] = v[1]! ^ 0xddn
  return first + half()
}

test('SipHash-2-4-128 agrees with the function written plainly for messages of any length, in buffers of any size, before and after its memory grows', () => {
  const key = Uint8Array.from({ length: 16 }, (_, i) => 37 * i + 11)
  const hash = sipHash128(key)
  const out = new Int32Array(4)
  const hex = (): string => Buffer.from(out.buffer).toString('hex')
  const message = Uint8Array.from({ length: 150_000 }, (_, i) => (i * 7919) % 251)
  for (const length of [0, 5, 8, 90, 511, 4096, 4097, 70_000, 150_000, 90, 3]) {
    const exact = message.slice(0, length)
    hash(exact, length, out)
    assert.equal(hex(), referenceSipHash(key, exact), `${length} bytes, a buffer of its length`)
    hash(message, length, out)
    assert.equal(hex(), referenceSipHash(key, exact), `${length} bytes of a longer buffer`)
  }
  const other = sipHash128(new Uint8Array(16))
  other(message, 90, out)
  assert.equal(hex(), referenceSipHash(new Uint8Array(16), message.slice(0, 90)), 'each key its own')
})

test('a Node without WebAssembly is told so when the ETags are made, in one line', () => {
  const siphash = fileURLToPath(new URL('../../lib/siphash.js', import.meta.url))
  const run = spawnSync(process.execPath, ['--jitless', '--input-type=module', '-e', `import(${JSON.stringify(pathToFileURL(siphash).href)}).then((m) => m.loadSipHash())`], { encoding: 'utf8' })
  assert.notEqual(run.status, 0)
  assert.match(run.stderr, /tablegate needs WebAssembly, which this Node runs without \(started with --jitless\?\)/)
})

const field = (name: string, type: FieldModel['type']): FieldModel => ({ name, type }) as FieldModel
const id = field('id', 'bigint')
const note = field('note', 'string')
const rank = field('rank', 'integer')
const data = field('data', 'json')
const model = (name: string): ResourceModel => ({ name, key: [id], versionField: undefined, version: undefined }) as unknown as ResourceModel

test('without a version column, records whose values read differently get different ETags, and alike ones the same', () => {
  const of = etags(deriveKey('a-secret-that-is-long-enough-0123456789', 'etag')).of(model('notes'), [id, note, rank, data])
  const rows = [
    { id: '1', note: null, rank: 1, data: null },
    { id: '1', note: 'null', rank: 1, data: null },
    { id: '1', note: '', rank: 1, data: null },
    { id: '1', note: '1', rank: null, data: null },
    { id: '1', note: null, rank: 1, data: 'null' },
    { id: '1', note: null, rank: 1, data: {} },
    { id: '1', note: null, rank: 1, data: [] },
    { id: '1', note: null, rank: 1, data: true },
    { id: '1', note: null, rank: 1, data: 'true' },
    { id: '1', note: null, rank: 65536, data: null },
    { id: '1', note: null, rank: -1, data: null },
    { id: '1', note: null, rank: 1.5, data: null },
    { id: '1', note: null, rank: 1, data: 1 },
    { id: '1', note: null, rank: 1, data: '1' },
    { id: '11', note: null, rank: 1, data: null },
    { id: '1', note: '1', rank: 1, data: null },
    // A value's end is never taken for the next one's start.
    { id: '1', note: 'a', rank: 1, data: 'bc' },
    { id: '1', note: 'ab', rank: 1, data: 'c' },
    { id: '1', note: 'x'.repeat(9000), rank: 1, data: null },
    { id: '1', note: 'x'.repeat(9001), rank: 1, data: null },
    { id: '1', note: '\u{1F600}', rank: 1, data: null },
    // A text of characters below 256 goes a byte each, one above as UTF-16: never the same bytes.
    { id: '1', note: '\u0100', rank: 1, data: null },
    { id: '1', note: '\u0000\u0001', rank: 1, data: null },
    { id: '1', note: '\u00ff', rank: 1, data: null },
    { id: '1', note: 'x'.repeat(14), rank: 1, data: null },
    { id: '1', note: 'x'.repeat(15), rank: 1, data: null },
    { id: '1', note: null, rank: 1, data: { é: '\u0100' } },
  ]
  const tags = rows.map(of)
  assert.equal(new Set(tags).size, rows.length, JSON.stringify(tags))
  for (const tag of tags) assert.match(tag, /^"[A-Za-z0-9_-]{20}"$/)
  // The same values give the same ETag, whatever else the row holds, and undefined reads as null.
  assert.equal(of({ id: '1', note: 'a', rank: 1, data: 'bc', hidden: 'x' }), tags[16])
  assert.equal(of({ id: '1', rank: 1 }), tags[0])
})

test('the keyed ETag depends on the server\'s secret and the resource, and not on fields outside the caller\'s', () => {
  const row = { id: '7', note: 'n', rank: 3, data: null }
  const secret = deriveKey('a-secret-that-is-long-enough-0123456789', 'etag')
  const one = etags(secret).of(model('notes'), [id, note])(row)
  assert.equal(etags(deriveKey('a-secret-that-is-long-enough-0123456789', 'etag')).of(model('notes'), [id, note])(row), one)
  assert.notEqual(etags(deriveKey('another-secret-that-is-long-enough-01234', 'etag')).of(model('notes'), [id, note])(row), one)
  assert.notEqual(etags(secret).of(model('memos'), [id, note])(row), one)
  assert.equal(etags(secret).of(model('notes'), [id, note])({ ...row, rank: 4 }), one)
  // A key the caller does not read still tells two records apart.
  const keyless = etags(secret).of(model('notes'), [note])
  assert.notEqual(keyless(row), keyless({ ...row, id: '8' }))
})

test('the keyed ETag of given values stays what it was, ASCII, Latin-1 and wider texts alike: clients keep their ETags across upgrades', () => {
  const of = etags(deriveKey('a-secret-that-is-long-enough-0123456789', 'etag')).of(model('notes'), [id, note, rank, data])
  const rows = [
    { id: '1', note: 'open', rank: 1, data: null },
    { id: '100123', note: '2026-01-01T10:07:00.000000Z', rank: 7, data: null },
    { id: '2', note: 'Crème brûlée', rank: -3, data: { a: 'é' } },
    { id: '3', note: 'naïve', rank: 2.5, data: [1, 'x'] },
    { id: '4', note: 'Łódź and more text', rank: 0, data: 'ü' },
    { id: '5', note: 'x'.repeat(40) + 'ÿ', rank: 65536, data: true },
    { id: '6', note: 'emoji \u{1F600} here', rank: null, data: false },
  ]
  // Computed before the values were written natively (Buffer#write) into the hash's own memory.
  assert.deepEqual(rows.map(of), ['"qgcy7cfuC_KAcYe2xwqw"', '"_5YkrGe9DLlh0pjKnG62"', '"1aI9j6oTXmyOGLkE8bVu"', '"KYGCDcwMtgYRhxHms324"',
    '"We4_OmGrC2nTySamPGHZ"', '"6BPUXERfRJdQTpfepujM"', '"Q8wDtb4KibhM52xIryEU"'])
})

test('two apps\' ETags, made in turn in the one hash memory of the process, stay each its own when one record grows that memory', () => {
  const secret = deriveKey('a-secret-that-is-long-enough-0123456789', 'etag')
  const first = etags(secret).of(model('notes'), [id, note])
  const second = etags(secret).of(model('notes'), [id, note])
  const row = { id: '7', note: 'n'.repeat(20) }
  const before = first(row)
  assert.equal(second(row), before)
  // Past the memory the module started with (64 KiB): it grows, and every earlier view of it empties.
  const large = { id: '8', note: 'é'.repeat(200_000) }
  const largeTag = second(large)
  assert.equal(first(row), before)
  assert.equal(first(large), largeTag)
  assert.equal(second(row), before)
})
