// EXPLAIN without running: a statement's plan as PostgreSQL would run it, optionally with
// sequential scans priced out.
import { sql, type Sql } from '../sql/sql.js'
import { rows, type Queryable } from './query.js'
import { withTransaction } from './transaction.js'
import type { Pool } from './pool.js'

/** A node of PostgreSQL's `EXPLAIN (FORMAT JSON, VERBOSE)` plan; the members are PostgreSQL's own. */
export interface ExplainNode {
  readonly 'Node Type': string
  readonly 'Relation Name'?: string
  readonly Schema?: string
  readonly Plans?: readonly ExplainNode[]
  readonly [member: string]: unknown
}

/**
 * Runs `work` in a read-only transaction where sequential scans are priced out (enable_seqscan
 * off): a plan that still reads a table sequentially has no index that could serve it, whatever
 * the values. With scans allowed, the planner rightly prefers one for a value that matches most
 * rows (`id > 1`), and a verdict would depend on the values of the request that came first.
 */
export async function withIndexesPreferred<T> (pool: Pool, work: (db: Queryable) => Promise<T>): Promise<T> {
  return await withTransaction(pool, { readOnly: true }, async (tx) => {
    await tx.query("SELECT set_config('enable_seqscan', 'off', true)")
    return await work(tx)
  })
}

/** The plan of a statement, not run. */
export async function explainPlan (db: Queryable, query: Sql): Promise<ExplainNode | undefined> {
  const [result] = await rows<{ 'QUERY PLAN': Array<{ Plan: ExplainNode }> }>(db, sql`EXPLAIN (FORMAT JSON, VERBOSE) ${query}`)
  return result?.['QUERY PLAN'][0]?.Plan
}
