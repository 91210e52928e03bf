// Field selections, interned per app: the fields a response carries (all readable ones, or a
// `fields` mask) and the fields a query fetches. The same fields give the same Selection, so what
// is derived from one (its SQL column list, its JSON writer) is made once and kept on it. A
// caller's selections are the same arrays request after request and are found by identity; a new
// array with the same fields (a mask is parsed per request) is found by its fields' names, in a
// bounded cache, since masks come from requests.
import { BoundedCache } from '../cache.js'
import type { FieldModel, ResourceModel } from './types.js'

export class Selection {
  readonly #derived = new Map<symbol, unknown>()

  constructor (readonly model: ResourceModel, readonly fields: readonly FieldModel[]) {}

  /** A value that depends on this selection alone, made on first use and kept. */
  derive<V> (slot: symbol, make: (selection: Selection) => V): V {
    let value = this.#derived.get(slot) as V | undefined
    if (value === undefined) {
      value = make(this)
      this.#derived.set(slot, value)
    }
    return value
  }
}

interface Fetches { stored?: Selection, shown?: Selection }

export class Selections {
  readonly #byArray = new WeakMap<readonly FieldModel[], Selection>()
  readonly #byNames: BoundedCache<Selection>
  // What a query fetches for a response selection, per caller's readable fields.
  readonly #fetches = new WeakMap<Selection, WeakMap<readonly FieldModel[], Fetches>>()

  constructor (max = 1000) {
    this.#byNames = new BoundedCache(max)
  }

  of (model: ResourceModel, fields: readonly FieldModel[]): Selection {
    let selection = this.#byArray.get(fields)
    if (selection === undefined) {
      selection = this.#byNames.getOrCreate(`${model.name}\0${fields.map((f) => f.name).join(',')}`, () => new Selection(model, fields))
      this.#byArray.set(fields, selection)
    }
    return selection
  }

  /**
   * The fields a query fetches to answer with `select`: the selected ones and what the ETag needs
   * (key and version, or every readable field). `stored` fetches every field of the model, for a
   * record check or a write hook, though only the caller's selection ever leaves the server.
   */
  fetch (select: Selection, readable: readonly FieldModel[], stored: boolean): Selection {
    let byReadable = this.#fetches.get(select)
    if (byReadable === undefined) {
      byReadable = new WeakMap()
      this.#fetches.set(select, byReadable)
    }
    let fetches = byReadable.get(readable)
    if (fetches === undefined) {
      fetches = {}
      byReadable.set(readable, fetches)
    }
    const { model } = select
    if (stored) return (fetches.stored ??= this.of(model, model.fieldList))
    if (fetches.shown === undefined) {
      const version = model.versionField
      const needed = new Set<FieldModel>([...select.fields, ...model.key, ...(version !== undefined ? [version] : readable)])
      fetches.shown = this.of(model, model.fieldList.filter((f) => needed.has(f)))
    }
    return fetches.shown
  }
}
