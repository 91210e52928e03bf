// pg pools. int8 and numeric stay strings (pg's default), which is also their JSON representation.
// Settings every statement needs travel in the connection's startup packet, not per request:
// the statement timeout always, and read-only for the pool that serves reads.
import pg from 'pg'
import { recordTypes } from './types.js'
import { withStatementNames } from './query.js'

/** How much longer than the statement timeout a statement may run before its backend counts as lost. */
const LOST_MARGIN_MS = 5_000

export type Pool = pg.Pool
export type PoolClient = pg.PoolClient

export interface PoolOptions {
  readonly max?: number
  readonly applicationName?: string
  /**
   * statement_timeout of every statement on these connections. A statement still unanswered a
   * little later (up to 5 s, at most the timeout again) means a backend that stopped answering,
   * which cannot enforce its own timeout: its connection is closed, failing the statement.
   */
  readonly statementTimeoutMs?: number
  /** How long a caller waits for a connection: a new one, or a free one of a busy pool. */
  readonly connectTimeoutMs?: number
  /** default_transaction_read_only: a single statement here is a read-only transaction. */
  readonly readOnly?: boolean
  /** Record connections: UTC, and values parsed as their JSON text (see types.ts). */
  readonly records?: boolean
}

export function createPool (connectionString: string, options: PoolOptions = {}): Pool {
  const pool = new pg.Pool({
    connectionString,
    max: options.max ?? 20,
    application_name: options.applicationName ?? 'tablegate',
    ...(options.statementTimeoutMs === undefined ? {} : { statement_timeout: options.statementTimeoutMs }),
    ...(options.connectTimeoutMs === undefined ? {} : { connectionTimeoutMillis: options.connectTimeoutMs }),
    ...(options.records === true ? { types: recordTypes, options: `-c TimeZone=UTC${options.readOnly === true ? ' -c default_transaction_read_only=on' : ''}` } : {}),
  })
  // An idle client losing its connection must not crash the process; the next checkout reconnects.
  pool.on('error', () => {})
  if (options.statementTimeoutMs !== undefined) watchLostStatements(pool, options.statementTimeoutMs + Math.min(LOST_MARGIN_MS, options.statementTimeoutMs))
  return withStatementNames(pool)
}

// node-postgres' own query_timeout arms a timer per statement, which measured 70 µs more server
// CPU per list page under load; one sweep per pool finds the same statements. It reads pg's
// internals (pinned by the lockfile), and test/http/connection-loss.test.ts fails if they move.
interface PgInternals { _clients: Array<{ _activeQuery: object | null, connection: { stream: { destroy (): void } } }> }

/** Closes the connection of any statement unanswered for `limitMs`; checks as often as a fifth of it. */
function watchLostStatements (pool: pg.Pool, limitMs: number): void {
  const seen = new WeakMap<object, { query: object, since: number }>()
  const timer = setInterval(() => {
    const now = Date.now()
    for (const client of (pool as unknown as PgInternals)._clients) {
      const active = client._activeQuery
      if (active === null || active === undefined) continue
      const known = seen.get(client)
      if (known?.query !== active) seen.set(client, { query: active, since: now })
      else if (now - known.since >= limitMs) client.connection.stream.destroy()
    }
  }, Math.max(50, Math.floor(limitMs / 5)))
  timer.unref()
  const end = pool.end.bind(pool)
  pool.end = (async () => {
    clearInterval(timer)
    await end()
  }) as typeof pool.end
}
