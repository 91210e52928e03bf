// To-many embeds (docs/relations.md, "Embedding"): each is one correlated subquery in its parent's
// select list, so a page with them stays one statement. The subquery reads the children the caller
// may read (the target's own scope, live rows only) in the relation's order, at most pageSize + 1
// of them (the one more says whether a token follows), and makes them one array of records,
// `ARRAY(SELECT ROW(…) … ORDER BY …)` (in the relation's order: the rows come sorted already, so
// the ORDER BY costs no sort), each child a ROW of its values by position: its fetched fields, its
// own embeds' columns, then the order values (what its page token carries) that no fetched field
// already gives; its `by` is left out where it is the parent's key (childLayout says where each
// value is). PostgreSQL runs the subquery only for the rows the page returns: it evaluates such
// select-list entries after the sort and the LIMIT.
//
// The array comes as PostgreSQL's text, each value its type's own text, which the reader parses as
// a read of the field parses it (lib/serialize/embed-many.ts): what the statement builds is the
// values' text alone, where JSON cost PostgreSQL a third more and Node a generic parse
// (docs/decisions.md, "To-many embeds at the floor's cost").
import { sql, type Sql } from './sql.js'
import { jsonCast, qualifiedColumnOf } from './record.js'
import { scopeConditions } from './filter.js'
import type { EmbedPlan, ToManyEmbed } from '../plan/types.js'
import type { FieldModel, FieldType, ResourceModel } from '../model/types.js'

/**
 * A fetched field whose value in a child's record is its column's own text, so an order term on
 * it needs no value of its own: one read without a cast (a cast bigint or number may differ).
 */
function givesOrderText (field: FieldModel): boolean {
  return jsonCast(field) === sql.empty
}

/**
 * Types whose value is the same text for any two values `=` finds equal, read alike: the integers
 * and uuids. Text is not (a nondeterministic collation finds 'A' = 'a'), nor numeric ('1.0' = '1').
 */
const EXACT_EQUALITY: ReadonlySet<FieldType> = new Set<FieldType>(['integer', 'bigint', 'uuid'])

/**
 * Whether each child's `by` value is its parent's key as the parent's row holds it, so the child's
 * record leaves it out and the reader takes the parent's: `by` is fetched, and it and the key are
 * of one type, on one column type, with no cast (the link `by = key` then makes them one value).
 */
function byFromParent (embed: ToManyEmbed): boolean {
  const by = embed.relation.by
  const key = embed.parent.key[0]!
  return embed.fetch.fields.includes(by) && EXACT_EQUALITY.has(by.type) && by.type === key.type &&
    by.columnType === key.columnType && jsonCast(by) === sql.empty && jsonCast(key) === sql.empty
}

/** Where a child's values are in its record, shared by the statement and its reader (lib/serialize/embed-many.ts). */
export interface ChildLayout {
  /** Each fetched field's place; undefined for `by` where the parent's key gives it (byFromParent). */
  readonly fields: ReadonlyArray<number | undefined>
  /** The place of the first of the embeds' columns, which follow one another. */
  readonly outputsAt: number
  /** Each order value's place: a fetched field's that gives its text, or its own, after the embeds' columns. */
  readonly order: readonly number[]
  /** Which order values have a place of their own. */
  readonly ownOrder: readonly boolean[]
  /** How many values a child has. */
  readonly length: number
}

export function childLayout (embed: ToManyEmbed, outputs: number): ChildLayout {
  const skip = byFromParent(embed) ? embed.fetch.fields.indexOf(embed.relation.by) : -1
  let next = 0
  const fields = embed.fetch.fields.map((_, i) => i === skip ? undefined : next++)
  const outputsAt = next
  next += outputs
  const ownOrder: boolean[] = []
  const order = embed.order.map((term) => {
    const at = embed.fetch.fields.indexOf(term.field)
    const given = at >= 0 && givesOrderText(term.field) ? fields[at] : undefined
    ownOrder.push(given === undefined)
    return given ?? next++
  })
  return { fields, outputsAt, order, ownOrder, length: next }
}

/** What a parent's statement writes for embeds of a row it reads as `parent.table`: their columns and their joins. */
export interface EmbedsSql {
  readonly columns: (parent: ResourceModel, embeds: readonly EmbedPlan[]) => Sql
  readonly joins: (parent: ResourceModel, embeds: readonly EmbedPlan[]) => Sql
  /** The names of an embed's columns in the row it adds them to. */
  readonly outputs: (embed: EmbedPlan) => readonly string[]
}

/** ` AS "__s1"` and friends: the names of an embed's subquery parts, by its number. */
function named (embed: ToManyEmbed, prefix: string): Sql {
  return sql.ident(`${prefix}${embed.column.slice(3)}`)
}

/** `ARRAY(SELECT ROW(...) FROM (SELECT ... LIMIT n) AS "__s1" ORDER BY ...) AS "__e1"`: a to-many embed as a column of its parent's select list. */
export function toManyColumn (parent: ResourceModel, embed: ToManyEmbed, nested: EmbedsSql): Sql {
  const target: ResourceModel = { ...embed.model, table: named(embed, '__t') }
  const rows = named(embed, '__s')
  const values: Sql[] = []
  const columns: Sql[] = []
  const outputs = embed.embeds.flatMap(nested.outputs)
  const layout = childLayout(embed, outputs.length)
  embed.fetch.fields.forEach((field, i) => {
    if (layout.fields[i] === undefined) return
    const name = sql.ident(`${embed.column}_${i}`)
    columns.push(sql`${qualifiedColumnOf(target, field)}${jsonCast(field)} AS ${name}`)
    values.push(sql`${rows}.${name}`)
  })
  for (const output of outputs) values.push(sql`${rows}.${sql.ident(output)}`)
  const ordered: Sql[] = []
  embed.order.forEach((term, i) => {
    const name = sql.ident(`${embed.column}_o${i}`)
    columns.push(sql`${qualifiedColumnOf(target, term.field)} AS ${name}`)
    if (layout.ownOrder[i] === true) values.push(sql`${rows}.${name}`)
    ordered.push(sql`${rows}.${name} ${sql.keyword(term.direction)}`)
  })
  const link = sql`${qualifiedColumnOf(target, embed.relation.by)} = ${qualifiedColumnOf(parent, parent.key[0]!)}`
  const conditions = [link, ...scopeConditions(target, embed.scope, target.table)]
  const order = sql.join(embed.order.map((term) => sql`${qualifiedColumnOf(target, term.field)} ${sql.keyword(term.direction)}`))
  const children = sql`SELECT ${sql.join(columns)}${nested.columns(target, embed.embeds)} FROM ${embed.model.table} AS ${target.table}${nested.joins(target, embed.embeds)} WHERE ${sql.join(conditions, sql` AND `)} ORDER BY ${order} LIMIT ${sql.int(embed.pageSize + 1)}`
  return sql`, ARRAY(SELECT ROW(${sql.join(values)}) FROM (${children}) AS ${rows} ORDER BY ${sql.join(ordered)}) AS ${sql.ident(embed.column)}`
}
