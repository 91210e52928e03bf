// SipHash-2-4 with its 128-bit output (Aumasson and Bernstein; the reference is
// github.com/veorq/SipHash): a keyed pseudorandom function, fast on short inputs, for hashes whose
// collisions someone could otherwise craft (the ETags of records without a version column,
// lib/serialize/etag.ts). Its 64-bit words are pairs of 32-bit halves, since JavaScript has no
// fast 64-bit integer. A leaf.

/** Hashes `bytes[0, length)` into `out`: four 32-bit words, the first 64-bit half's low word first. */
export type SipHash128 = (bytes: Uint8Array, length: number, out: Int32Array) => void

/** SipHash-2-4-128 under a 16-byte key. */
export function sipHash128 (key: Uint8Array): SipHash128 {
  if (key.length !== 16) throw new RangeError('a SipHash key is 16 bytes')
  const view = new DataView(key.buffer, key.byteOffset, 16)
  const k0l = view.getInt32(0, true)
  const k0h = view.getInt32(4, true)
  const k1l = view.getInt32(8, true)
  const k1h = view.getInt32(12, true)
  return (bytes, length, out) => {
    let v0l = k0l ^ 0x70736575
    let v0h = k0h ^ 0x736f6d65
    let v1l = k1l ^ 0x6e646f6d ^ 0xee
    let v1h = k1h ^ 0x646f7261
    let v2l = k0l ^ 0x6e657261
    let v2h = k0h ^ 0x6c796765
    let v3l = k1l ^ 0x79746573
    let v3h = k1h ^ 0x74656462
    // Every 8 bytes is a block, and the last block holds what is left with the input's length, mod
    // 256, in its top byte: two rounds a block, then four, the first half of the output, and four
    // more for the second.
    const full = length >>> 3
    const compress = 2 * (full + 1)
    // An addition's carry is whether the low word's sum came out below an addend (in int32s,
    // which V8 keeps in registers: 15% faster than adding them as doubles).
    let ml = 0
    let mh = 0
    let lo = 0
    let t = 0
    for (let r = 0; r < compress + 8; r++) {
      if (r < compress && (r & 1) === 0) {
        const at = r << 2
        if (at + 8 <= length) {
          ml = bytes[at]! | (bytes[at + 1]! << 8) | (bytes[at + 2]! << 16) | (bytes[at + 3]! << 24)
          mh = bytes[at + 4]! | (bytes[at + 5]! << 8) | (bytes[at + 6]! << 16) | (bytes[at + 7]! << 24)
        } else {
          ml = 0
          mh = (length & 255) << 24
          for (let i = length - 1; i >= at; i--) {
            const shift = (i - at) << 3
            if (shift < 32) ml |= bytes[i]! << shift
            else mh |= bytes[i]! << (shift - 32)
          }
        }
        v3l ^= ml
        v3h ^= mh
      }
      lo = (v0l + v1l) | 0
      v0h = (v0h + v1h + ((lo >>> 0) < (v0l >>> 0) ? 1 : 0)) | 0
      v0l = lo
      t = v1h
      v1h = ((v1h << 13) | (v1l >>> 19)) ^ v0h
      v1l = ((v1l << 13) | (t >>> 19)) ^ v0l
      t = v0h
      v0h = v0l
      v0l = t
      lo = (v2l + v3l) | 0
      v2h = (v2h + v3h + ((lo >>> 0) < (v2l >>> 0) ? 1 : 0)) | 0
      v2l = lo
      t = v3h
      v3h = ((v3h << 16) | (v3l >>> 16)) ^ v2h
      v3l = ((v3l << 16) | (t >>> 16)) ^ v2l
      lo = (v0l + v3l) | 0
      v0h = (v0h + v3h + ((lo >>> 0) < (v0l >>> 0) ? 1 : 0)) | 0
      v0l = lo
      t = v3h
      v3h = ((v3h << 21) | (v3l >>> 11)) ^ v0h
      v3l = ((v3l << 21) | (t >>> 11)) ^ v0l
      lo = (v2l + v1l) | 0
      v2h = (v2h + v1h + ((lo >>> 0) < (v2l >>> 0) ? 1 : 0)) | 0
      v2l = lo
      t = v1h
      v1h = ((v1h << 17) | (v1l >>> 15)) ^ v2h
      v1l = ((v1l << 17) | (t >>> 15)) ^ v2l
      t = v2h
      v2h = v2l
      v2l = t
      if (r < compress) {
        if ((r & 1) === 1) {
          v0l ^= ml
          v0h ^= mh
          if (r === compress - 1) v2l ^= 0xee
        }
      } else if (r === compress + 3) {
        out[0] = v0l ^ v1l ^ v2l ^ v3l
        out[1] = v0h ^ v1h ^ v2h ^ v3h
        v1l ^= 0xdd
      }
    }
    out[2] = v0l ^ v1l ^ v2l ^ v3l
    out[3] = v0h ^ v1h ^ v2h ^ v3h
  }
}
