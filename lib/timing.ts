// Server-Timing (config `serverTiming`): where one request's time went, by stage, for the
// browser's devtools. The request's times travel on its context (`ctx.timing`), which stages
// already hold: no AsyncLocalStorage, whose promise hooks cost every request on Node 20 (a list
// page paid 14 % more CPU with it). Off (the default), a stage pays one undefined check: no
// closure, no extra await.
import { performance } from 'node:perf_hooks'

export type Stage = 'auth' | 'access' | 'plan' | 'db' | 'serialize'

/**
 * One request's milliseconds by stage. Stages that follow one another in one function are timed
 * as laps: `mark()` at the start, then `lap(stage)` adds the time since the last mark or lap,
 * with no closure or await per stage.
 */
export class StageTimes {
  auth = 0
  access = 0
  plan = 0
  db = 0
  serialize = 0
  #last = 0

  mark (): void {
    this.#last = performance.now()
  }

  lap (stage: Stage): void {
    const now = performance.now()
    this[stage] += now - this.#last
    this.#last = now
  }

  /** `work`'s own time, added to `stage` apart from the laps (access resolves inside other stages). */
  timed<T> (stage: Stage, work: () => T): T {
    const started = performance.now()
    try {
      return work()
    } finally {
      this[stage] += performance.now() - started
    }
  }

  /** `auth;dur=0.210, access;dur=0.015, …`: every stage, 0 where it took no time. */
  header (): string {
    return `auth;dur=${this.auth.toFixed(3)}, access;dur=${this.access.toFixed(3)}, plan;dur=${this.plan.toFixed(3)}, db;dur=${this.db.toFixed(3)}, serialize;dur=${this.serialize.toFixed(3)}`
  }
}
