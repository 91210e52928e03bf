// The sign-in limiter's store for @fastify/rate-limit, in PostgreSQL: every process behind a load
// balancer counts into the same row per client, so a client gets `signInPerMinute` attempts in
// all, not that many per process. One upsert per attempt (beside a 20 ms password hash).
import { sql } from '../sql/sql.js'
import { query, rows, type Queryable } from '../db/query.js'
import type { AuthTables } from './store/migrate.js'

export interface Count {
  readonly current: number
  /** Milliseconds until the window ends. */
  readonly ttl: number
}

type Done = (err: Error | null, result?: Count) => void

/** The store contract @fastify/rate-limit calls (its LocalStore and RedisStore have the same). */
export interface LimiterStore {
  incr (key: string, done: Done, timeWindow: number, max: number): void
  child (routeOptions: unknown): LimiterStore
}

const SWEEP_EVERY_MS = 60_000

export interface AttemptCounter {
  /** Counts one attempt under `key` in a window of `timeWindow` ms that starts with its first attempt. */
  count (key: string, timeWindow: number): Promise<Count>
}

/** The counters in PostgreSQL, which the sign-in limiter and the account routes' limits share. */
export function attemptCounter (db: Queryable, tables: Pick<AuthTables, 'rateLimit'>): AttemptCounter {
  const table = tables.rateLimit
  let nextSweep = 0

  // Windows that ended are done with: at most one sweep a minute per process clears them.
  async function sweep (): Promise<void> {
    if (Date.now() < nextSweep) return
    nextSweep = Date.now() + SWEEP_EVERY_MS
    await query(db, sql`DELETE FROM ${table} WHERE window_ends < now()`)
  }

  return {
    count: async (key, timeWindow) => {
      const window = sql`now() + ${timeWindow}::integer * interval '1 millisecond'`
      const [counted] = await rows<{ hits: number, ttl: number }>(db, sql`INSERT INTO ${table} AS counter (key, hits, window_ends) VALUES (${key}, 1, ${window})
        ON CONFLICT (key) DO UPDATE SET
          hits = CASE WHEN counter.window_ends <= now() THEN 1 ELSE counter.hits + 1 END,
          window_ends = CASE WHEN counter.window_ends <= now() THEN ${window} ELSE counter.window_ends END
        RETURNING hits, ceil(extract(epoch FROM window_ends - now()) * 1000)::int AS ttl`)
      await sweep()
      return { current: counted!.hits, ttl: counted!.ttl }
    },
  }
}

export function sharedLimiterStore (db: Queryable, tables: Pick<AuthTables, 'rateLimit'>): new () => LimiterStore {
  const counter = attemptCounter(db, tables)
  return class SharedLimiterStore implements LimiterStore {
    incr (key: string, done: Done, timeWindow: number): void {
      counter.count(key, timeWindow).then((result) => { done(null, result) }, (err: unknown) => { done(err instanceof Error ? err : new Error(String(err))) })
    }

    child (): LimiterStore {
      return this
    }
  }
}
