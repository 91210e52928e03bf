// EXPLAIN without running: which tables a query would read sequentially, and how big they are.
import { sql, type Sql } from '../sql/sql.js'
import { rows, type Queryable } from './query.js'
import { withTransaction } from './transaction.js'
import type { Pool } from './pool.js'

interface PlanNode {
  'Node Type': string
  'Relation Name'?: string
  Schema?: string
  Plans?: PlanNode[]
}

export interface ScannedTable {
  readonly schema: string
  readonly table: string
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

/** The tables a query's plan reads with a sequential scan. */
export async function sequentialScans (db: Queryable, query: Sql): Promise<ScannedTable[]> {
  const [result] = await rows<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(db, sql`EXPLAIN (FORMAT JSON, VERBOSE) ${query}`)
  const found: ScannedTable[] = []
  const walk = (node: PlanNode): void => {
    if (node['Node Type'] === 'Seq Scan' && node['Relation Name'] !== undefined) {
      found.push({ schema: node.Schema ?? 'public', table: node['Relation Name'] })
    }
    node.Plans?.forEach(walk)
  }
  const root = result?.['QUERY PLAN'][0]?.Plan
  if (root !== undefined) walk(root)
  return found
}

/**
 * A table's row count as far as `limit` matters: the planner's statistics when the table was ever
 * analyzed, else a count that stops at `limit + 1` rows, so it costs little on any table.
 */
export async function rowsAtLeast (db: Queryable, scanned: ScannedTable, limit: number): Promise<number> {
  const table = sql.ident(scanned.schema, scanned.table)
  const [stats] = await rows<{ reltuples: number }>(db, sql`SELECT c.reltuples::float8 AS reltuples FROM pg_class c
    JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = ${scanned.schema} AND c.relname = ${scanned.table}`)
  if (stats !== undefined && stats.reltuples >= 0) return stats.reltuples
  const [counted] = await rows<{ n: number }>(db, sql`SELECT count(*)::int AS n FROM (SELECT 1 FROM ${table} LIMIT ${limit + 1}) AS bounded`)
  return counted?.n ?? 0
}
