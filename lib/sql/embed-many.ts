// To-many embeds (docs/relations.md, "Embedding"): each is one correlated subquery in its parent's
// select list, so a page with them stays one statement. The subquery reads the children the caller
// may read (the target's own scope, live rows only) in the relation's order, at most pageSize + 1
// of them (the one more says whether a token follows), and aggregates them into one JSON array,
// each child an array of its values by position: its fetched fields, its own embeds' columns, then
// the order values as text (what its page token carries) that no fetched value already gives as
// that text; its `by` is left out where it is the parent's key (childLayout says where each value
// is). A function takes at most 100 arguments, so a child of more values goes as arrays of up to
// 100 (CHUNK), which the reader puts end to end. PostgreSQL runs the subquery only for the rows
// the page returns: it evaluates such select-list entries after the sort and the LIMIT.
//
// JSON would give int8 and numeric as numbers and timestamps in another form than a read does, so
// values of those types go in as PostgreSQL's text and are parsed as a read parses them
// (lib/serialize/embed.ts); text, integers, booleans and json go in as themselves.
import { sql, type Sql } from './sql.js'
import { jsonCast, qualifiedColumnOf } from './record.js'
import { scopeConditions } from './filter.js'
import type { EmbedPlan, ToManyEmbed } from '../plan/types.js'
import type { FieldModel, FieldType, ResourceModel } from '../model/types.js'

/** The most values one json_build_array of a child takes. */
export const CHUNK = 100

/** Field types whose values a JSON array carries as their text (each parsed back as a read parses it). */
const AS_TEXT: ReadonlySet<FieldType> = new Set<FieldType>(['bigint', 'decimal', 'number', 'date', 'timestamp', 'uuid'])

export function carriedAsText (field: FieldModel): boolean {
  return AS_TEXT.has(field.type)
}

/**
 * A fetched field whose value in a child's array is the text `column::text` gives, so an order
 * term on it needs no value of its own: the types carried as text, read without a cast, and
 * int2/int4 integers and text/varchar strings, which JSON carries as PostgreSQL writes them (a
 * char(n) loses its padding in a cast, a cast bigint or number may round differently).
 */
function givesOrderText (field: FieldModel): boolean {
  if (carriedAsText(field)) return jsonCast(field) === sql.empty
  const column = field.columnType ?? ''
  return field.type === 'integer' ? column === 'int2' || column === 'int4' : field.type === 'string' && (column === 'text' || column === 'varchar')
}

/**
 * Types whose value is the same text for any two values `=` finds equal, read alike: the integers
 * and uuids. Text is not (a nondeterministic collation finds 'A' = 'a'), nor numeric ('1.0' = '1').
 */
const EXACT_EQUALITY: ReadonlySet<FieldType> = new Set<FieldType>(['integer', 'bigint', 'uuid'])

/**
 * Whether each child's `by` value is its parent's key as the parent's row holds it, so the child's
 * array leaves it out and the reader takes the parent's: `by` is fetched, and it and the key are
 * of one type, on one column type, with no cast (the link `by = key` then makes them one value).
 */
function byFromParent (embed: ToManyEmbed): boolean {
  const by = embed.relation.by
  const key = embed.parent.key[0]!
  return embed.fetch.fields.includes(by) && EXACT_EQUALITY.has(by.type) && by.type === key.type &&
    by.columnType === key.columnType && jsonCast(by) === sql.empty && jsonCast(key) === sql.empty
}

/** Where a child's values are in its JSON array, shared by the statement and its reader (lib/serialize/embed-many.ts). */
export interface ChildLayout {
  /** Each fetched field's place; undefined for `by` where the parent's key gives it (byFromParent). */
  readonly fields: ReadonlyArray<number | undefined>
  /** The place of the first of the embeds' columns, which follow one another. */
  readonly outputsAt: number
  /** Each order value's place: a fetched field's that gives its text, or its own, after the embeds' columns. */
  readonly order: readonly number[]
  /** Which order values have a place of their own, as `::text`. */
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

/** Whether a child of `values` values goes as arrays of up to CHUNK (else as one flat array). */
export function chunked (values: number): boolean {
  return values > CHUNK
}

/** What a parent's statement writes for embeds of a row it reads as `parent.table`: their columns and their joins. */
export interface EmbedsSql {
  readonly columns: (parent: ResourceModel, embeds: readonly EmbedPlan[]) => Sql
  readonly joins: (parent: ResourceModel, embeds: readonly EmbedPlan[]) => Sql
  /** The names of an embed's columns in the row it adds them to. */
  readonly outputs: (embed: EmbedPlan) => readonly string[]
}

/**
 * The fields behind an embed's columns that hold a field's value, by column name: what a child's
 * JSON array carries as text. Other columns (a to-one's presence, a to-many's array) go as they are.
 */
export function embedValueFields (embeds: readonly EmbedPlan[], into = new Map<string, FieldModel>()): Map<string, FieldModel> {
  for (const embed of embeds) {
    if (embed.kind === 'many') continue
    embed.fetch.fields.forEach((field, i) => into.set(`${embed.column}_${i}`, field))
    embedValueFields(embed.embeds, into)
  }
  return into
}

/** ` AS "__s1"` and friends: the names of an embed's subquery parts, by its number. */
function named (embed: ToManyEmbed, prefix: string): Sql {
  return sql.ident(`${prefix}${embed.column.slice(3)}`)
}

/** `(SELECT json_agg(...) FROM (SELECT ... LIMIT n) AS "__s1") AS "__e1"`: a to-many embed as a column of its parent's select list. */
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
    columns.push(sql`${qualifiedColumnOf(target, field)}${jsonCast(field)}${carriedAsText(field) ? sql`::text` : sql.empty} AS ${name}`)
    values.push(sql`${rows}.${name}`)
  })
  const valueFields = embedValueFields(embed.embeds)
  for (const output of outputs) {
    const field = valueFields.get(output)
    values.push(sql`${rows}.${sql.ident(output)}${field !== undefined && carriedAsText(field) ? sql`::text` : sql.empty}`)
  }
  const ordered: Sql[] = []
  embed.order.forEach((term, i) => {
    const name = sql.ident(`${embed.column}_o${i}`)
    columns.push(sql`${qualifiedColumnOf(target, term.field)} AS ${name}`)
    if (layout.ownOrder[i] === true) values.push(sql`${rows}.${name}::text`)
    ordered.push(sql`${rows}.${name} ${sql.keyword(term.direction)}`)
  })
  const link = sql`${qualifiedColumnOf(target, embed.relation.by)} = ${qualifiedColumnOf(parent, parent.key[0]!)}`
  const conditions = [link, ...scopeConditions(target, embed.scope, target.table)]
  const order = sql.join(embed.order.map((term) => sql`${qualifiedColumnOf(target, term.field)} ${sql.keyword(term.direction)}`))
  const children = sql`SELECT ${sql.join(columns)}${nested.columns(target, embed.embeds)} FROM ${embed.model.table} AS ${target.table}${nested.joins(target, embed.embeds)} WHERE ${sql.join(conditions, sql` AND `)} ORDER BY ${order} LIMIT ${sql.int(embed.pageSize + 1)}`
  let child = sql`json_build_array(${sql.join(values)})`
  if (chunked(values.length)) {
    const chunks: Sql[] = []
    for (let i = 0; i < values.length; i += CHUNK) chunks.push(sql`json_build_array(${sql.join(values.slice(i, i + CHUNK))})`)
    child = sql`json_build_array(${sql.join(chunks)})`
  }
  return sql`, (SELECT json_agg(${child} ORDER BY ${sql.join(ordered)}) FROM (${children}) AS ${rows}) AS ${sql.ident(embed.column)}`
}
