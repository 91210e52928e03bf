// One transaction per unit of work. The pool's connections carry the statement timeout; a unit of
// work that needs another one (a migration, an export) sets its own for the transaction, which
// holds through a transaction pooler too, and tells the pool's watch (pool.ts) about it. A
// connection that dies while checked out (the server killed, a backend terminated) fails the work
// in flight and is discarded, never left to crash the process with an unhandled 'error' event.
import { setStatementTimeout, type Pool, type PoolClient } from './pool.js'
import { control, statementNamesOf, withStatementNames } from './query.js'

export interface TxOptions {
  readonly readOnly?: boolean
  /** A statement timeout for this transaction only, instead of the connection's. */
  readonly timeoutMs?: number
}

export type Tx = PoolClient

/** A COMMIT that PostgreSQL answered with ROLLBACK: a statement of the transaction had failed. */
export class TransactionRolledBackError extends Error {
  constructor () {
    super('The transaction was rolled back at COMMIT: one of its statements failed and its error was caught.')
    this.name = 'TransactionRolledBackError'
  }
}

/** A transaction that outlives one call (an export streams from it): end it with commit or rollback, once. */
export interface OpenTransaction {
  readonly tx: Tx
  commit (): Promise<void>
  rollback (): Promise<void>
}

export async function beginTransaction (pool: Pool, options: TxOptions = {}): Promise<OpenTransaction> {
  const client = await pool.connect()
  // pg emits 'error' on a checked-out client whose connection ends; the statement in flight
  // rejects on its own, so the listener only has to keep the client from going back to the pool.
  let lost: Error | undefined
  const onLost = (err: Error): void => { lost ??= err }
  client.on('error', onLost)
  // The client prepares statements under its pool's names: they are the same connections.
  const names = statementNamesOf(pool)
  if (names !== undefined) withStatementNames(client, names)
  let ended = false
  const release = (broken: boolean): void => {
    client.removeListener('error', onLost)
    setStatementTimeout(client, undefined)
    client.release(lost ?? broken)
  }
  const end = async (statement: 'COMMIT' | 'ROLLBACK'): Promise<void> => {
    if (ended) return
    ended = true
    if (lost !== undefined) {
      release(true)
      // A connection lost before COMMIT committed nothing: the work must not be taken as done.
      if (statement === 'COMMIT') throw lost
      return
    }
    let command: string | undefined
    try {
      command = await control(client, statement)
    } catch (err) {
      if (statement === 'ROLLBACK') return release(true)
      // A COMMIT refused (a deferred constraint) leaves a healthy connection once rolled back.
      ended = false
      await end('ROLLBACK')
      throw err
    }
    release(false)
    // A statement failed and its error was caught (a hook that swallowed it): PostgreSQL rolled
    // the whole transaction back, and its work must not be answered as done.
    if (statement === 'COMMIT' && command === 'ROLLBACK') throw new TransactionRolledBackError()
  }
  try {
    await control(client, options.readOnly === true ? 'BEGIN READ ONLY' : 'BEGIN')
    if (options.timeoutMs !== undefined) {
      setStatementTimeout(client, options.timeoutMs)
      await client.query("SELECT set_config('statement_timeout', $1, true)", [String(Math.trunc(options.timeoutMs))])
    }
  } catch (err) {
    await end('ROLLBACK')
    throw err
  }
  return { tx: client, commit: async () => { await end('COMMIT') }, rollback: async () => { await end('ROLLBACK') } }
}

export async function withTransaction<T> (pool: Pool, options: TxOptions, work: (tx: Tx) => Promise<T>): Promise<T> {
  const transaction = await beginTransaction(pool, options)
  let result: T
  try {
    result = await work(transaction.tx)
  } catch (err) {
    await transaction.rollback()
    throw err
  }
  await transaction.commit()
  return result
}
