// Runs builder fragments on a pool or a transaction client: the only door from `sql` to `pg`.
// Statement texts depend on plan shapes only, never on values, so the same text comes back again
// and again: those run as named (prepared) statements, planned once per connection. Every
// statement is published on the `tablegate:query` diagnostics channel (text only, never values),
// so tests and tracing can see what ran without wrapping pg.
import { createHash } from 'node:crypto'
import { channel } from 'node:diagnostics_channel'
import type pg from 'pg'
import QueryStream from 'pg-query-stream'
import { compile, type Sql } from '../sql/sql.js'

export type Queryable = Pick<pg.Pool | pg.PoolClient, 'query'>

/** How many distinct statement texts get a name per pool; later ones run unnamed (planned each time). */
const MAX_PREPARED = 500
const DATA_STATEMENT = /^(SELECT|INSERT|UPDATE|DELETE) /
const kStatementNames = Symbol('tablegate.statementNames')

export const queryChannel = channel('tablegate:query')

/**
 * The names of a pool's prepared statements. Each connection keeps the statements it prepared
 * (pg and PostgreSQL both), so only the first MAX_PREPARED data statements are named, for good:
 * texts past them, and EXPLAIN, DDL and the like, are not remembered at all.
 */
export class StatementNames {
  readonly #names = new Map<string, string>()

  nameFor (text: string): string | undefined {
    const known = this.#names.get(text)
    if (known !== undefined || this.#names.size >= MAX_PREPARED || !DATA_STATEMENT.test(text)) return known
    const name = 'tg_' + createHash('sha1').update(text).digest('base64url').slice(0, 20)
    this.#names.set(text, name)
    return name
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
  return await db.query<R>({ text, values, name: (db as Named)[kStatementNames]?.nameFor(text) })
}

export async function rows<R extends pg.QueryResultRow = pg.QueryResultRow> (db: Queryable, fragment: Sql): Promise<R[]> {
  return (await query<R>(db, fragment)).rows
}

/** A statement's rows read through a cursor, `batchSize` at a time, as the consumer pulls them (an export). */
export function streamRows (client: pg.PoolClient, fragment: Sql, batchSize: number): QueryStream {
  const { text, values } = compile(fragment)
  if (queryChannel.hasSubscribers) queryChannel.publish({ text })
  return client.query(new QueryStream(text, values, { batchSize }))
}

/** Cancels the statement a connection is running, from another connection of `pool` (its own is busy). */
export async function cancelStatement (pool: Queryable, client: pg.PoolClient): Promise<void> {
  const pid = (client as pg.PoolClient & { processID?: number }).processID
  if (pid !== undefined) await pool.query('SELECT pg_cancel_backend($1)', [pid])
}

export type ControlStatement = 'BEGIN' | 'BEGIN READ ONLY' | 'COMMIT' | 'ROLLBACK' | `${'SAVEPOINT' | 'RELEASE SAVEPOINT' | 'ROLLBACK TO SAVEPOINT'} tg_${string}`

/** A statement without parameters that is not built (BEGIN, COMMIT, savepoints), published like the others. */
export async function control (db: Queryable, text: ControlStatement): Promise<void> {
  if (queryChannel.hasSubscribers) queryChannel.publish({ text })
  await db.query(text)
}
