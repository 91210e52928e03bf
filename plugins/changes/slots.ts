// How many change streams (and waiting long-polls) a process holds: per caller, so one caller's
// tabs or scripts cannot take every stream (429), and in all (503: this process is full, another
// may not be). The function `take` returns gives the slot back; calling it again does nothing.
import { problem } from '../../lib/problems.js'

const RETRY = { 'retry-after': '5' }

export class StreamSlots {
  #open = 0
  readonly #byCaller = new Map<string, number>()

  constructor (private readonly max: number, private readonly perCaller: number) {}

  get open (): number {
    return this.#open
  }

  take (caller: string): () => void {
    const own = this.#byCaller.get(caller) ?? 0
    if (own >= this.perCaller) {
      throw problem('too-many-requests', `You have ${own} change stream${own === 1 ? '' : 's'} open, the most one caller holds at once (changes.streamsPerCaller): close one, or follow several questions with one filter.`, {}, RETRY)
    }
    if (this.#open >= this.max) {
      throw problem('service-unavailable', `This server holds ${this.#open} change streams, the most it holds at once: try again shortly.`, {}, RETRY)
    }
    this.#open++
    this.#byCaller.set(caller, own + 1)
    let given = false
    return () => {
      if (given) return
      given = true
      this.#open--
      const left = (this.#byCaller.get(caller) ?? 1) - 1
      if (left === 0) this.#byCaller.delete(caller)
      else this.#byCaller.set(caller, left)
    }
  }
}
