// A bounded map of recently used entries: filter and order_by texts are parsed and checked once
// per distinct text and caller model, not once per request. Bounded in entries and in key length:
// keys come from requests (a :search filter may be 200,000 characters), and a cache of such keys
// would hold gigabytes; a longer key is computed each time and never kept.

export const MAX_KEY_LENGTH = 4096

/** How a cache has been used: what metrics report of it. */
export interface CacheStats {
  readonly hits: number
  readonly misses: number
  readonly size: number
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
  hits = 0
  misses = 0
  constructor (max: number) {
    this.#max = Math.max(1, max)
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
    if (key.length <= MAX_KEY_LENGTH) this.#add(key, value)
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
