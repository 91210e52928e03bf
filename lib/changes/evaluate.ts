// One caller's question of the change log, in SQL: for each change of a window, whether the row
// before and the row after are among what the caller's list with their `filter` would show (the
// same scope and filter compilers a list uses, run on each image as a row of the table's type), and
// the record after, as that list would show it (`permissions` included where the list has them). The type follows from the two answers; a row the
// caller saw on neither side is no event, and its key never leaves the database.
import { sql, compile, type Sql } from '../sql/sql.js'
import { rows, type Queryable } from '../db/query.js'
import { compileFilter, scopeConditions } from '../sql/filter.js'
import { jsonCast } from '../sql/record.js'
import { embedsOn, permissionColumns } from '../sql/read.js'
import { keyText } from '../model/keys.js'
import type { ResourceModel } from '../model/types.js'
import type { ListPlan } from '../plan/types.js'
import type { Row } from '../serialize/record.js'
import { pageRecords } from '../read/answer.js'
import type { ReadServices } from '../read/execute.js'
import { CHANGE_LOG } from '../sql/change-log.js'
import type { ChangeTokens, Position, Resume } from './position.js'

export type ChangeType = 'created' | 'updated' | 'entered' | 'left' | 'deleted'

/** One change as one caller reads it; `record` only where the row is in their view after it. */
export interface ChangeEvent {
  readonly type: ChangeType
  readonly key: string
  readonly record?: Row
  readonly batch: string
  readonly time: string
  /** Where a reader resumes once it has this event. */
  readonly resume: Resume
}

const IMAGE = sql.ident('__image')

/** The resource as the image's alias names it, so every compiler qualifies its columns with that. */
function onImage (model: ResourceModel): ResourceModel {
  return { ...model, table: IMAGE }
}

function conditionsOn (plan: ListPlan): Sql {
  const model = onImage(plan.model)
  const conditions = scopeConditions(model, plan.scope, IMAGE)
  if (plan.filter !== undefined) conditions.push(compileFilter(model, plan.filter, IMAGE))
  return conditions.length === 0 ? sql`true` : sql.join(conditions, sql` AND `)
}

/** Whether a field the caller can read differs between the two images. */
function readableChange (plan: ListPlan): Sql {
  const values = (image: Sql): Sql => sql.join(plan.readable.map((f) => sql`${image} -> ${f.column}::text`))
  return sql`(ROW(${values(sql`c.before`)}) IS DISTINCT FROM ROW(${values(sql`c.after`)}))`
}

/** Whether an image is a soft-deleted row (the log keeps them; the feed tells them as deleted). */
function deletedImage (model: ResourceModel, image: Sql): Sql {
  return model.softDelete === undefined ? sql`false` : sql`(${image} ->> ${model.softDelete}::text) IS NOT NULL`
}

/** The changes after `from` up to `to` (positions in the log), past the rank `after` in the window's order. */
export interface Window {
  readonly from: Position
  readonly to: Position
  readonly after?: number | undefined
}

/**
 * The window's changes in the order they are told: transaction by transaction, each at the time
 * of its last change, then by id. Transaction ids are handed out at a transaction's first write,
 * not at its commit, so two transactions that wrote one row can have ids in the other order than
 * their writes; the later writer wrote after the earlier committed, so its last change is later.
 * The rank is each change's place in that order among all the resource's changes of the window,
 * whoever reads it: an event's token names its window and rank, and reads on from there.
 */
function rankedWindow (model: ResourceModel, window: Window): Sql {
  const written = sql`SELECT l.tx, l.id, l.at, l.before, l.after, max(l.at) OVER (PARTITION BY l.tx) AS tx_at FROM ${CHANGE_LOG} AS l
    WHERE l.resource = ${model.name}
      AND (l.tx, l.id) > (${String(window.from.tx)}::xid8, ${String(window.from.id)}::int8)
      AND (l.tx, l.id) <= (${String(window.to.tx)}::xid8, ${String(window.to.id)}::int8)`
  return sql`SELECT w.*, row_number() OVER (ORDER BY w.tx_at, w.tx, w.id) AS rank FROM (${written}) AS w`
}

/** What a caller asks of each change: their verdicts on both images, the record after. Equal for callers who ask the same. */
interface Asked {
  readonly was: Sql
  readonly now: Sql
  readonly changed: Sql
  readonly keys: Sql
}

function asked (plan: ListPlan): Asked {
  const model = plan.model
  const image = onImage(model)
  const rowType = sql`NULL::${model.table}`
  const conditions = conditionsOn(plan)
  const embeds = plan.embeds.length === 0 ? undefined : embedsOn(image, plan.embeds)
  const columns = plan.fetch.fields.map((f) => sql`, ${IMAGE}.${sql.ident(f.column)}${jsonCast(f)} AS ${sql.ident(f.name)}`)
  return {
    was: sql`SELECT true AS "__in" FROM jsonb_populate_record(${rowType}, c.before) AS ${IMAGE} WHERE c.before IS NOT NULL AND ${conditions}`,
    now: sql`SELECT true AS "__in"${sql.join(columns, sql.empty)}${permissionColumns(image, plan.permissions)}${embeds?.columns ?? sql.empty}
      FROM jsonb_populate_record(${rowType}, c.after) AS ${IMAGE}${embeds?.joins ?? sql.empty} WHERE c.after IS NOT NULL AND ${conditions}`,
    changed: readableChange(plan),
    keys: sql.join(model.key.map((f, i) => sql`, "__key".${sql.ident(f.column)}${jsonCast(f)} AS ${sql.ident(`__k${i}`)}`), sql.empty),
  }
}

/**
 * The statement: the window's changes of the resource, each with the caller's verdict on both
 * images, the key, and the record after. Both images are read as rows of the table's own type
 * (jsonb_populate_record), so a column the log has not seen reads as NULL.
 */
function compileChanges (plan: ListPlan, window: Window): Sql {
  const model = plan.model
  const rowType = sql`NULL::${model.table}`
  const { was, now, changed, keys } = asked(plan)
  return sql`SELECT c.tx::text AS "__tx", c.id::text AS "__id", c.rank::int AS "__rank", c.at AS "__at",
      "__was"."__in" IS NOT NULL AS "__was_in", "__now"."__in" IS NOT NULL AS "__is_in",
      (c.before IS NULL OR ${deletedImage(model, sql`c.before`)}) AS "__was_absent",
      (c.after IS NULL OR ${deletedImage(model, sql`c.after`)}) AS "__is_absent"${keys}, "__now".*
    FROM (${rankedWindow(model, window)}) AS c
    LEFT JOIN LATERAL (${was}) AS "__was" ON true
    LEFT JOIN LATERAL (${now}) AS "__now" ON true
    LEFT JOIN LATERAL jsonb_populate_record(${rowType}, coalesce(c.after, c.before)) AS "__key" ON true
    WHERE c.rank > ${window.after ?? 0}
      AND ("__was"."__in" OR "__now"."__in")
      AND NOT ("__was"."__in" IS NOT NULL AND "__now"."__in" IS NOT NULL AND NOT ${changed})
    ORDER BY c.rank`
}

/** What makes two callers' questions one: what the statement asks of each change, its text and its values. */
export function questionKey (plan: ListPlan): string {
  const { was, now, changed, keys } = asked(plan)
  const { text, values } = compile(sql.join([was, now, changed, keys], sql` | `))
  return `${plan.model.name}\0${text}\0${JSON.stringify(values)}`
}

interface ChangeRow extends Row {
  __tx: string
  __id: string
  __rank: number
  __at: string
  __was_in: boolean
  __is_in: boolean
  __was_absent: boolean
  __is_absent: boolean
}

function typeOf (row: ChangeRow): ChangeType {
  if (row.__was_in && row.__is_in) return 'updated'
  if (row.__is_in) return row.__was_absent ? 'created' : 'entered'
  return row.__is_absent ? 'deleted' : 'left'
}

/** The caller's events of the window's changes, in the log's order. */
export async function readChanges (db: Queryable, plan: ListPlan, window: Window, tokens: ChangeTokens, services: ReadServices): Promise<ChangeEvent[]> {
  const found = await rows<ChangeRow>(db, compileChanges(plan, window))
  const model = plan.model
  const types = found.map(typeOf)
  const shown = found.filter((_, i) => types[i] !== 'left' && types[i] !== 'deleted')
  const records = await pageRecords(plan, shown, services)
  let next = 0
  return found.map((row, i) => {
    const type = types[i]!
    const key = keyText(model, Object.fromEntries(model.key.map((f, k) => [f.name, row[`__k${k}`]])))
    const tx = BigInt(row.__tx)
    const event = { type, key, batch: tokens.batchOf(tx), time: row.__at, resume: { position: window.to, within: { from: window.from, rank: row.__rank } } }
    return type === 'left' || type === 'deleted' ? event : { ...event, record: records[next++] }
  })
}
