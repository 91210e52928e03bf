// A store for @fastify/rate-limit in PostgreSQL: every process behind a load balancer (and behind
// a transaction pooler) counts into the same row per key, so a client gets its budget in all, not
// that many per process. Each counted request is one upsert (one statement, no session state)
// (the sign-in limiter), or, with `lease`, a process takes a lease of requests from the row with
// one upsert and answers from it until it is spent: a few requests of the budget, which another
// process may hold unused when the window ends, for an upsert every so many requests (request
// limits, docs/decisions.md "Request limits"). No process grants more than the budget: a lease is
// cut to what the row has left; once the row is spent, the process refuses the key until the
// window ends without asking again.
import { sql, type Sql } from '../sql/sql.js'
import { query, rows, type Queryable } from '../db/query.js'

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

/** The store's class, as @fastify/rate-limit takes it, with the leases' answer that needs no database. */
export interface SharedLimiterStore {
  new (): LimiterStore
  /**
   * Counts a request of the key from this process's lease, without the database and at once: the
   * count, or undefined when a lease has to be taken (or is being taken) first.
   */
  held (key: string, max: number): Count | undefined
  /** The lease being taken for the key, if one is: a request that waits for it is then answered by `held`, mostly. */
  taking (key: string): Promise<void> | undefined
}

const SWEEP_EVERY_MS = 60_000

export interface StoreOptions {
  /** How many requests a process takes from the shared count at once, for a budget of `max`; without it, every request is counted in the row. */
  readonly lease?: (max: number) => number
}

/** Requests this process may answer for a key until its window ends. */
interface Lease {
  /** The key's count in the row before this lease: every process's leases until then. */
  readonly base: number
  readonly granted: number
  used: number
  /** Date.now() when the window ends. */
  readonly endsAt: number
}

/** Makes the counters' table where missing. */
export async function createCounterTable (db: Queryable, table: Sql): Promise<void> {
  // Unlogged: counters of the current window are not worth a WAL write, nor keeping after a crash.
  await query(db, sql`CREATE UNLOGGED TABLE IF NOT EXISTS ${table} (
    key text PRIMARY KEY,
    hits integer NOT NULL,
    window_ends timestamptz NOT NULL
  )`)
}

/** Counts attempts into the counters' rows: the account routes' limits count with it directly. */
export interface AttemptCounter {
  /** Adds `size` (one attempt unless said) to the key's count, in a window of `timeWindow` ms that starts anew once the last one ended; the count after, and its time left. */
  count (key: string, timeWindow: number, size?: number): Promise<Count>
}

export function attemptCounter (db: Queryable, table: Sql): AttemptCounter {
  let nextSweep = 0
  // Windows that ended are done with: at most one sweep a minute per process clears them.
  async function sweep (): Promise<void> {
    const now = Date.now()
    if (now < nextSweep) return
    nextSweep = now + SWEEP_EVERY_MS
    await query(db, sql`DELETE FROM ${table} WHERE window_ends < now()`)
  }
  return {
    count: async (key, timeWindow, size = 1) => {
      const window = sql`now() + ${timeWindow}::integer * interval '1 millisecond'`
      const [counted] = await rows<{ hits: number, ttl: number }>(db, sql`INSERT INTO ${table} AS counter (key, hits, window_ends) VALUES (${key}, ${size}, ${window})
        ON CONFLICT (key) DO UPDATE SET
          hits = CASE WHEN counter.window_ends <= now() THEN ${size} ELSE counter.hits + ${size} END,
          window_ends = CASE WHEN counter.window_ends <= now() THEN ${window} ELSE counter.window_ends END
        RETURNING hits, ceil(extract(epoch FROM window_ends - now()) * 1000)::int AS ttl`)
      await sweep()
      return { current: counted!.hits, ttl: counted!.ttl }
    },
  }
}

export function sharedLimiterStore (db: Queryable, table: Sql, options: StoreOptions = {}): SharedLimiterStore {
  const leaseOf = options.lease
  const leases = new Map<string, Lease>()
  const taking = new Map<string, Promise<void>>()
  const counter = attemptCounter(db, table)
  let nextSweep = 0

  /** Adds `size` to the key's row; leases whose window ended are let go of at most once a minute. */
  async function add (key: string, timeWindow: number, size: number): Promise<Count> {
    const now = Date.now()
    if (now >= nextSweep) {
      nextSweep = now + SWEEP_EVERY_MS
      for (const [held, lease] of leases) if (lease.endsAt <= now) leases.delete(held)
    }
    return await counter.count(key, timeWindow, size)
  }

  async function takeLease (key: string, timeWindow: number, max: number, size: number): Promise<void> {
    // The row adds the whole lease even past the budget: `hits - size` is then exactly what was
    // taken before, so the grant is cut to what was left, whichever process asked first.
    const counted = await add(key, timeWindow, size)
    const base = counted.current - size
    leases.set(key, { base, granted: Math.max(0, Math.min(size, max - base)), used: 0, endsAt: Date.now() + counted.ttl })
  }

  function held (key: string, max: number): Count | undefined {
    if (leaseOf === undefined) return undefined
    const lease = leases.get(key)
    if (lease === undefined) return undefined
    const now = Date.now()
    // One lease at a time per key: requests that come while it is taken wait for it.
    if (lease.endsAt <= now || taking.has(key)) return undefined
    if (lease.used < lease.granted) return { current: lease.base + ++lease.used, ttl: lease.endsAt - now }
    if (lease.base + lease.granted >= max) return { current: max + 1, ttl: lease.endsAt - now }
    return undefined
  }

  async function count (key: string, timeWindow: number, max: number): Promise<Count> {
    if (leaseOf === undefined) return await add(key, timeWindow, 1)
    for (;;) {
      const pending = taking.get(key)
      if (pending !== undefined) {
        await pending
        continue
      }
      const counted = held(key, max)
      if (counted !== undefined) return counted
      const taken = takeLease(key, timeWindow, max, Math.min(max, Math.max(1, leaseOf(max)))).finally(() => { taking.delete(key) })
      taking.set(key, taken)
      await taken
    }
  }

  return class implements LimiterStore {
    static held (key: string, max: number): Count | undefined {
      return held(key, max)
    }

    static taking (key: string): Promise<void> | undefined {
      return taking.get(key)
    }

    incr (key: string, done: Done, timeWindow: number, max: number): void {
      count(key, timeWindow, max).then((result) => { done(null, result) }, (err: unknown) => { done(err instanceof Error ? err : new Error(String(err))) })
    }

    child (): LimiterStore {
      return this
    }
  }
}
