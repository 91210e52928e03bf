// How many exports stream at once: in all (a share of the read pool, so lists go on) and per
// caller (so one reader cannot hold every slot and make the others wait). Past either, 429 before
// a connection is taken.
import { problem } from '../../lib/problems.js'

const RETRY = { 'retry-after': '5' }

export class ExportSlots {
  #running = 0
  readonly #byCaller = new Map<string, number>()

  constructor (private readonly max: number, private readonly perCaller: number) {}

  /** A slot for the caller (their key: user id and tenant), or the 429; the function returned gives it back (call it once). */
  take (caller: string): () => void {
    const own = this.#byCaller.get(caller) ?? 0
    if (own >= this.perCaller) {
      throw problem('too-many-requests', `You have ${own} export${own === 1 ? '' : 's'} running, the most one caller runs at once: try again when ${own === 1 ? 'it has' : 'one has'} finished.`, {}, RETRY)
    }
    if (this.#running >= this.max) {
      throw problem('too-many-requests', `${this.#running} exports are running, the most this server runs at once: try again when one has finished.`, {}, RETRY)
    }
    this.#running++
    this.#byCaller.set(caller, own + 1)
    return () => {
      this.#running--
      const left = (this.#byCaller.get(caller) ?? 1) - 1
      if (left === 0) this.#byCaller.delete(caller)
      else this.#byCaller.set(caller, left)
    }
  }
}
