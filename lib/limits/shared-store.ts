// A store for @fastify/rate-limit in PostgreSQL: every process behind a load balancer (and behind
// a transaction pooler) counts into the same row per key, so a client gets its budget in all, not
// that many per process. One upsert, one statement (no session state), per counted request. The
// sign-in limiter counts in the login store's table; request limits (plugins/rate-limits) in one
// of the application database.
import { sql, type Sql } from '../sql/sql.js'
import { query, rows, type Queryable } from '../db/query.js'

interface Count {
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

/** Makes the counters' table where missing. */
export async function createCounterTable (db: Queryable, table: Sql): Promise<void> {
  // Unlogged: counters of the current window are not worth a WAL write, nor keeping after a crash.
  await query(db, sql`CREATE UNLOGGED TABLE IF NOT EXISTS ${table} (
    key text PRIMARY KEY,
    hits integer NOT NULL,
    window_ends timestamptz NOT NULL
  )`)
}

export function sharedLimiterStore (db: Queryable, table: Sql): new () => LimiterStore {
  let nextSweep = 0

  // Windows that ended are done with: at most one sweep a minute per process clears them.
  async function sweep (): Promise<void> {
    if (Date.now() < nextSweep) return
    nextSweep = Date.now() + SWEEP_EVERY_MS
    await query(db, sql`DELETE FROM ${table} WHERE window_ends < now()`)
  }

  async function count (key: string, timeWindow: number): Promise<Count> {
    const window = sql`now() + ${timeWindow}::integer * interval '1 millisecond'`
    const [counted] = await rows<{ hits: number, ttl: number }>(db, sql`INSERT INTO ${table} AS counter (key, hits, window_ends) VALUES (${key}, 1, ${window})
      ON CONFLICT (key) DO UPDATE SET
        hits = CASE WHEN counter.window_ends <= now() THEN 1 ELSE counter.hits + 1 END,
        window_ends = CASE WHEN counter.window_ends <= now() THEN ${window} ELSE counter.window_ends END
      RETURNING hits, ceil(extract(epoch FROM window_ends - now()) * 1000)::int AS ttl`)
    await sweep()
    return { current: counted!.hits, ttl: counted!.ttl }
  }

  return class SharedLimiterStore implements LimiterStore {
    incr (key: string, done: Done, timeWindow: number): void {
      count(key, timeWindow).then((result) => { done(null, result) }, (err: unknown) => { done(err instanceof Error ? err : new Error(String(err))) })
    }

    child (): LimiterStore {
      return this
    }
  }
}
