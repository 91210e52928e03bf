// Runs builder fragments on a pool or a transaction client: the only door from `sql` to `pg`.
import type pg from 'pg'
import { compile, type Sql } from '../sql/sql.js'

export type Queryable = Pick<pg.Pool | pg.PoolClient, 'query'>

export async function query<R extends pg.QueryResultRow = pg.QueryResultRow> (db: Queryable, fragment: Sql): Promise<pg.QueryResult<R>> {
  const { text, values } = compile(fragment)
  return await db.query<R>(text, values)
}

export async function rows<R extends pg.QueryResultRow = pg.QueryResultRow> (db: Queryable, fragment: Sql): Promise<R[]> {
  return (await query<R>(db, fragment)).rows
}
