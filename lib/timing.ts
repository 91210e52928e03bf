// Server-Timing (config `serverTiming`): where one request's time went, by stage, for the
// browser's devtools. The request being served is found through an AsyncLocalStorage of the
// app's own, so nothing is passed down the stages and two apps never see each other's requests.
// Off (the default), there is no recorder and every stage pays one undefined check.
import { AsyncLocalStorage } from 'node:async_hooks'
import { performance } from 'node:perf_hooks'

export type Stage = 'auth' | 'access' | 'plan' | 'db' | 'serialize'

const STAGES: readonly Stage[] = ['auth', 'access', 'plan', 'db', 'serialize']

/** One request's milliseconds by stage. */
export class StageTimes {
  readonly #ms: Record<Stage, number> = { auth: 0, access: 0, plan: 0, db: 0, serialize: 0 }

  add (stage: Stage, ms: number): void {
    this.#ms[stage] += ms
  }

  /** `auth;dur=0.210, access;dur=0.015, …`: every stage, 0 where it took no time. */
  header (): string {
    return STAGES.map((stage) => `${stage};dur=${this.#ms[stage].toFixed(3)}`).join(', ')
  }
}

export class RequestTimings {
  readonly #current = new AsyncLocalStorage<StageTimes>()

  /** Runs a request's remaining work with its own times. */
  run (times: StageTimes, work: () => void): void {
    this.#current.run(times, work)
  }

  current (): StageTimes | undefined {
    return this.#current.getStore()
  }

  measure<T> (stage: Stage, work: () => T): T {
    const times = this.#current.getStore()
    if (times === undefined) return work()
    const started = performance.now()
    try {
      return work()
    } finally {
      times.add(stage, performance.now() - started)
    }
  }

  async measureAsync<T> (stage: Stage, work: () => Promise<T>): Promise<T> {
    const times = this.#current.getStore()
    if (times === undefined) return await work()
    const started = performance.now()
    try {
      return await work()
    } finally {
      times.add(stage, performance.now() - started)
    }
  }
}

/** `work` timed as `stage` when Server-Timing is on; just run otherwise. */
export function measured<T> (timings: RequestTimings | undefined, stage: Stage, work: () => T): T {
  return timings === undefined ? work() : timings.measure(stage, work)
}
