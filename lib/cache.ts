// A bounded map of recently used entries: filter and order_by texts are parsed and checked once
// per distinct text and caller model, not once per request. Bounded in entries and in key length:
// keys come from requests (a :search filter may be 200,000 characters), and a cache of such keys
// would hold gigabytes; a longer key is computed each time and never kept.

export const MAX_KEY_LENGTH = 4096

export class BoundedCache<V> {
  readonly #entries = new Map<string, V>()
  constructor (private readonly max: number) {}

  get size (): number {
    return this.#entries.size
  }

  get (key: string): V | undefined {
    return this.#entries.get(key)
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
      // Re-inserting keeps the Map's iteration order least-recently-used first.
      this.#entries.delete(key)
      this.#entries.set(key, found)
      return found
    }
    const value = create()
    if (key.length > MAX_KEY_LENGTH) return value
    this.#entries.set(key, value)
    if (this.#entries.size > this.max) this.#entries.delete(this.#entries.keys().next().value!)
    return value
  }
}
