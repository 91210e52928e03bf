// ETags, computed in Node from rows as read, so lists need no extra query. Every ETag is per
// record (resource and key are in it), none depends on a field the caller cannot read:
// - a version column the caller may read: `"<version>.<hash>"`, the hash over resource, key and
//   the version's exact text. Any process can read the version back from an If-Match and guard
//   an UPDATE on it, after restarts and behind a load balancer, with nothing remembered;
// - a version column hidden from the caller: an HMAC of the same under a key derived from
//   AUTH_SECRET, so the version cannot be guessed from it (such updates lock and compare);
// - no version column: a keyed hash (SipHash-2-4 under a key derived from AUTH_SECRET for each
//   resource) of key and every field the caller may read, so no one without the key can make two
//   records' values whose ETags agree (docs/decisions.md, "To-many embeds at the floor's cost").
import { createHmac, type KeyObject } from 'node:crypto'
import type { FieldModel, ResourceModel } from '../model/types.js'
import { FNV_OFFSET, FNV_PRIME } from '../hash.js'
import { loadSipHash, messageArea, sipHash128InPlace, type SipHashInPlace } from '../siphash.js'
import { compiledFunction, ShapeFunction } from './shape-function.js'

export type Row = Record<string, unknown>

// The ETag only has to tell records and versions apart, not resist forgery (an ETag grants
// nothing; `*` matches any version): a 64-bit FNV-1a over two lanes, written as hex through a
// table. A page hashes 50 rows, so this is written to allocate nothing but its result: measured
// 0.18 µs a row, where joining the parts into one string first and printing the hash with
// toString(36) cost 0.97 µs a row, most of it in garbage, and SHA-256 about 1 µs.
/** The second lane starts elsewhere, so the two lanes never agree. */
const FNV_OFFSET_B = 0x050c5d1f
const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'))

function hex32 (n: number): string {
  return HEX[n >>> 24]! + HEX[(n >>> 16) & 255]! + HEX[(n >>> 8) & 255]! + HEX[n & 255]!
}

/** The lanes after `resource\0`: each resource's starting point, worked out once. */
interface Lanes { readonly a: number, readonly b: number }

function resourceLanes (resource: string): Lanes {
  let a = FNV_OFFSET
  let b = FNV_OFFSET_B
  for (const text of [resource, '\0']) {
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i)
      a = Math.imul(a ^ c, FNV_PRIME)
      b = Math.imul(b ^ c, FNV_PRIME) ^ (a >>> 13)
    }
  }
  return { a, b }
}

/** The hash of `resource\0 key\0 version`: `key` is the key's text (parts joined by NUL). */
function recordHash (start: Lanes, key: string, version: string): string {
  let a = start.a
  let b = start.b
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i)
    a = Math.imul(a ^ c, FNV_PRIME)
    b = Math.imul(b ^ c, FNV_PRIME) ^ (a >>> 13)
  }
  a = Math.imul(a, FNV_PRIME)
  b = Math.imul(b, FNV_PRIME) ^ (a >>> 13)
  for (let i = 0; i < version.length; i++) {
    const c = version.charCodeAt(i)
    a = Math.imul(a ^ c, FNV_PRIME)
    b = Math.imul(b ^ c, FNV_PRIME) ^ (a >>> 13)
  }
  return hex32(a >>> 0) + hex32(b >>> 0)
}

// A record's values as the keyed hash reads them, one after another, each unambiguous: a byte of
// its kind and length (a length from 15 up follows in four bytes of its own), then its bytes: a
// text's characters a byte each where all are below 256 (a byte is half a UTF-16 unit: ids,
// numbers and timestamps hash in half the rounds), else its UTF-16 units two bytes each; an
// int32's four bytes; another number's or a json value's text after a byte of its kind. null is
// a kind of its own, apart from "null" and from "".
const NULL = 0
const TRUE = 1
const FALSE = 2
const INT32 = 3
const LATIN1 = 4
const UTF16 = 5
const NUMBER = 6
const JSON_VALUE = 7
const LONG = 15
/** From this length a text's bytes are written by Buffer#write (RecordBytes.text). */
const NATIVE_TEXT = 12

/**
 * One record's values, written where they are hashed: the SipHash module's memory, which another
 * app's record may have grown since. A growth empties every view taken before it, so the first
 * `reserve` of each record takes the area again (nothing fits in an empty view).
 */
class RecordBytes {
  bytes: Uint8Array
  buffer: Buffer
  length = 0

  constructor () {
    ({ bytes: this.bytes, buffer: this.buffer } = messageArea(0))
  }

  /** Room for `n` more bytes. */
  reserve (n: number): void {
    if (this.length + n <= this.bytes.length) return
    ({ bytes: this.bytes, buffer: this.buffer } = messageArea(this.length + n))
  }

  head (kind: number, n: number): void {
    const bytes = this.bytes
    if (n < LONG) {
      bytes[this.length++] = (n << 4) | kind
      return
    }
    bytes[this.length] = (LONG << 4) | kind
    bytes[this.length + 1] = n
    bytes[this.length + 2] = n >>> 8
    bytes[this.length + 3] = n >>> 16
    bytes[this.length + 4] = n >>> 24
    this.length += 5
  }

  text (text: string): void {
    const n = text.length
    this.reserve(3 * n + 5)
    const start = this.length
    this.head(LATIN1, n)
    // A longer text written natively as UTF-8: where that takes a byte a character, every one is
    // ASCII, and those are its Latin-1 bytes too. Below 12 characters the loop is as fast.
    if (n >= NATIVE_TEXT && this.buffer.write(text, this.length, 'utf8') === n) {
      this.length += n
      return
    }
    const bytes = this.bytes
    let at = this.length
    for (let i = 0; i < n; i++) {
      const c = text.charCodeAt(i)
      if (c > 255) return this.wide(start, text)
      bytes[at++] = c
    }
    this.length = at
  }

  /** `text` again from `start`, as UTF-16: it holds a character a byte cannot. */
  wide (start: number, text: string): void {
    this.length = start
    this.head(UTF16, text.length)
    const bytes = this.bytes
    let at = this.length
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i)
      bytes[at++] = c
      bytes[at++] = c >>> 8
    }
    this.length = at
  }

  kind (kind: number): void {
    this.reserve(1)
    this.bytes[this.length++] = kind
  }

  value (value: unknown): void {
    if (typeof value === 'string') {
      this.text(value)
    } else if (typeof value === 'number') {
      if ((value | 0) !== value) {
        this.kind(NUMBER)
        return this.text(String(value))
      }
      this.reserve(5)
      const bytes = this.bytes
      bytes[this.length] = INT32
      bytes[this.length + 1] = value
      bytes[this.length + 2] = value >>> 8
      bytes[this.length + 3] = value >>> 16
      bytes[this.length + 4] = value >>> 24
      this.length += 5
    } else if (typeof value === 'boolean') {
      this.kind(value ? TRUE : FALSE)
    } else if (value === null || value === undefined) {
      this.kind(NULL)
    } else {
      this.kind(JSON_VALUE)
      this.text(JSON.stringify(value))
    }
  }
}

/** Writes a row's values of some fields, in their order, into a record's bytes. */
type ValuesWriter = (row: Row, record: RecordBytes) => void

/** The writer of `names`: a loop for its first asks, then code that reads each by its name (./shape-function.ts). */
function valuesWriter (names: readonly string[]): ShapeFunction<ValuesWriter> {
  const loop: ValuesWriter = (row, record) => {
    for (let i = 0; i < names.length; i++) record.value(row[names[i]!])
  }
  return new ShapeFunction(loop, () => compiledFunction('writeValues', ['row', 'record'], names.map((name) => `record.value(row[${JSON.stringify(name)}])`).join('\n')))
}

// 120 of the hash's 128 bits, as 20 characters of base64url between quotes, made in one call (a
// flat string: twice as fast to make, and to write into a page, as one joined from pieces).
const BASE64URL = Array.from('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_', (c) => c.charCodeAt(0))
const QUOTE = 34

function quoted120 (h: Int32Array): string {
  const a = h[0]!
  const b = h[1]!
  const c = h[2]!
  const d = h[3]!
  const x = BASE64URL
  return String.fromCharCode(QUOTE, x[a >>> 26]!, x[(a >>> 20) & 63]!, x[(a >>> 14) & 63]!, x[(a >>> 8) & 63]!, x[(a >>> 2) & 63]!,
    x[((a & 3) << 4) | (b >>> 28)]!, x[(b >>> 22) & 63]!, x[(b >>> 16) & 63]!, x[(b >>> 10) & 63]!, x[(b >>> 4) & 63]!,
    x[((b & 15) << 2) | (c >>> 30)]!, x[(c >>> 24) & 63]!, x[(c >>> 18) & 63]!, x[(c >>> 12) & 63]!, x[(c >>> 6) & 63]!, x[c & 63]!,
    x[(d >>> 18) & 63]!, x[(d >>> 12) & 63]!, x[(d >>> 6) & 63]!, x[d & 63]!, QUOTE)
}

/** What If-Match stands for in a guarded update: the version texts of the addressed record. */
const INTEGER_VERSION = /^-?[0-9]{1,19}$/
const TIMESTAMP_VERSION = /^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6}Z$/

export interface Etags {
  /** The ETag of each row of a model as a caller with these readable fields sees it; asked once a page. */
  of (model: ResourceModel, readable: readonly FieldModel[]): (row: Row) => string
  /**
   * The version an ETag of the record with these key parts stands for, when the ETag is one a
   * caller who reads the version was given; undefined for any other text.
   */
  versionOf (model: ResourceModel, key: readonly string[], etag: string): string | undefined
}

export function etags (secret: KeyObject): Etags {
  loadSipHash()
  // Each resource's hash state after its name, and its keyed hash, worked out once per model.
  const starts = new Map<string, Lanes>()
  const lanesOf = (model: ResourceModel): Lanes => {
    let lanes = starts.get(model.name)
    if (lanes === undefined) {
      lanes = resourceLanes(model.name)
      starts.set(model.name, lanes)
    }
    return lanes
  }
  const keyed = new Map<string, SipHashInPlace>()
  const keyedOf = (model: ResourceModel): SipHashInPlace => {
    let hash = keyed.get(model.name)
    if (hash === undefined) {
      // The leading NUL sets these inputs apart from the version HMAC's, which start with a name.
      hash = sipHash128InPlace(createHmac('sha256', secret).update('\0etag\0' + model.name).digest().subarray(0, 16))
      keyed.set(model.name, hash)
    }
    return hash
  }
  // The writer of each readable set's values, by the set: the access resolver hands out one array
  // for each set of a model's fields (lib/access/resolve.ts, `shared.fields`), so it is found again
  // with nothing worked out per page.
  const writers = new WeakMap<readonly FieldModel[], ShapeFunction<ValuesWriter>>()
  const writerOf = (model: ResourceModel, readable: readonly FieldModel[]): ShapeFunction<ValuesWriter> => {
    let writer = writers.get(readable)
    if (writer === undefined) {
      // A key part the caller reads is among the fields already, and tells the records apart there.
      writer = valuesWriter([...readable, ...model.key.filter((f) => !readable.includes(f))].map((f) => f.name))
      writers.set(readable, writer)
    }
    return writer
  }
  // One record's values at a time: each ETag is made and its units done with before the next.
  const record = new RecordBytes()
  const out = new Int32Array(4)
  return {
    of (model, readable) {
      const version = model.versionField
      if (version !== undefined) {
        const name = version.name
        const keyNames = model.key.map((f) => f.name)
        if (readable.includes(version)) {
          const start = lanesOf(model)
          // A single key (the usual case) is hashed from the row's value as it is.
          const single = keyNames.length === 1 ? keyNames[0]! : undefined
          return (row) => {
            const text = String(row[name])
            const key = single !== undefined ? String(row[single]) : keyNames.map((k) => String(row[k])).join('\0')
            return '"' + text + '.' + recordHash(start, key, text) + '"'
          }
        }
        return (row) => '"' + createHmac('sha256', secret).update(model.name + '\0' + keyNames.map((k) => String(row[k])).join('\0') + '\0' + String(row[name])).digest('base64url').slice(0, 22) + '"'
      }
      const hash = keyedOf(model)
      const write = writerOf(model, readable).get()
      return (row) => {
        record.length = 0
        write(row, record)
        hash(record.length, out)
        return quoted120(out)
      }
    },
    versionOf (model, key, etag) {
      const version = model.version
      if (version === undefined || etag.length < 4) return undefined
      const dot = etag.lastIndexOf('.')
      if (dot < 1) return undefined
      const text = etag.slice(1, dot)
      const grammar = version.kind === 'integer' ? INTEGER_VERSION : TIMESTAMP_VERSION
      if (!grammar.test(text)) return undefined
      return etag === '"' + text + '.' + recordHash(lanesOf(model), key.join('\0'), text) + '"' ? text : undefined
    },
  }
}
