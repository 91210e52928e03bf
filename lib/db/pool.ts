// pg pools. int8 and numeric stay strings (pg's default), which is also their JSON representation.
import pg from 'pg'

export type Pool = pg.Pool
export type PoolClient = pg.PoolClient

export interface PoolOptions {
  readonly max?: number
  readonly applicationName?: string
}

export function createPool (connectionString: string, options: PoolOptions = {}): Pool {
  const pool = new pg.Pool({
    connectionString,
    max: options.max ?? 20,
    application_name: options.applicationName ?? 'tablegate',
  })
  // An idle client losing its connection must not crash the process; the next checkout reconnects.
  pool.on('error', () => {})
  return pool
}
