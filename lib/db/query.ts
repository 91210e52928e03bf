// Runs builder fragments on a pool or a transaction client: the only door from `sql` to `pg`.
// Statement texts depend on plan shapes only, never on values, so the same text comes back again
// and again: those run as named (prepared) statements, planned once per connection.
import { createHash } from 'node:crypto'
import type pg from 'pg'
import { compile, type Sql } from '../sql/sql.js'

export type Queryable = Pick<pg.Pool | pg.PoolClient, 'query'>

/** How many distinct statement texts get a name; later ones run unnamed (and are planned each time). */
const MAX_PREPARED = 500
const DATA_STATEMENT = /^(SELECT|INSERT|UPDATE|DELETE) /
const names = new Map<string, string>()

// Only named texts are kept, so the map stops at MAX_PREPARED entries: texts past it, and EXPLAIN,
// DDL and the like (not worth preparing), are not remembered at all.
function nameFor (text: string): string | undefined {
  const known = names.get(text)
  if (known !== undefined || names.size >= MAX_PREPARED || !DATA_STATEMENT.test(text)) return known
  const name = 'tg_' + createHash('sha1').update(text).digest('base64url').slice(0, 20)
  names.set(text, name)
  return name
}

export async function query<R extends pg.QueryResultRow = pg.QueryResultRow> (db: Queryable, fragment: Sql): Promise<pg.QueryResult<R>> {
  const { text, values } = compile(fragment)
  return await db.query<R>({ text, values, name: nameFor(text) })
}

export async function rows<R extends pg.QueryResultRow = pg.QueryResultRow> (db: Queryable, fragment: Sql): Promise<R[]> {
  return (await query<R>(db, fragment)).rows
}
