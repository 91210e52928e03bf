// EXPLAIN without running: statements' plans as PostgreSQL would run them, optionally with
// sequential scans priced out, all in one round trip.
import { sql, type Sql } from '../sql/sql.js'
import { pipelined } from './transaction.js'
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
 * Sequential scans priced out (enable_seqscan off) for the rest of the transaction: a plan that
 * still reads a table sequentially has no index that could serve it, whatever the values. With
 * scans allowed, the planner rightly prefers one for a value that matches most rows (`id > 1`),
 * and a verdict would depend on the values of the request that came first.
 */
const INDEXES_PREFERRED = sql`SELECT set_config('enable_seqscan', 'off', true)`

/** The plans of `statements`, not run, in their order; with `preferIndexes`, in a read-only transaction that prices sequential scans out. */
export async function explainPlans (pool: Pool, statements: readonly Sql[], options: { readonly preferIndexes?: boolean } = {}): Promise<Array<ExplainNode | undefined>> {
  const explains = statements.map((statement) => sql`EXPLAIN (FORMAT JSON, VERBOSE) ${statement}`)
  const results = options.preferIndexes === true
    ? (await pipelined(pool, [INDEXES_PREFERRED, ...explains], { transaction: { readOnly: true } })).slice(1)
    : await pipelined(pool, explains)
  return results.map((result) => (result.rows[0] as { 'QUERY PLAN': Array<{ Plan: ExplainNode }> } | undefined)?.['QUERY PLAN'][0]?.Plan)
}
