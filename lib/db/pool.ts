// pg pools. int8 and numeric stay strings (pg's default), which is also their JSON representation.
// Directly connected, the settings every statement needs travel in the connection's startup
// packet: the statement timeout always, UTC, and read-only for the pool that serves reads. Behind a
// transaction pooler (PgBouncer, pgcat, Supavisor) a session is not ours: the packet carries
// nothing, statements are unnamed, the timeout is a cancel request sent from here, timestamps of
// any offset are read as UTC (types.ts), and read-only is the pooler entry's or the role's setting.
import pg from 'pg'
import { recordTypes } from './types.js'
import { cancelStatement, withStatementNames } from './query.js'

/** How much longer than the statement timeout a statement may run before its backend counts as lost. */
const LOST_MARGIN_MS = 5_000
const kTimeoutMs = Symbol('tablegate.statementTimeoutMs')

export type Pool = pg.Pool
export type PoolClient = pg.PoolClient

/** 'transaction': the URL is a transaction pooler, which gives each transaction any server connection. */
export type Pooler = 'none' | 'transaction'

export interface PoolOptions {
  readonly max?: number
  readonly applicationName?: string
  /**
   * The statement timeout of every statement on these connections. A statement still unanswered a
   * little later (up to 5 s, at most the timeout again) means a backend that stopped answering,
   * which cannot enforce its own timeout: its connection is closed, failing the statement.
   */
  readonly statementTimeoutMs?: number
  /** How long a caller waits for a connection: a new one, or a free one of a busy pool. */
  readonly connectTimeoutMs?: number
  /** default_transaction_read_only: a single statement here is a read-only transaction (direct only). */
  readonly readOnly?: boolean
  /** Record connections: UTC, and values parsed as their JSON text (see types.ts). */
  readonly records?: boolean
  readonly pooler?: Pooler
}

function sessionSettings (options: PoolOptions): string | undefined {
  if (options.records !== true) return undefined
  return `-c TimeZone=UTC${options.readOnly === true ? ' -c default_transaction_read_only=on' : ''}`
}

export function createPool (connectionString: string, options: PoolOptions = {}): Pool {
  const pooled = options.pooler === 'transaction'
  const settings = pooled ? undefined : sessionSettings(options)
  const pool = new pg.Pool({
    connectionString,
    max: options.max ?? 10,
    application_name: options.applicationName ?? 'tablegate',
    ...(options.statementTimeoutMs === undefined || pooled ? {} : { statement_timeout: options.statementTimeoutMs }),
    ...(options.connectTimeoutMs === undefined ? {} : { connectionTimeoutMillis: options.connectTimeoutMs }),
    ...(options.records === true ? { types: recordTypes } : {}),
    ...(settings === undefined ? {} : { options: settings }),
  })
  // An idle client losing its connection must not crash the process; the next checkout reconnects.
  pool.on('error', () => {})
  if (options.statementTimeoutMs !== undefined) watchStatements(pool, options.statementTimeoutMs, pooled)
  // A pooled statement name would be prepared on one server connection and bound on another.
  return pooled ? pool : withStatementNames(pool)
}

type TimedClient = PoolClient & { [kTimeoutMs]?: number }

/**
 * The statement timeout of a checked-out connection's statements until it is restored with
 * undefined: a transaction that set its own (set_config) is not cancelled or taken as lost at the pool's.
 */
export function setStatementTimeout (client: PoolClient, timeoutMs: number | undefined): void {
  (client as TimedClient)[kTimeoutMs] = timeoutMs
}

// node-postgres' own query_timeout arms a timer per statement, which measured 70 µs more server
// CPU per list page under load; one sweep per pool finds the same statements. It reads pg's
// internals (pinned by the lockfile), and test/http/connection-loss.test.ts fails if they move.
interface PgInternals { _clients: Array<TimedClient & { _activeQuery: object | null, connection: { stream: { destroy (): void } } }> }

/**
 * Watches statements against their timeout: pooled, one that reaches it is cancelled (the server
 * answers 57014, as for its own statement_timeout); any unanswered for the timeout and a margin
 * more has its connection closed. Checks as often as a tenth of the timeout.
 */
function watchStatements (pool: pg.Pool, timeoutMs: number, cancelAtTimeout: boolean): void {
  const seen = new WeakMap<object, { query: object, since: number, cancelled: boolean }>()
  const timer = setInterval(() => {
    const now = Date.now()
    for (const client of (pool as unknown as PgInternals)._clients) {
      const active = client._activeQuery
      if (active === null || active === undefined) continue
      const known = seen.get(client)
      if (known?.query !== active) {
        seen.set(client, { query: active, since: now, cancelled: false })
        continue
      }
      const limit = client[kTimeoutMs] ?? timeoutMs
      const running = now - known.since
      if (running >= limit + Math.min(LOST_MARGIN_MS, limit)) {
        client.connection.stream.destroy()
      } else if (cancelAtTimeout && !known.cancelled && running >= limit) {
        known.cancelled = true
        cancelStatement(client).catch(() => {})
      }
    }
  }, Math.max(50, Math.floor(timeoutMs / 10)))
  timer.unref()
  const end = pool.end.bind(pool)
  pool.end = (async () => {
    clearInterval(timer)
    await end()
  }) as typeof pool.end
}
