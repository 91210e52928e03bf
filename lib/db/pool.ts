// pg pools. int8 and numeric stay strings (pg's default), which is also their JSON representation.
// Settings every statement needs travel in the connection's startup packet, not per request:
// the statement timeout always, and read-only for the pool that serves reads.
import pg from 'pg'
import { recordTypes } from './types.js'
import { withStatementNames } from './query.js'

/** How much longer than the statement timeout the client waits before calling a backend lost. */
const QUERY_TIMEOUT_MARGIN_MS = 5_000

export type Pool = pg.Pool
export type PoolClient = pg.PoolClient

export interface PoolOptions {
  readonly max?: number
  readonly applicationName?: string
  /**
   * statement_timeout of every statement on these connections; the client gives up on an answer
   * a little later (a backend that stopped answering cannot enforce its own timeout).
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
    ...(options.statementTimeoutMs === undefined ? {} : { statement_timeout: options.statementTimeoutMs, query_timeout: options.statementTimeoutMs + QUERY_TIMEOUT_MARGIN_MS }),
    ...(options.connectTimeoutMs === undefined ? {} : { connectionTimeoutMillis: options.connectTimeoutMs }),
    ...(options.records === true ? { types: recordTypes, options: `-c TimeZone=UTC${options.readOnly === true ? ' -c default_transaction_read_only=on' : ''}` } : {}),
  })
  // An idle client losing its connection must not crash the process; the next checkout reconnects.
  pool.on('error', () => {})
  return withStatementNames(pool)
}
