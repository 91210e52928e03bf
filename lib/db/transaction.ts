// One transaction per unit of work. The pool's connections carry the statement timeout; a unit of
// work that needs another one (a migration) sets its own for the transaction. A connection that
// dies while checked out (the server killed, a backend terminated) fails the work in flight and
// is discarded, never left to crash the process with an unhandled 'error' event.
import type { Pool, PoolClient } from './pool.js'
import { control, statementNamesOf, withStatementNames } from './query.js'

export interface TxOptions {
  readonly readOnly?: boolean
  /** A statement timeout for this transaction only, instead of the connection's. */
  readonly timeoutMs?: number
}

export type Tx = PoolClient

export async function withTransaction<T> (pool: Pool, options: TxOptions, work: (tx: Tx) => Promise<T>): Promise<T> {
  const client = await pool.connect()
  // pg emits 'error' on a checked-out client whose connection ends; the statement in flight
  // rejects on its own, so the listener only has to keep the client from going back to the pool.
  let lost: Error | undefined
  const onLost = (err: Error): void => { lost ??= err }
  client.on('error', onLost)
  // The client prepares statements under its pool's names: they are the same connections.
  const names = statementNamesOf(pool)
  if (names !== undefined) withStatementNames(client, names)
  let broken = false
  try {
    await control(client, options.readOnly === true ? 'BEGIN READ ONLY' : 'BEGIN')
    if (options.timeoutMs !== undefined) {
      await client.query("SELECT set_config('statement_timeout', $1, true)", [String(Math.trunc(options.timeoutMs))])
    }
    const result = await work(client)
    await control(client, 'COMMIT')
    return result
  } catch (err) {
    if (lost === undefined) {
      try {
        await control(client, 'ROLLBACK')
      } catch {
        broken = true
      }
    }
    throw err
  } finally {
    client.removeListener('error', onLost)
    client.release(lost ?? broken)
  }
}
