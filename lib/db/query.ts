// Runs builder fragments on a pool or a transaction client: the only door from `sql` to `pg`.
// Statement texts depend on plan shapes and page sizes only (a LIMIT is written into the text,
// sql.int), never on filter or key values, so the same text comes back again and again: those run
// as named (prepared) statements, which PostgreSQL plans once per connection once a generic plan
// serves them. Every
// statement is published on the `tablegate:query` diagnostics channel (text only, never values),
// so tests and tracing can see what ran without wrapping pg.
import { createHash } from 'node:crypto'
import { channel } from 'node:diagnostics_channel'
import { connect } from 'node:net'
import pg, { type Query } from 'pg'
import QueryStream from 'pg-query-stream'
import { compile, type Sql } from '../sql/sql.js'

export type Queryable = Pick<pg.Pool | pg.PoolClient, 'query'>

/** How many distinct statement texts get a name per pool; later ones run unnamed (planned each time). */
const MAX_PREPARED = 500
const DATA_STATEMENT = /^(SELECT|INSERT|UPDATE|DELETE|WITH) /
const kStatementNames = Symbol('tablegate.statementNames')

export const queryChannel = channel('tablegate:query')

/** A prepared statement's name, and the text it was named for: the same characters, one string. */
export interface NamedStatement {
  readonly name: string
  readonly text: string
}

/**
 * The names of a pool's prepared statements. Each connection keeps the statements it prepared
 * (pg and PostgreSQL both), so only the first MAX_PREPARED data statements are named, for good:
 * texts past them, and EXPLAIN, DDL and the like, are not remembered at all.
 */
export class StatementNames {
  // Found by length, then compared: each statement's text is built anew, and a Map keyed by text
  // hashes every character of each new string (1.5 µs for 420 characters), where comparing it
  // with the few named texts of its length takes a third of that.
  readonly #byLength = new Map<number, NamedStatement[]>()
  #size = 0

  /**
   * The statement `text` runs as, undefined for one that runs unnamed. Its `text` is the string
   * the name was first given for: pg compares each named statement's text with the one its
   * connection prepared, and the same string compares at once.
   */
  statementFor (text: string): NamedStatement | undefined {
    const sameLength = this.#byLength.get(text.length)
    if (sameLength !== undefined) {
      for (const named of sameLength) if (named.text === text) return named
    }
    if (this.#size >= MAX_PREPARED || !DATA_STATEMENT.test(text)) return undefined
    const named = { name: 'tg_' + createHash('sha1').update(text).digest('base64url').slice(0, 20), text }
    if (sameLength === undefined) this.#byLength.set(text.length, [named])
    else sameLength.push(named)
    this.#size++
    return named
  }
}

type Named = Queryable & { [kStatementNames]?: StatementNames }

/** Gives a pool (and the clients `withStatementNames` is told of) its own statement names. */
export function withStatementNames<T extends Queryable> (db: T, names = new StatementNames()): T {
  (db as Named)[kStatementNames] = names
  return db
}

export function statementNamesOf (db: Queryable): StatementNames | undefined {
  return (db as Named)[kStatementNames]
}

export async function query<R extends pg.QueryResultRow = pg.QueryResultRow> (db: Queryable, fragment: Sql): Promise<pg.QueryResult<R>> {
  const { text, values } = compile(fragment)
  if (queryChannel.hasSubscribers) queryChannel.publish({ text })
  // pg copies a config object through its property descriptors before running it (4 µs of a
  // list page's CPU under load); a Query made from the text alone runs as it is. pg takes a
  // Query with a callback on pools and clients alike; its types know neither the callback nor `name`.
  const named = (db as Named)[kStatementNames]?.statementFor(text)
  const statement: NamedQuery<R> = new pg.Query<R>(named?.text ?? text, values)
  statement.name = named?.name
  return await new Promise((resolve, reject) => {
    (db as unknown as { query: RunQuery<R> }).query(statement, (err, result) => { if (err === undefined || err === null) resolve(result); else reject(err) })
  })
}

type NamedQuery<R extends pg.QueryResultRow> = Query<R> & { name?: string }
type RunQuery<R extends pg.QueryResultRow> = (statement: Query<R>, done: (err: Error | null | undefined, result: pg.QueryResult<R>) => void) => void

export async function rows<R extends pg.QueryResultRow = pg.QueryResultRow> (db: Queryable, fragment: Sql): Promise<R[]> {
  return (await query<R>(db, fragment)).rows
}

/** A statement's rows read through a cursor, `batchSize` at a time, as the consumer pulls them (an export). */
export function streamRows (client: pg.PoolClient, fragment: Sql, batchSize: number): QueryStream {
  const { text, values } = compile(fragment)
  if (queryChannel.hasSubscribers) queryChannel.publish({ text })
  return client.query(new QueryStream(text, values, { batchSize }))
}

const kTimeoutMs = Symbol('tablegate.statementTimeoutMs')
type TimedClient = pg.PoolClient & { [kTimeoutMs]?: number }

/**
 * The statement timeout of a checked-out connection's statements until it is restored with
 * undefined: a transaction that set its own is not taken as lost at the pool's (pool.ts).
 */
export function setStatementTimeout (client: pg.PoolClient, timeoutMs: number | undefined): void {
  (client as TimedClient)[kTimeoutMs] = timeoutMs
}

export function statementTimeoutOf (client: pg.PoolClient): number | undefined {
  return (client as TimedClient)[kTimeoutMs]
}

const CANCEL_REQUEST_CODE = 80877102
/** How long a cancel request's socket waits for the server to close it. */
const CANCEL_WAIT_MS = 5_000

type Cancellable = pg.PoolClient & { processID?: number | null, secretKey?: number | null, connectionParameters?: { host?: string, port?: number } }

/**
 * Cancels the statement a connection is running with the protocol's cancel request, on a socket
 * of its own: a transaction pooler forwards it to the server connection the client is on, where
 * pg_cancel_backend would name a process id the pooler made up.
 */
export async function cancelStatement (client: pg.PoolClient): Promise<void> {
  const { processID, secretKey, connectionParameters } = client as Cancellable
  if (processID == null || secretKey == null) return
  const host = connectionParameters?.host ?? 'localhost'
  const port = connectionParameters?.port ?? 5432
  const request = Buffer.alloc(16)
  request.writeInt32BE(16, 0)
  request.writeInt32BE(CANCEL_REQUEST_CODE, 4)
  request.writeInt32BE(processID, 8)
  request.writeInt32BE(secretKey, 12)
  const socket = host.startsWith('/') ? connect(`${host}/.s.PGSQL.${port}`) : connect(port, host)
  await new Promise<void>((resolve, reject) => {
    // As libpq does, the socket stays open until the other side closes it: PgBouncer drops a
    // cancel request whose client hung up before it was forwarded.
    socket.once('connect', () => { socket.write(request) })
    socket.setTimeout(CANCEL_WAIT_MS, () => { socket.destroy() })
    socket.once('error', reject)
    socket.once('close', () => { resolve() })
  })
}

/** BEGIN, with the transaction's statement timeout in the same message where the session does not carry it. */
export type BeginStatement = 'BEGIN' | 'BEGIN READ ONLY' | `${'BEGIN' | 'BEGIN READ ONLY'}; SET LOCAL statement_timeout = ${number}`
export type ControlStatement = BeginStatement | 'COMMIT' | 'ROLLBACK' | `${'SAVEPOINT' | 'RELEASE SAVEPOINT' | 'ROLLBACK TO SAVEPOINT'} tg_${string}`

/**
 * A statement without parameters that is not built (BEGIN, COMMIT, savepoints), published like
 * the others. Returns PostgreSQL's command tag: a COMMIT of a failed transaction answers ROLLBACK.
 */
export async function control (db: Queryable, text: ControlStatement): Promise<string | undefined> {
  if (queryChannel.hasSubscribers) queryChannel.publish({ text })
  return (await db.query(text) as { command?: string }).command
}
