// Server-Timing (config `serverTiming`): where one request's time went, by stage, for the
// browser's devtools. The request's times travel on its context (`ctx.timing`), which stages
// already hold: no AsyncLocalStorage, whose promise hooks cost every request on Node 20 (a list
// page paid 14 % more CPU with it). Off (the default), a stage pays one undefined check.
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

/** `work` timed as `stage` when the request is timed; just run otherwise. */
export function measured<T> (times: StageTimes | undefined, stage: Stage, work: () => T): T {
  if (times === undefined) return work()
  const started = performance.now()
  try {
    return work()
  } finally {
    times.add(stage, performance.now() - started)
  }
}

export async function measuredAsync<T> (times: StageTimes | undefined, stage: Stage, work: () => Promise<T>): Promise<T> {
  if (times === undefined) return await work()
  const started = performance.now()
  try {
    return await work()
  } finally {
    times.add(stage, performance.now() - started)
  }
}

/**
 * Times consecutive stages of one function without a closure or an await per stage: each
 * `lap(stage)` adds the time since the previous lap (or since `start`) to that stage.
 */
export class Laps {
  #last = performance.now()

  constructor (private readonly times: StageTimes) {}

  lap (stage: Stage): void {
    const now = performance.now()
    this.times.add(stage, now - this.#last)
    this.#last = now
  }
}

/** Laps of a timed request; undefined (and so free) otherwise. */
export function startLaps (times: StageTimes | undefined): Laps | undefined {
  return times === undefined ? undefined : new Laps(times)
}
