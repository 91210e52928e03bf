// The work an estimate leaves for after the page that needed it (./index.ts): a count, the
// planner's figure. One list's at a time, and MAX_IN_FLIGHT lists' at most: a burst of new lists
// takes no more of the read pool than these, and a list whose work was left undone asks again on
// its next page.
const MAX_IN_FLIGHT = 2

export class EstimateSettling {
  readonly #settling = new Set<string>()

  /**
   * Runs `work` for the list `key` once the page that asked is answered (its answer is written in
   * the same turn of the event loop); does nothing while that list's work runs or MAX_IN_FLIGHT
   * others' do. Work that fails leaves the estimate as it was.
   */
  settle (key: string, work: () => Promise<void>): void {
    if (this.#settling.has(key) || this.#settling.size >= MAX_IN_FLIGHT) return
    this.#settling.add(key)
    setImmediate(() => {
      void work().catch(() => {}).finally(() => { this.#settling.delete(key) })
    })
  }
}
