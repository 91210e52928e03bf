// Columns of records in SQL: each fetched field under its field name, and key conditions.
// Values come back as their JSON text (lib/db/types.ts); ETags are made by lib/serialize/record.ts.
import { sql, type Sql } from './sql.js'
import type { FieldModel, ResourceModel } from '../model/types.js'
import type { Selection } from '../model/selection.js'

export function columnOf (field: FieldModel): Sql {
  return sql.ident(field.column)
}

/**
 * The column qualified by its table: in ORDER BY an unqualified name would mean the output column
 * of the same name, which may be another expression.
 */
export function qualifiedColumnOf (model: ResourceModel, field: FieldModel): Sql {
  return sql`${model.table}.${sql.ident(field.column)}`
}

/**
 * The cast that gives a value its field type's JSON form when the column's own type would not:
 * a `bigint` field on an int4 column must still be a string, a `number` on numeric a number.
 */
export function jsonCast (field: FieldModel): Sql {
  const column = field.columnType
  switch (field.type) {
    case 'bigint': return column === 'int8' ? sql.empty : sql`::int8`
    case 'decimal': return column === 'numeric' ? sql.empty : sql`::numeric`
    case 'number': return column === 'numeric' || column === 'int8' ? sql`::float8` : sql.empty
    default: return sql.empty
  }
}

const kColumns = Symbol('recordColumns')

/** `"column" AS "field", ...`, each read in its field type's JSON form; built once per selection. */
export function recordColumns (fetch: Selection): Sql {
  return fetch.derive(kColumns, ({ model, fields }) =>
    sql.freeze(sql.join(fields.map((f) => sql`${qualifiedColumnOf(model, f)}${jsonCast(f)} AS ${sql.ident(f.name)}`))))
}

/** `"k1" = $1 AND "k2" = $2` for key parts given as text (PostgreSQL casts them to the column type). */
export function keyCondition (model: ResourceModel, parts: readonly string[]): Sql {
  return sql.join(model.key.map((f, i) => sql`${columnOf(f)} = ${parts[i]}`), sql` AND `)
}
