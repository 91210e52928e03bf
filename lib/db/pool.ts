// pg pools. int8 and numeric stay strings (pg's default), which is also their JSON representation.
// Directly connected, the settings every statement needs travel in the connection's startup
// packet: the statement timeout always, UTC, and read-only for the pool that serves reads. Behind a
// transaction pooler (PgBouncer, pgcat, Supavisor) a session is not ours: the packet carries
// nothing, statements are unnamed, every transaction starts with the statement timeout and a lone
// statement runs in a transaction of its own (transaction.ts), read-only on the read pool, and
// timestamps of any offset are read as UTC (types.ts). Until an app is ready, its pools' statement
// timeout is a start's, not the requests' (armStatementTimeout).
import pg from 'pg'
import { recordTypes } from './types.js'
import { statementTimeoutOf, withStatementNames } from './query.js'
import { setPooledTimeout, timeoutInEveryTransaction } from './transaction.js'

/**
 * How much longer than the statement timeout a statement may run before its backend counts as
 * lost: the timeout again, within these bounds. Below the floor, a backend answering its own
 * cancel a moment late (a busy machine, a pooler in between) was taken as lost: 503, not 504.
 */
const LOST_MARGIN_MS = { min: 250, max: 5_000 }

export type Pool = pg.Pool
export type PoolClient = pg.PoolClient

/** 'transaction': the URL is a transaction pooler, which gives each transaction any server connection. */
export type Pooler = 'none' | 'transaction'

export interface PoolOptions {
  readonly max?: number
  readonly applicationName?: string
  /**
   * The statement timeout of every statement on these connections. A statement still unanswered a
   * little later (the timeout again, at least 250 ms and at most 5 s) means a backend that stopped
   * answering, which cannot enforce its own timeout: its connection is closed, failing the statement.
   */
  readonly statementTimeoutMs?: number
  /**
   * The least statement timeout of the pool's work until `armStatementTimeout`: a start's own
   * statements (catalog reads, keys, the auth store) are no request, and a tight request timeout
   * must not fail a start on a busy machine with a database's refusal.
   */
  readonly startupTimeoutMs?: number
  /** How long a caller waits for a connection: a new one, or a free one of a busy pool. */
  readonly connectTimeoutMs?: number
  /** Every transaction here is read-only unless it says otherwise: a single statement is a read-only transaction. */
  readonly readOnly?: boolean
  /** Record connections: UTC, and values parsed as their JSON text (see types.ts). */
  readonly records?: boolean
  readonly pooler?: Pooler
}

function sessionSettings (options: PoolOptions): string | undefined {
  if (options.records !== true) return undefined
  return `-c TimeZone=UTC${options.readOnly === true ? ' -c default_transaction_read_only=on' : ''}`
}

/** A pool's statement timeout: the start's until armed, then the requests'; `pooled`: sent with each BEGIN. */
interface PoolTimeout {
  current: number
  readonly request: number
  readonly pooled: boolean
}

const poolTimeouts = new WeakMap<pg.Pool, PoolTimeout>()

export function createPool (connectionString: string, options: PoolOptions = {}): Pool {
  const pooled = options.pooler === 'transaction'
  const settings = pooled ? undefined : sessionSettings(options)
  const request = options.statementTimeoutMs
  const timeout = request === undefined ? undefined : { current: Math.max(request, options.startupTimeoutMs ?? 0), request, pooled }
  const pool = new pg.Pool({
    connectionString,
    max: options.max ?? 10,
    application_name: options.applicationName ?? 'tablegate',
    ...(timeout === undefined || pooled ? {} : { statement_timeout: timeout.current }),
    ...(options.connectTimeoutMs === undefined ? {} : { connectionTimeoutMillis: options.connectTimeoutMs }),
    ...(options.records === true ? { types: recordTypes } : {}),
    ...(settings === undefined ? {} : { options: settings }),
  })
  // An idle client losing its connection must not crash the process; the next checkout reconnects.
  pool.on('error', () => {})
  if (timeout !== undefined) {
    if (pooled) timeoutInEveryTransaction(pool, timeout.current, options.readOnly === true)
    poolTimeouts.set(pool, timeout)
    watchStatements(pool, timeout)
  }
  // A pooled statement name would be prepared on one server connection and bound on another.
  return pooled ? pool : withStatementNames(pool)
}

// node-postgres' own query_timeout arms a timer per statement, which measured 70 µs more server
// CPU per list page under load; one sweep per pool finds the same statements. It reads pg's
// internals (pinned by the lockfile), and test/http/connection-loss.test.ts fails if they move.
interface PgInternals { _clients: Array<PoolClient & { _activeQuery: object | null, connection: { stream: { destroy (): void } } }> }

/**
 * Watches statements against their timeout, which PostgreSQL enforces in both modes (the startup
 * packet, or SET LOCAL with each transaction): one unanswered for the timeout and a margin more
 * means a backend that stopped answering, and has its connection closed. Checks as often as a
 * tenth of the timeout.
 */
function watchStatements (pool: pg.Pool, timeout: PoolTimeout): void {
  const seen = new WeakMap<object, { query: object, since: number }>()
  const timer = setInterval(() => {
    const now = Date.now()
    for (const client of (pool as unknown as PgInternals)._clients) {
      const active = client._activeQuery
      if (active === null || active === undefined) continue
      const known = seen.get(client)
      if (known?.query !== active) {
        seen.set(client, { query: active, since: now })
        continue
      }
      const limit = statementTimeoutOf(client) ?? timeout.current
      if (now - known.since >= limit + Math.min(LOST_MARGIN_MS.max, Math.max(LOST_MARGIN_MS.min, limit))) client.connection.stream.destroy()
    }
  }, Math.max(50, Math.floor(timeout.request / 10)))
  timer.unref()
  const end = pool.end.bind(pool)
  pool.end = (async () => {
    clearInterval(timer)
    await end()
  }) as typeof pool.end
}

/**
 * From now on the pool's work is requests: its statements take the request timeout. Directly
 * connected, connections opened from now on carry it in their startup packet, and those the start
 * opened (idle once it is done) set it as their session's. Behind a transaction pooler every
 * transaction sends it with its BEGIN.
 */
export async function armStatementTimeout (pool: Pool): Promise<void> {
  const timeout = poolTimeouts.get(pool)
  if (timeout === undefined || timeout.current === timeout.request) return
  timeout.current = timeout.request
  if (timeout.pooled) {
    setPooledTimeout(pool, timeout.request)
    return
  }
  // pg-pool makes each new client from its options.
  const options = (pool as unknown as { options: { statement_timeout: number } }).options
  options.statement_timeout = timeout.request
  const opened = await Promise.all(Array.from({ length: pool.idleCount }, async () => await pool.connect()))
  await Promise.all(opened.map(async (client) => {
    try {
      await client.query(`SET statement_timeout = ${timeout.request}`)
      client.release()
    } catch {
      client.release(true)
    }
  }))
}
