// A bounded map of recently used entries: filter and order_by texts are parsed and checked once
// per distinct text and caller model, not once per request.

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
    this.#entries.set(key, value)
    if (this.#entries.size > this.max) this.#entries.delete(this.#entries.keys().next().value!)
    return value
  }
}
