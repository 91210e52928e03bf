// A bounded map of recently used entries: filter and order_by texts are parsed and checked once
// per distinct text and caller model, not once per request. Bounded in entries and in key length:
// keys come from requests (a :search filter may be 200,000 characters), and a cache of such keys
// would hold gigabytes; a longer key is computed each time and never kept. Where most keys are
// used once, a cache keeps a key only when it is used again (CacheOptions.admitOnReuse).

import { fnv1a } from './hash.js'

export const MAX_KEY_LENGTH = 4096

const DOORKEEPER_BITS = 1 << 16
/** New keys a doorkeeper marks before it forgets them all: by then up to 1 unseen key in 20 passes for seen. */
const DOORKEEPER_KEYS = 8192

/** How a cache has been used: what metrics report of it. */
export interface CacheStats {
  readonly hits: number
  readonly misses: number
  readonly size: number
}

export interface CacheOptions {
  /**
   * Keep a key only from its second miss, while the doorkeeper remembers the first. For caches whose
   * keys come from requests and are mostly used once (a filter or a page token new on every
   * request, `id > N`): each such entry would be kept only to be dropped, and under load that cost
   * more CPU than it saved (Node 24: 16-21 µs a page for the page tokens alone).
   */
  readonly admitOnReuse?: boolean
}

/**
 * Which keys were seen among the last DOORKEEPER_KEYS new ones, as two bits each of a bitmap (as
 * TinyLFU's doorkeeper): no key is kept, and an unseen key sometimes passes for seen, which only
 * keeps an entry that will not be used again.
 */
class Doorkeeper {
  readonly #bits = new Int32Array(DOORKEEPER_BITS / 32)
  #marked = 0

  /** Whether `key` was seen; it is marked seen either way. */
  seen (key: string): boolean {
    // The hash's two halves pick the two bits.
    const hash = fnv1a(key)
    const low = hash & 0xffff
    const high = hash >>> 16
    const bits = this.#bits
    if ((bits[low >>> 5]! & (1 << (low & 31))) !== 0 && (bits[high >>> 5]! & (1 << (high & 31))) !== 0) return true
    if (++this.#marked > DOORKEEPER_KEYS) {
      bits.fill(0)
      this.#marked = 1
    }
    bits[low >>> 5]! |= 1 << (low & 31)
    bits[high >>> 5]! |= 1 << (high & 31)
    return false
  }
}

/**
 * Two generations of up to `max` entries each: new entries, and hits found in the older
 * generation, go into the recent one; when it is full it becomes the older one and the previous
 * older one is dropped whole. The `max` most recently used keys are always held (10,000 callers in
 * turn all hit), and at most twice as many. A hit in the recent generation writes nothing:
 * re-inserting a hot key on every hit (a Map's delete then set) cost 21 µs at 10,000 entries,
 * because V8 keeps the deleted copies in the key's hash chain until the table is rebuilt.
 */
export class BoundedCache<V> implements CacheStats {
  #recent = new Map<string, V>()
  #older = new Map<string, V>()
  readonly #max: number
  readonly #doorkeeper: Doorkeeper | undefined
  hits = 0
  misses = 0
  constructor (max: number, options: CacheOptions = {}) {
    this.#max = Math.max(1, max)
    this.#doorkeeper = options.admitOnReuse === true ? new Doorkeeper() : undefined
  }

  get size (): number {
    return this.#recent.size + this.#older.size
  }

  get (key: string): V | undefined {
    const found = this.#find(key)
    if (found === undefined) this.misses++
    else this.hits++
    return found
  }

  set (key: string, value: V): void {
    if (key.length > MAX_KEY_LENGTH) return
    if (this.#recent.has(key)) {
      this.#recent.set(key, value)
      return
    }
    this.#older.delete(key)
    this.#add(key, value)
  }

  delete (key: string): void {
    this.#recent.delete(key)
    this.#older.delete(key)
  }

  getOrCreate (key: string, create: () => V): V {
    const found = this.#find(key)
    if (found !== undefined) {
      this.hits++
      return found
    }
    this.misses++
    const value = create()
    if (key.length <= MAX_KEY_LENGTH && (this.#doorkeeper === undefined || this.#doorkeeper.seen(key))) this.#add(key, value)
    return value
  }

  #find (key: string): V | undefined {
    const recent = this.#recent.get(key)
    if (recent !== undefined) return recent
    const older = this.#older.get(key)
    if (older !== undefined) {
      this.#older.delete(key)
      this.#add(key, older)
    }
    return older
  }

  #add (key: string, value: V): void {
    if (this.#recent.size >= this.#max) {
      this.#older = this.#recent
      this.#recent = new Map()
    }
    this.#recent.set(key, value)
  }
}
