// One transaction per unit of work. Directly connected, the pool's connections carry the statement
// timeout in their startup packet. Behind a transaction pooler no session is ours: each
// transaction gets whichever server connection is free, so each carries the timeout itself, sent
// with its BEGIN (`BEGIN; SET LOCAL statement_timeout = …`, one message, as BEGIN alone), and a
// statement run on the pool itself travels in a transaction of its own that starts the same way,
// written with its COMMIT in one round trip (timeoutInEveryTransaction). PostgreSQL then enforces
// the timeout as it does directly connected, and SET LOCAL ends with the transaction, leaving
// nothing on the server connection. A unit of work that needs another timeout (a migration, an
// export) sends its own with its BEGIN in both modes, and tells the pool's watch (pool.ts) about
// it. A connection that dies while checked out (the server killed, a backend terminated) fails the
// work in flight and is discarded, never left to crash the process with an unhandled 'error' event.
import type pg from 'pg'
import type { Sql } from '../sql/sql.js'
import { control, query, setStatementTimeout, statementNamesOf, withStatementNames, type BeginStatement } from './query.js'

export interface TxOptions {
  readonly readOnly?: boolean
  /** A statement timeout for this transaction only, instead of the connection's. */
  readonly timeoutMs?: number
}

type Pool = pg.Pool
type PoolClient = pg.PoolClient
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

/** Pooled: what every transaction on a pool starts with (timeoutInEveryTransaction). */
interface PooledSession { timeoutMs: number, readonly readOnly: boolean, begin: BeginStatement }
const pooledSessions = new WeakMap<Pool, PooledSession>()

/** Pooled: the statement timeout every later transaction on the pool starts with (lib/db/pool.ts, armStatementTimeout). */
export function setPooledTimeout (pool: Pool, timeoutMs: number): void {
  const session = pooledSessions.get(pool)
  if (session === undefined) return
  session.timeoutMs = timeoutMs
  session.begin = beginStatement(session.readOnly, timeoutMs)
}

/** BEGIN, with the transaction's statement timeout when the session does not carry it. */
function beginStatement (readOnly: boolean, timeoutMs: number | undefined): BeginStatement {
  const begin = readOnly ? 'BEGIN READ ONLY' : 'BEGIN'
  // 0 would be no timeout at all.
  return timeoutMs === undefined ? begin : `${begin}; SET LOCAL statement_timeout = ${Math.max(1, Math.trunc(timeoutMs))}`
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
    if (options.timeoutMs !== undefined) setStatementTimeout(client, options.timeoutMs)
    const pooled = pooledSessions.get(pool)
    await control(client, beginStatement(options.readOnly ?? (pooled?.readOnly === true), options.timeoutMs ?? pooled?.timeoutMs))
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

type Done = (err: Error | null | undefined, result?: unknown) => void
/** pg's pipeline mode, a client option read as each statement is sent and answered. */
type Pipelining = PoolClient & { pipeline: boolean }

/** A statement in any of pg's forms: text and values, a config object, or a submittable (a pg.Query). */
async function submit (client: PoolClient, text: unknown, values: unknown): Promise<unknown> {
  return await new Promise((resolve, reject) => {
    const done: Done = (err, result) => { if (err === null || err === undefined) resolve(result); else reject(err) }
    // A submittable takes its callback in place of the values.
    if (values === undefined) (client.query as unknown as (text: unknown, done: Done) => void)(text, done)
    else (client.query as unknown as (text: unknown, values: unknown, done: Done) => void)(text, values, done)
  })
}

type Send = (client: PoolClient) => Promise<unknown>

/**
 * Statements written together on one connection and answered in order, each behind its own Sync:
 * one round trip (pg's pipeline mode, on for these only). Each `send` writes its statement as it
 * is called. A failed statement's error is thrown once all are answered; it leaves the connection
 * idle, ready for the next, unless the statements are a transaction (`transactional`: the first
 * is its BEGIN, the last its COMMIT) whose BEGIN or COMMIT failed. A lost connection is discarded.
 */
async function onOneConnection (pool: Pool, sends: readonly Send[], transactional: boolean): Promise<unknown[]> {
  const client = await pool.connect() as Pipelining
  const names = statementNamesOf(pool)
  if (names !== undefined) withStatementNames(client, names)
  let lost: Error | undefined
  const onLost = (err: Error): void => { lost ??= err }
  client.on('error', onLost)
  client.pipeline = true
  const steps = await Promise.allSettled(sends.map((send) => send(client)))
  client.pipeline = false
  client.removeListener('error', onLost)
  client.release(lost ?? (transactional && (steps[0]!.status === 'rejected' || steps.at(-1)!.status === 'rejected')))
  for (const step of steps) if (step.status === 'rejected') throw step.reason
  return steps.map((step) => (step as PromiseFulfilledResult<unknown>).value)
}

/**
 * A statement run on a pooled pool itself, in a transaction of its own that starts with the
 * timeout, in one round trip: BEGIN, the statement and COMMIT are written together and PostgreSQL
 * answers them in order. A statement that fails (57014 at the timeout) leaves the COMMIT
 * answering ROLLBACK and the connection idle, ready for the next.
 */
async function lone (pool: Pool, begin: BeginStatement, text: unknown, values: unknown): Promise<unknown> {
  const [, ran] = await onOneConnection(pool, [async (client) => await client.query(begin), async (client) => await submit(client, text, values), async (client) => await client.query('COMMIT')], true)
  return ran
}

export interface PipelineOptions {
  /** A transaction of their own, its BEGIN and COMMIT written with them (a read-only one with `readOnly`). */
  readonly transaction?: { readonly readOnly?: boolean }
}

/**
 * `statements` in one round trip on one connection, their results in order. Behind a transaction
 * pooler they run in a transaction that starts with the pool's timeout, as any statement on the
 * pool does (timeoutInEveryTransaction); one asked for in `options` is published like any other.
 */
export async function pipelined (pool: Pool, statements: readonly Sql[], options: PipelineOptions = {}): Promise<pg.QueryResult[]> {
  const sends: Send[] = statements.map((statement) => async (client) => await query(client, statement))
  const pooled = pooledSessions.get(pool)
  const asked = options.transaction
  if (asked === undefined && pooled === undefined) return await onOneConnection(pool, sends, false) as pg.QueryResult[]
  const begin = asked === undefined ? pooled!.begin : beginStatement(asked.readOnly ?? pooled?.readOnly === true, pooled?.timeoutMs)
  // The pooler's own transaction is the pool's, not the work's: the query channel shows the statements alone.
  const send = (text: 'COMMIT' | BeginStatement): Send => asked === undefined ? async (client) => await client.query(text) : async (client) => await control(client, text)
  const results = await onOneConnection(pool, [send(begin), ...sends, send('COMMIT')], true)
  return results.slice(1, -1) as pg.QueryResult[]
}

/**
 * Behind a transaction pooler: every transaction on the pool starts with its statement timeout
 * (and is read-only on the read pool unless it says otherwise), and a statement run on the pool
 * itself (a read, a one-statement write, the auth store's) runs in a transaction of its own. That transaction is the pool's, not the
 * work's: the query channel shows the statement alone, as directly connected.
 */
export function timeoutInEveryTransaction (pool: Pool, timeoutMs: number, readOnly: boolean): void {
  const session: PooledSession = { timeoutMs, readOnly, begin: beginStatement(readOnly, timeoutMs) }
  pooledSessions.set(pool, session)
  // pg-pool's forms: (text or query, values?, callback?), a promise without a callback.
  pool.query = ((text: unknown, values?: unknown, callback?: unknown) => {
    if (typeof values === 'function') {
      callback = values
      values = undefined
    }
    const result = lone(pool, session.begin, text, values)
    if (typeof callback !== 'function') return result
    result.then((found) => { (callback as Done)(null, found) }, (err: Error) => { (callback as Done)(err) })
    return undefined
  }) as unknown as Pool['query']
}
