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

export class BoundedCache<V> implements CacheStats {
  readonly #entries = new Map<string, V>()
  hits = 0
  misses = 0
  constructor (private readonly max: number) {}

  get size (): number {
    return this.#entries.size
  }

  get (key: string): V | undefined {
    const found = this.#entries.get(key)
    if (found === undefined) this.misses++
    else this.hits++
    return found
  }

  set (key: string, value: V): void {
    if (key.length > MAX_KEY_LENGTH) return
    this.#entries.delete(key)
    this.#entries.set(key, value)
    if (this.#entries.size > this.max) this.#entries.delete(this.#entries.keys().next().value!)
  }

  delete (key: string): void {
    this.#entries.delete(key)
  }

  getOrCreate (key: string, create: () => V): V {
    const found = this.#entries.get(key)
    if (found !== undefined) {
      this.hits++
      // Re-inserting keeps the Map's iteration order least-recently-used first.
      this.#entries.delete(key)
      this.#entries.set(key, found)
      return found
    }
    this.misses++
    const value = create()
    if (key.length > MAX_KEY_LENGTH) return value
    this.#entries.set(key, value)
    if (this.#entries.size > this.max) this.#entries.delete(this.#entries.keys().next().value!)
    return value
  }
}
