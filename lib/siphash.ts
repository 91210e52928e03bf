// SipHash-2-4 with its 128-bit output (Aumasson and Bernstein; the reference is
// github.com/veorq/SipHash): a keyed pseudorandom function, fast on short inputs, for hashes whose
// collisions someone could otherwise craft (the ETags of records without a version column,
// lib/serialize/etag.ts). It runs as WebAssembly, whose 64-bit integers are the machine's: in
// JavaScript each 64-bit word was two 32-bit halves and a round cost five times as much
// (docs/decisions.md, "To-many embeds at the floor's cost"). The module is assembled here from
// its instructions, so there is no binary to trust and no tool to build it with. A leaf.

/** Hashes `bytes[0, length)` into `out`: four 32-bit words, the first 64-bit half's low word first. */
export type SipHash128 = (bytes: Uint8Array, length: number, out: Int32Array) => void

// The memory the module reads: the output's 16 bytes, the key's 16, then the message.
const KEY_AT = 16
const MESSAGE_AT = 32
const PAGE = 65_536

/** Unsigned LEB128, as the binary format writes sizes, counts and indexes. */
function uleb (n: number): number[] {
  const out: number[] = []
  do {
    const byte = n & 0x7f
    n >>>= 7
    out.push(n === 0 ? byte : byte | 0x80)
  } while (n !== 0)
  return out
}

/** Signed LEB128 of a 64-bit constant, as `i64.const` takes it. */
function sleb64 (value: bigint): number[] {
  let n = BigInt.asIntN(64, value)
  const out: number[] = []
  for (;;) {
    const byte = Number(n & 0x7fn)
    n >>= 7n
    const done = (n === 0n && (byte & 0x40) === 0) || (n === -1n && (byte & 0x40) !== 0)
    out.push(done ? byte : byte | 0x80)
    if (done) return out
  }
}

const vector = (items: number[][]): number[] => [...uleb(items.length), ...items.flat()]
const section = (id: number, body: number[]): number[] => [id, ...uleb(body.length), ...body]
const name = (text: string): number[] => [...uleb(text.length), ...Buffer.from(text, 'latin1')]

// The instructions used, by their opcodes.
const get = (local: number): number[] => [0x20, local]
const set = (local: number): number[] => [0x21, local]
const i32 = (n: number): number[] => [0x41, ...sleb64(BigInt(n))]
const i64 = (n: bigint): number[] => [0x42, ...sleb64(n)]
const I64_LOAD = [0x29, 3, 0]
const I64_LOAD8_U = [0x31, 0, 0]
const I64_STORE = [0x37, 3, 0]
const [I32_LE_U, I32_GE_U, I32_ADD, I32_SUB, I32_AND, I32_SHL] = [0x4d, 0x4f, 0x6a, 0x6b, 0x71, 0x74]
const [I64_ADD, I64_OR, I64_XOR, I64_SHL, I64_ROTL, I64_EXTEND_I32_U] = [0x7c, 0x84, 0x85, 0x86, 0x89, 0xad]
const [BLOCK, LOOP, BR, BR_IF, END, EMPTY] = [0x02, 0x03, 0x0c, 0x0d, 0x0b, 0x40]

// Locals: the parameters (message address, length), the state, the block, the blocks' end, a cursor.
const [AT, LENGTH, V0, V1, V2, V3, M, END_AT, I] = [0, 1, 2, 3, 4, 5, 6, 7, 8]

/** `v = v op (w)`, and the SipRound's `v = rotl(v, bits) ^ w`. */
const apply = (v: number, op: number, w: number[]): number[] => [...get(v), ...w, op, ...set(v)]
const rotateXor = (v: number, bits: number, w: number): number[] => [...get(v), ...i64(BigInt(bits)), I64_ROTL, ...get(w), I64_XOR, ...set(v)]
const rotate = (v: number, bits: number): number[] => [...get(v), ...i64(BigInt(bits)), I64_ROTL, ...set(v)]

const SIP_ROUND = [
  ...apply(V0, I64_ADD, get(V1)), ...rotateXor(V1, 13, V0), ...rotate(V0, 32),
  ...apply(V2, I64_ADD, get(V3)), ...rotateXor(V3, 16, V2),
  ...apply(V0, I64_ADD, get(V3)), ...rotateXor(V3, 21, V0),
  ...apply(V2, I64_ADD, get(V1)), ...rotateXor(V1, 17, V2), ...rotate(V2, 32),
]
const rounds = (n: number): number[] => Array.from({ length: n }, () => SIP_ROUND).flat()
/** A block `m` into the state: `v3 ^= m`, two rounds, `v0 ^= m`. */
const COMPRESS = [...apply(V3, I64_XOR, get(M)), ...rounds(2), ...apply(V0, I64_XOR, get(M))]
/** `v0 ^ v1 ^ v2 ^ v3` stored at `at`, after four rounds. */
const finish = (at: number): number[] => [...rounds(4), ...i32(at), ...get(V0), ...get(V1), I64_XOR, ...get(V2), I64_XOR, ...get(V3), I64_XOR, ...I64_STORE]
const key = (word: number): number[] => [...i32(KEY_AT + 8 * word), ...I64_LOAD]

/** `hash(at, length)`: SipHash-2-4-128 of memory[at, at + length) under the key at 16, into memory[0, 16). */
const HASH = [
  ...key(0), ...i64(0x736f6d6570736575n), I64_XOR, ...set(V0),
  ...key(1), ...i64(0x646f72616e646f6dn ^ 0xeen), I64_XOR, ...set(V1),
  ...key(0), ...i64(0x6c7967656e657261n), I64_XOR, ...set(V2),
  ...key(1), ...i64(0x7465646279746573n), I64_XOR, ...set(V3),
  ...get(AT), ...get(LENGTH), ...i32(-8), I32_AND, I32_ADD, ...set(END_AT),
  ...get(AT), ...set(I),
  // Each full block of 8 bytes.
  BLOCK, EMPTY, LOOP, EMPTY,
  ...get(I), ...get(END_AT), I32_GE_U, BR_IF, 1,
  ...get(I), ...I64_LOAD, ...set(M), ...COMPRESS,
  ...get(I), ...i32(8), I32_ADD, ...set(I),
  BR, 0, END, END,
  // The last block: the length mod 256 in its top byte, the bytes left over below it.
  ...get(LENGTH), I64_EXTEND_I32_U, ...i64(56n), I64_SHL, ...set(M),
  ...get(AT), ...get(LENGTH), I32_ADD, ...set(I),
  BLOCK, EMPTY, LOOP, EMPTY,
  ...get(I), ...get(END_AT), I32_LE_U, BR_IF, 1,
  ...get(I), ...i32(1), I32_SUB, ...set(I),
  ...get(M), ...get(I), ...I64_LOAD8_U, ...get(I), ...get(END_AT), I32_SUB, ...i32(3), I32_SHL, I64_EXTEND_I32_U, I64_SHL, I64_OR, ...set(M),
  BR, 0, END, END,
  ...COMPRESS,
  ...apply(V2, I64_XOR, i64(0xeen)), ...finish(0),
  ...apply(V1, I64_XOR, i64(0xddn)), ...finish(8),
  END,
]

const I32_TYPE = 0x7f
const I64_TYPE = 0x7e
const MODULE = new Uint8Array([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
  ...section(1, vector([[0x60, ...vector([[I32_TYPE], [I32_TYPE]]), ...vector([])]])),
  ...section(3, vector([[0]])),
  ...section(5, vector([[0x00, 1]])),
  ...section(7, vector([[...name('memory'), 0x02, 0], [...name('hash'), 0x00, 0]])),
  ...section(10, vector([(() => {
    const body = [...vector([[5, I64_TYPE], [2, I32_TYPE]]), ...HASH]
    return [...uleb(body.length), ...body]
  })()])),
])

// Node runs WebAssembly; TypeScript's ES library does not describe it (the DOM's does): what is used.
declare const WebAssembly: {
  readonly Module: new (bytes: Uint8Array) => object
  readonly Instance: new (module: object) => { readonly exports: object }
}
interface WasmMemory {
  readonly buffer: ArrayBuffer
  grow (pages: number): number
}
interface SipHashModule {
  readonly memory: WasmMemory
  readonly hash: (at: number, length: number) => void
}

/**
 * The process's one instance, made at the first key. A message is written into its memory from
 * MESSAGE_AT (`messageArea`), then hashed there under a key written beside it, and the output read
 * back before the call returns, so nothing stays there between messages.
 */
let instance: { readonly hash: SipHashModule['hash'], readonly memory: WasmMemory, area: MessageArea, words: Int32Array } | undefined

/** The module's memory from MESSAGE_AT to its end, as bytes and as a Buffer over the same bytes. */
export interface MessageArea {
  readonly bytes: Uint8Array
  readonly buffer: Buffer
}

function areaOf (memory: WasmMemory): MessageArea {
  const buffer = Buffer.from(memory.buffer, MESSAGE_AT)
  return { bytes: buffer, buffer }
}

function moduleInstance (): NonNullable<typeof instance> {
  if (instance === undefined) {
    if (typeof WebAssembly === 'undefined') throw new Error('tablegate needs WebAssembly, which this Node runs without (started with --jitless?): its ETags are hashed with it')
    const { memory, hash } = new WebAssembly.Instance(new WebAssembly.Module(MODULE)).exports as unknown as SipHashModule
    instance = { memory, hash, area: areaOf(memory), words: new Int32Array(memory.buffer, 0, 8) }
  }
  return instance
}

/** Makes the process's instance now, so that a Node without WebAssembly stops a start, not a request. */
export function loadSipHash (): void {
  moduleInstance()
}

/**
 * Where a message is written to be hashed in place, at least `size` bytes of it. The memory grows
 * to hold them, keeping what is written, and a growth leaves every view taken before it empty: a
 * writer takes the area again for each message, and again when it needs more room.
 */
export function messageArea (size: number): MessageArea {
  const wasm = moduleInstance()
  if (size > wasm.area.bytes.length) {
    wasm.memory.grow(Math.ceil((size - wasm.area.bytes.length) / PAGE))
    wasm.area = areaOf(wasm.memory)
    wasm.words = new Int32Array(wasm.memory.buffer, 0, 8)
  }
  return wasm.area
}

/** Hashes the first `length` bytes written into the message area into `out`, as SipHash128 does. */
export type SipHashInPlace = (length: number, out: Int32Array) => void

/**
 * SipHash-2-4-128 under a 16-byte key, of a message written into the message area: no copy of it
 * (the ETag of a record without a version column is made so, lib/serialize/etag.ts).
 */
export function sipHash128InPlace (key: Uint8Array): SipHashInPlace {
  if (key.length !== 16) throw new RangeError('a SipHash key is 16 bytes')
  const view = new DataView(key.buffer, key.byteOffset, 16)
  const [k0, k1, k2, k3] = [0, 4, 8, 12].map((at) => view.getInt32(at, true)) as [number, number, number, number]
  const wasm = moduleInstance()
  return (length, out) => {
    const words = wasm.words
    words[4] = k0
    words[5] = k1
    words[6] = k2
    words[7] = k3
    wasm.hash(MESSAGE_AT, length)
    out[0] = words[0]!
    out[1] = words[1]!
    out[2] = words[2]!
    out[3] = words[3]!
  }
}

/** SipHash-2-4-128 under a 16-byte key, of a message anywhere: copied into the message area first. */
export function sipHash128 (key: Uint8Array): SipHash128 {
  const hash = sipHash128InPlace(key)
  return (message, length, out) => {
    messageArea(length).bytes.set(length === message.length ? message : message.subarray(0, length))
    hash(length, out)
  }
}
