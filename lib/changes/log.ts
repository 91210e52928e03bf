// The change log's SQL (docs/changes.md): one table of row images in schema `tablegate_changes`,
// written in each write's own transaction (by the pipeline, or by a row trigger for writers outside
// tablegate), read in (transaction id, id) order up to the oldest running transaction, so no
// change is read before every change that could precede it has committed or rolled back.
import { sql, type Sql } from '../sql/sql.js'
import { query, rows, type Queryable } from '../db/query.js'
import { keyCondition } from '../sql/record.js'
import { offsetText } from '../sql/filter.js'
import type { ResourceModel } from '../model/types.js'
import { ORIGIN, type Position } from './position.js'

export const LOG = sql`"tablegate_changes"."log"`
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
 * resource has `changes`, and install each `trigger` resource's row trigger. A statement trigger on
 * the log sends one NOTIFY per transaction that wrote to it (PostgreSQL folds equal ones), at commit.
 */
export async function migrateChangeLog (db: Queryable, models: Iterable<Pick<ResourceModel, 'name' | 'table' | 'changes'>>): Promise<void> {
  await query(db, sql`CREATE SCHEMA IF NOT EXISTS "tablegate_changes"`)
  await query(db, sql`CREATE TABLE IF NOT EXISTS ${LOG} (
    tx xid8 NOT NULL DEFAULT pg_current_xact_id(),
    id bigint GENERATED ALWAYS AS IDENTITY,
    resource text NOT NULL,
    at timestamptz NOT NULL DEFAULT clock_timestamp(),
    before jsonb,
    after jsonb,
    PRIMARY KEY (tx, id))`)
  await query(db, sql`CREATE INDEX IF NOT EXISTS log_resource ON ${LOG} (resource, tx, id)`)
  await query(db, sql`CREATE INDEX IF NOT EXISTS log_at ON ${LOG} (at)`)
  // Where pruning has reached: a token before it may have lost changes (410 changes-expired).
  await query(db, sql`CREATE TABLE IF NOT EXISTS ${PRUNED} (only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row), tx xid8 NOT NULL, id bigint NOT NULL)`)
  await query(db, sql`CREATE OR REPLACE FUNCTION "tablegate_changes"."notify"() RETURNS trigger LANGUAGE plpgsql AS 'BEGIN PERFORM pg_notify(''tablegate_changes'', ''''); RETURN NULL; END'`)
  await query(db, sql`CREATE OR REPLACE TRIGGER "notify" AFTER INSERT ON ${LOG} FOR EACH STATEMENT EXECUTE FUNCTION "tablegate_changes"."notify"()`)
  await query(db, sql`CREATE OR REPLACE FUNCTION "tablegate_changes"."capture"() RETURNS trigger LANGUAGE plpgsql AS '
    BEGIN
      INSERT INTO "tablegate_changes"."log" (resource, before, after)
      VALUES (substr(TG_NAME, ${sql.int(TRIGGER_PREFIX.length + 1)}), CASE WHEN TG_OP <> ''INSERT'' THEN to_jsonb(OLD) END, CASE WHEN TG_OP <> ''DELETE'' THEN to_jsonb(NEW) END);
      RETURN NULL;
    END'`)
  for (const model of models) {
    if (model.changes !== 'trigger') continue
    await query(db, sql`CREATE OR REPLACE TRIGGER ${triggerName(model.name)} AFTER INSERT OR UPDATE OR DELETE ON ${model.table}
      FOR EACH ROW EXECUTE FUNCTION "tablegate_changes"."capture"()`)
  }
}

/**
 * Records one write of the pipeline: the image before (the lock's, as text) and the row as it now
 * stands, read by its key in the write's transaction (none after a hard delete).
 */
export async function recordChange (tx: Queryable, model: ResourceModel, key: readonly string[], before: string | undefined, hardDelete: boolean): Promise<void> {
  if (hardDelete) {
    await query(tx, sql`INSERT INTO ${LOG} (resource, before) VALUES (${model.name}, ${before ?? null}::jsonb)`)
    return
  }
  await query(tx, sql`INSERT INTO ${LOG} (resource, before, after) SELECT ${model.name}, ${before ?? null}::jsonb, to_jsonb(${model.table}.*) FROM ${model.table} WHERE ${keyCondition(model, key)}`)
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

interface WindowRow { horizon: string, waiting: boolean, pruned_tx: string | null, pruned_id: string | null, tx: string | null, id: string | null, resource: string | null }

function positionOf (tx: string, id: string): Position {
  return { tx: BigInt(tx), id: BigInt(id) }
}

/**
 * The changes after `from` that every reader may now take: those of transactions below the oldest
 * one still running (`pg_snapshot_xmin`), which have all ended, so none can appear before them later.
 * `resource` narrows it to one resource's (a catch-up); `upTo` caps it (another window's end).
 */
export async function readWindow (db: Queryable, from: Position, resource?: string, upTo?: Position): Promise<LogWindow> {
  const scope = resource === undefined ? sql.empty : sql` AND resource = ${resource}`
  const cap = upTo === undefined ? sql`tx < h.xmin` : sql`(tx, id) <= (${String(upTo.tx)}::xid8, ${String(upTo.id)}::int8)`
  const found = await rows<WindowRow>(db, sql`SELECT h.xmin::text AS horizon,
      EXISTS (SELECT 1 FROM ${LOG} WHERE tx >= h.xmin AND (tx, id) > (${String(from.tx)}::xid8, ${String(from.id)}::int8)) AS waiting,
      p.tx::text AS pruned_tx, p.id::text AS pruned_id, c.tx::text AS tx, c.id::text AS id, c.resource
    FROM (SELECT pg_snapshot_xmin(pg_current_snapshot()) AS xmin) AS h
    LEFT JOIN ${PRUNED} AS p ON true
    LEFT JOIN LATERAL (SELECT tx, id, resource FROM ${LOG} WHERE (tx, id) > (${String(from.tx)}::xid8, ${String(from.id)}::int8) AND ${cap}${scope}
      ORDER BY tx, id LIMIT ${sql.int(WINDOW_CHANGES + 1)}) AS c ON true`)
  const changes = found.filter((r) => r.tx !== null)
  const head = found[0]!
  const horizon: Position = upTo ?? { tx: BigInt(head.horizon), id: 0n }
  const pruned = head.pruned_tx === null ? ORIGIN : positionOf(head.pruned_tx, head.pruned_id!)
  if (changes.length <= WINDOW_CHANGES) {
    return { end: maxPosition(from, horizon), resources: new Set(changes.map((r) => r.resource!)), more: false, waiting: head.waiting, pruned }
  }
  // Too many: end after the last transaction wholly inside the first WINDOW_CHANGES, or after the
  // whole of a first transaction that is larger than that.
  const last = changes[WINDOW_CHANGES]!.tx!
  let kept = changes.slice(0, WINDOW_CHANGES).filter((r) => r.tx !== last)
  if (kept.length === 0) {
    const [end] = await rows<{ id: string }>(db, sql`SELECT max(id)::text AS id FROM ${LOG} WHERE tx = ${last}::xid8${scope}`)
    kept = [{ ...changes[0]!, id: end!.id }]
  }
  const tail = kept.at(-1)!
  return { end: positionOf(tail.tx!, tail.id!), resources: new Set(kept.map((r) => r.resource!)), more: true, waiting: head.waiting, pruned }
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
      last AS (SELECT tx, id FROM ${LOG}, h, locked WHERE locked.ok AND at < clock_timestamp() - ${offsetText(retentionMs)}::interval AND tx < h.xmin ORDER BY tx DESC, id DESC LIMIT 1),
      mark AS (INSERT INTO ${PRUNED} (tx, id) SELECT tx, id FROM last ON CONFLICT (only_row) DO UPDATE SET tx = excluded.tx, id = excluded.id
        WHERE (${PRUNED}.tx, ${PRUNED}.id) < (excluded.tx, excluded.id) RETURNING tx, id),
      gone AS (DELETE FROM ${LOG} USING mark WHERE (${LOG}.tx, ${LOG}.id) <= (mark.tx, mark.id) RETURNING 1)
    SELECT count(*)::int AS pruned FROM gone`)
  return done?.pruned ?? 0
}
