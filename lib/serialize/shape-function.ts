// A function for one shape of record (its field names, in order), made two ways: a loop over the
// names for the shape's first LOOP_USES asks, then code compiled for the shape, with the names as
// constants. Compiled code reads and writes properties by constant names, which V8 answers from
// the object's hidden class; a loop's names vary, so each access takes V8's generic path: 50
// records of six fields built by a loop took 5.7-6.0 µs against 0.6-1.0 compiled, and seven
// fields read from 50 rows 3.1-4.3 against 0.5-0.8. Compiling, and the first runs of what was
// compiled, cost a new shape's first page more than the loop (docs/decisions.md, "No warm-up
// tax"), so a shape is compiled once it has come back. Names enter compiled code only as JSON
// literals.

/** Asks of a shape answered by its loop before its code is compiled. */
const LOOP_USES = 2

export class ShapeFunction<F> {
  #uses = 0
  #compiled: F | undefined

  constructor (private readonly loop: F, private readonly compile: () => F) {}

  /** The shape's function for this ask: its loop for the first asks, then its compiled code. */
  get (): F {
    if (this.#compiled !== undefined) return this.#compiled
    if (++this.#uses <= LOOP_USES) return this.loop
    this.#compiled = this.compile()
    return this.#compiled
  }
}

/** A function compiled from `body` with `params`, named `name` (as profiles show it). */
export function compiledFunction<F> (name: string, params: readonly string[], body: string): F {
  return new Function(`return function ${name} (${params.join(', ')}) {\n${body}\n}`)() as F
}
