// What EXPLAIN says of a list's statements: which tables they would read sequentially, and how big
// those tables are. The plans come from the list's view (ListGuardView.explain).
import { BoundedCache, rows, sql, type ExplainNode, type Queryable } from '../../lib/public.js'

export interface ScannedTable {
  readonly schema: string
  readonly table: string
}

/** One key for one table: a NUL, which no identifier holds, between schema and name (a dot may be in either). */
export function tableKey (scanned: ScannedTable): string {
  return `${scanned.schema}\0${scanned.table}`
}

/**
 * The tables a plan reads whole: by a sequential scan, or by an index scan without a condition
 * where that reads every row. The latter is cheap under a LIMIT in the index's order (a list's
 * page), but not below a sort: an order by a related record's field (docs/relations.md,
 * "Ordering") sorts every row it reads (`sorted`), and the planner may read them through any
 * index (a merge join on the link) once sequential scans are priced out. Nor is it cheap where it
 * runs once per row of another table: a to-many embed's subquery, or the inner side of a nested
 * loop (a filter across a relation), walking a whole index per row when no index leads with the
 * link.
 */
export function wholeReads (plan: ExplainNode, sorted: boolean): ScannedTable[] {
  const found: ScannedTable[] = []
  const walk = (node: ExplainNode, perRow: boolean): void => {
    const type = node['Node Type']
    const unconditioned = (type === 'Index Scan' || type === 'Index Only Scan') && node['Index Cond'] === undefined
    if ((type === 'Seq Scan' || (unconditioned && (sorted || perRow))) && node['Relation Name'] !== undefined) {
      found.push({ schema: node.Schema ?? 'public', table: node['Relation Name'] })
    }
    for (const child of node.Plans ?? []) {
      const relationship = child['Parent Relationship']
      // A Materialize or a Hash reads its input once, however often it is read.
      const once = type === 'Materialize' || type === 'Hash'
      walk(child, !once && (perRow || relationship === 'SubPlan' || (type === 'Nested Loop' && relationship === 'Inner')))
    }
  }
  walk(plan, false)
  return found
}

/** How long a table's size answers for the shapes judged after it was read. */
const SIZE_KEPT_MS = 60_000

/**
 * Whether the tables that plans read whole are large, each table's size kept a minute: shapes
 * new one after another that read the same table ask for its size once, where each cost a round
 * trip of its own. A verdict is kept for the process lifetime, so a size a minute old is fresher
 * than any verdict.
 */
export class TableSizes {
  readonly #sizes = new BoundedCache<{ readonly rows: Promise<number>, readonly at: number }>(1_000)
  readonly #seqScanRows: number

  constructor (seqScanRows: number) {
    this.#seqScanRows = seqScanRows
  }

  /** Whether `scanned` has more rows than a sequential scan may read. */
  async large (db: Queryable, scanned: ScannedTable): Promise<boolean> {
    const key = tableKey(scanned)
    const kept = this.#sizes.get(key)
    if (kept !== undefined && Date.now() - kept.at < SIZE_KEPT_MS) return await kept.rows > this.#seqScanRows
    const read = rowsAtLeast(db, scanned, this.#seqScanRows)
    this.#sizes.set(key, { rows: read, at: Date.now() })
    // A failed read (a timeout, say) is not kept: the next shape reads the size again.
    read.catch(() => { if (this.#sizes.get(key)?.rows === read) this.#sizes.delete(key) })
    return await read > this.#seqScanRows
  }
}

/**
 * A table's row count as far as `limit` matters: the planner's statistics when the table was ever
 * analyzed, else a count that stops at `limit + 1` rows, so it costs little on any table.
 */
async function rowsAtLeast (db: Queryable, scanned: ScannedTable, limit: number): Promise<number> {
  const table = sql.ident(scanned.schema, scanned.table)
  const [stats] = await rows<{ reltuples: number }>(db, sql`SELECT c.reltuples::float8 AS reltuples FROM pg_class c
    JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = ${scanned.schema} AND c.relname = ${scanned.table}`)
  if (stats !== undefined && stats.reltuples >= 0) return stats.reltuples
  const [counted] = await rows<{ n: number }>(db, sql`SELECT count(*)::int AS n FROM (SELECT 1 FROM ${table} LIMIT ${limit + 1}) AS bounded`)
  return counted?.n ?? 0
}
