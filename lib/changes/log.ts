// The change log's SQL (docs/changes.md): one table of row images in schema `tablegate_changes`,
// written in each write's own transaction (by the pipeline's write statement itself,
// lib/sql/write.ts `logged`, or by a row trigger for writers outside tablegate), read in
// (transaction id, id) order up to the oldest running transaction, so no change is read before
// every change that could precede it has committed or rolled back.
import { sql, type Sql } from '../sql/sql.js'
import { CHANGE_LOG } from '../sql/change-log.js'
import { query, rows, type Queryable } from '../db/query.js'
import { offsetText } from '../sql/filter.js'
import type { ResourceModel } from '../model/types.js'
import { ORIGIN, type Position } from './position.js'

const PRUNED = sql`"tablegate_changes"."pruned"`
export const CHANNEL = 'tablegate_changes'

const TRIGGER_PREFIX = 'tablegate_changes_'

/**
 * The trigger a `trigger`-captured resource's table carries, named by the resource (the config
 * check keeps the name within PostgreSQL's 63 bytes): the capture function reads the resource from
 * the trigger's name, so no name is ever written into SQL text as a literal (the one builder binds
 * values, and DDL takes none).
 */
function triggerName (resource: string): Sql {
  return sql.ident(TRIGGER_PREFIX + resource)
}

/**
 * The schema, idempotent: `tablegate migrate` and a start with `migrateOnStart` run it when any
 * resource has `changes`, and install each `trigger` resource's row trigger, which also sends a
 * NOTIFY (PostgreSQL folds a transaction's equal ones into one, at commit). The pipeline's own
 * writes send none in their transaction: a NOTIFY makes every notifying commit of the cluster
 * wait on one lock, which cut logged writes to a third at ten clients; the hub announces them
 * after the commit instead (./hub.ts, `written`).
 */
export async function migrateChangeLog (db: Queryable, models: Iterable<Pick<ResourceModel, 'name' | 'table' | 'changes'>>): Promise<void> {
  await query(db, sql`CREATE SCHEMA IF NOT EXISTS "tablegate_changes"`)
  await query(db, sql`CREATE TABLE IF NOT EXISTS ${CHANGE_LOG} (
    tx xid8 NOT NULL DEFAULT pg_current_xact_id(),
    id bigint GENERATED ALWAYS AS IDENTITY,
    resource text NOT NULL,
    at timestamptz NOT NULL DEFAULT clock_timestamp(),
    before jsonb,
    after jsonb,
    PRIMARY KEY (tx, id))`)
  await query(db, sql`CREATE INDEX IF NOT EXISTS log_resource ON ${CHANGE_LOG} (resource, tx, id)`)
  // No index on `at`: pruning's plan never used one (its bound is clock_timestamp() less the
  // retention, unknown when planned, so it walks the key backwards from the horizon), and each cost
  // every logged write about 6 µs of PostgreSQL time (docs/decisions.md, "The logged write").
  await query(db, sql`DROP INDEX IF EXISTS "tablegate_changes"."log_at"`)
  // No statistics of the images: nothing is ever planned on them, and sorting a sample of jsonb
  // values was three quarters of each ANALYZE of a busy log (250,000 changes: 220-260 ms, 53 without).
  const [images] = await rows<{ n: number }>(db, sql`SELECT count(*)::int AS n FROM pg_attribute WHERE attrelid = 'tablegate_changes.log'::regclass AND attname IN ('before', 'after') AND attstattarget IS DISTINCT FROM 0`)
  if (images!.n > 0) await query(db, sql`ALTER TABLE ${CHANGE_LOG} ALTER COLUMN before SET STATISTICS 0, ALTER COLUMN after SET STATISTICS 0`)
  // Where pruning has reached: a token before it may have lost changes (410 changes-expired).
  await query(db, sql`CREATE TABLE IF NOT EXISTS ${PRUNED} (only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row), tx xid8 NOT NULL, id bigint NOT NULL)`)
  await query(db, sql`DROP TRIGGER IF EXISTS "notify" ON ${CHANGE_LOG}`)
  await query(db, sql`CREATE OR REPLACE FUNCTION "tablegate_changes"."capture"() RETURNS trigger LANGUAGE plpgsql AS '
    BEGIN
      INSERT INTO "tablegate_changes"."log" (resource, before, after)
      VALUES (substr(TG_NAME, ${sql.int(TRIGGER_PREFIX.length + 1)}), CASE WHEN TG_OP <> ''INSERT'' THEN to_jsonb(OLD) END, CASE WHEN TG_OP <> ''DELETE'' THEN to_jsonb(NEW) END);
      PERFORM pg_notify(''tablegate_changes'', '''');
      RETURN NULL;
    END'`)
  for (const model of models) {
    if (model.changes !== 'trigger') continue
    await query(db, sql`CREATE OR REPLACE TRIGGER ${triggerName(model.name)} AFTER INSERT OR UPDATE OR DELETE ON ${model.table}
      FOR EACH ROW EXECUTE FUNCTION "tablegate_changes"."capture"()`)
  }
}

/** Wakes every process that LISTENs, in a transaction of its own: sent after a write has committed. */
export async function announceChanges (db: Queryable): Promise<void> {
  await query(db, sql`SELECT pg_notify(${CHANNEL}, '')`)
}

/** A window of the log: where it ends, the resources with changes in it, and what is left. */
export interface LogWindow {
  readonly end: Position
  readonly resources: ReadonlySet<string>
  /** The window stopped short of the horizon (too many changes): read again at once. */
  readonly more: boolean
  /** Committed changes wait past the horizon for an older transaction: read again soon. */
  readonly waiting: boolean
  /** Where pruning has reached: a reader before it may have lost changes. */
  readonly pruned: Position
}

/** At most this many changes a window takes, more only to end a transaction's changes together. */
export const WINDOW_CHANGES = 1000

interface WindowRow {
  horizon: string
  waiting_at: string | null
  pruned_tx: string | null
  pruned_id: string | null
  tx: string | null
  id: string | null
  resource: string | null
  at: string | null
}

type ChangeRow = WindowRow & { tx: string, id: string, resource: string, at: string }

function positionOf (tx: string, id: string): Position {
  return { tx: BigInt(tx), id: BigInt(id) }
}

/**
 * How many of `changes` (whole transactions, in id order) a window may take without telling a
 * transaction before one held back past the horizon that changed a row earlier. A window tells its
 * transactions by their last change's time (./evaluate.ts); one held back is told in a later
 * window, so no transaction whose last change is later than a held-back one's may go first: it
 * stays back too, and so, in turn, does any later in id order. Returns the count kept.
 */
function beforeHeldBack (changes: readonly ChangeRow[], heldBackAt: string): number {
  const lastAt = new Map<string, string>()
  for (const change of changes) if ((lastAt.get(change.tx) ?? '') < change.at) lastAt.set(change.tx, change.at)
  const txs = [...lastAt]
  let bound = heldBackAt
  let kept = txs.length
  for (;;) {
    const first = txs.slice(0, kept).findIndex(([, at]) => at > bound)
    if (first < 0) break
    for (const [, at] of txs.slice(first, kept)) if (at < bound) bound = at
    kept = first
  }
  const keptTxs = new Set(txs.slice(0, kept).map(([tx]) => tx))
  return changes.filter((c) => keptTxs.has(c.tx)).length
}

/**
 * The changes after `from` that every reader may now take: those of transactions below the oldest
 * one still running (`pg_snapshot_xmin`), which have all ended, so none can appear before them later,
 * and none after a committed transaction still held back that changed a row earlier (beforeHeldBack).
 * `resource` narrows it to one resource's (a catch-up); `upTo` caps it (another window's end, which
 * has held back what it had to).
 */
export async function readWindow (db: Queryable, from: Position, resource?: string, upTo?: Position): Promise<LogWindow> {
  const scope = resource === undefined ? sql.empty : sql` AND resource = ${resource}`
  const after = sql`(tx, id) > (${String(from.tx)}::xid8, ${String(from.id)}::int8)`
  const cap = upTo === undefined ? sql`tx < h.xmin` : sql`(tx, id) <= (${String(upTo.tx)}::xid8, ${String(upTo.id)}::int8)`
  const heldBack = upTo === undefined
    ? sql`(SELECT min(w.tx_at) FROM (SELECT max(at) AS tx_at FROM ${CHANGE_LOG} WHERE tx >= h.xmin AND ${after} GROUP BY tx) AS w)`
    : sql`NULL::timestamptz`
  const found = await rows<WindowRow>(db, sql`SELECT h.xmin::text AS horizon, ${heldBack} AS waiting_at,
      p.tx::text AS pruned_tx, p.id::text AS pruned_id, c.tx::text AS tx, c.id::text AS id, c.resource, c.at
    FROM (SELECT pg_snapshot_xmin(pg_current_snapshot()) AS xmin) AS h
    LEFT JOIN ${PRUNED} AS p ON true
    LEFT JOIN LATERAL (SELECT tx, id, resource, at FROM ${CHANGE_LOG} WHERE ${after} AND ${cap}${scope}
      ORDER BY tx, id LIMIT ${sql.int(WINDOW_CHANGES + 1)}) AS c ON true`)
  let changes = found.filter((r): r is ChangeRow => r.tx !== null)
  const head = found[0]!
  const waiting = head.waiting_at !== null
  const pruned = head.pruned_tx === null ? ORIGIN : positionOf(head.pruned_tx, head.pruned_id!)
  const window = (end: Position, kept: readonly ChangeRow[], more: boolean): LogWindow =>
    ({ end, resources: new Set(kept.map((r) => r.resource)), more, waiting, pruned })
  let more = false
  if (changes.length > WINDOW_CHANGES) {
    // Too many: the transactions wholly inside the first WINDOW_CHANGES, or the whole of a first
    // transaction that is larger than that.
    const last = changes[WINDOW_CHANGES]!.tx
    more = true
    changes = changes.slice(0, WINDOW_CHANGES).filter((r) => r.tx !== last)
    if (changes.length === 0) {
      const whole = await rows<ChangeRow>(db, sql`SELECT tx::text AS tx, id::text AS id, resource, at FROM ${CHANGE_LOG} WHERE tx = ${last}::xid8${scope} ORDER BY id`)
      changes = whole
    }
  }
  const kept = waiting ? beforeHeldBack(changes, head.waiting_at!) : changes.length
  if (kept < changes.length) {
    // Held back from the first transaction that must wait: every change before it is taken.
    return window(kept === 0 ? from : { tx: BigInt(changes[kept]!.tx), id: 0n }, changes.slice(0, kept), false)
  }
  if (more) {
    const tail = changes.at(-1)!
    return window(positionOf(tail.tx, tail.id), changes, true)
  }
  const horizon: Position = upTo ?? { tx: BigInt(head.horizon), id: 0n }
  return window(maxPosition(from, horizon), changes, false)
}

function maxPosition (a: Position, b: Position): Position {
  return a.tx > b.tx || (a.tx === b.tx && a.id > b.id) ? a : b
}

/** Where pruning has reached: a reader before it may have lost changes. */
export async function prunedMark (db: Queryable): Promise<Position> {
  const [found] = await rows<{ tx: string, id: string }>(db, sql`SELECT tx::text AS tx, id::text AS id FROM ${PRUNED}`)
  return found === undefined ? ORIGIN : positionOf(found.tx, found.id)
}

/** Where a reader starts that wants the changes from now on: before every transaction still running. */
export async function horizonOf (db: Queryable): Promise<Position> {
  const [found] = await rows<{ xmin: string }>(db, sql`SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS xmin`)
  return { tx: BigInt(found!.xmin), id: 0n }
}

/**
 * Deletes the changes older than the retention that every reader has been able to take (below the
 * horizon), and moves the pruned mark past them; one process at a time.
 */
export async function pruneLog (db: Queryable, retentionMs: number): Promise<number> {
  const [done] = await rows<{ pruned: number }>(db, sql`WITH locked AS (SELECT pg_try_advisory_xact_lock(hashtext(${'tablegate.changes.prune'})) AS ok),
      h AS (SELECT pg_snapshot_xmin(pg_current_snapshot()) AS xmin),
      last AS (SELECT tx, id FROM ${CHANGE_LOG}, h, locked WHERE locked.ok AND at < clock_timestamp() - ${offsetText(retentionMs)}::interval AND tx < h.xmin ORDER BY tx DESC, id DESC LIMIT 1),
      mark AS (INSERT INTO ${PRUNED} (tx, id) SELECT tx, id FROM last ON CONFLICT (only_row) DO UPDATE SET tx = excluded.tx, id = excluded.id
        WHERE (${PRUNED}.tx, ${PRUNED}.id) < (excluded.tx, excluded.id) RETURNING tx, id),
      gone AS (DELETE FROM ${CHANGE_LOG} USING mark WHERE (${CHANGE_LOG}.tx, ${CHANGE_LOG}.id) <= (mark.tx, mark.id) RETURNING 1)
    SELECT count(*)::int AS pruned FROM gone`)
  return done?.pruned ?? 0
}
