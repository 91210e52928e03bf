// The select list of a record: each field read as its JSON representation under its field name,
// plus `etag`, computed by PostgreSQL from the row itself (so lists need no extra query).
import { sql, type Sql } from './sql.js'
import { readExpression } from '../model/field-types.js'
import type { FieldModel, ResourceModel } from '../model/types.js'

export function columnOf (field: FieldModel): Sql {
  return sql.ident(field.column)
}

/**
 * The column qualified by its table: in ORDER BY an unqualified name would mean the output column
 * of the same name, which is the text form (so ids would sort 1, 10, 2).
 */
export function qualifiedColumnOf (model: ResourceModel, field: FieldModel): Sql {
  return sql`${model.table}.${sql.ident(field.column)}`
}

export function readOf (field: FieldModel): Sql {
  return readExpression(field.type, columnOf(field))
}

/**
 * ETag: with a version column, a hash of the resource, the key and the column's exact text (so no
 * two records share one); otherwise a hash of the key and every field the caller may read.
 */
export function etagExpression (model: ResourceModel, readable: readonly FieldModel[]): Sql {
  const keyParts = sql.join(model.key.map(readOf))
  const source = model.version !== undefined
    ? sql`json_build_array(${model.name}::text, ${keyParts}, ${readExpression(model.version.kind === 'integer' ? 'bigint' : 'timestamp', sql.ident(model.version.column))})`
    : sql`json_build_array(${model.name}::text, ${keyParts}, ${sql.join(readable.map(readOf))})`
  return sql`'"' || left(encode(sha256(convert_to(${source}::text, 'UTF8')), 'hex'), 32) || '"'`
}

/** `expr AS "field", ..., etag AS "etag"` for the selected fields. */
export function recordSelect (model: ResourceModel, selected: readonly FieldModel[], readable: readonly FieldModel[]): Sql {
  return sql.join([
    ...selected.map((f) => sql`${readOf(f)} AS ${sql.ident(f.name)}`),
    sql`${etagExpression(model, readable)} AS "etag"`,
  ])
}

/** `"k1" = $1 AND "k2" = $2` for key parts given as text (PostgreSQL casts them to the column type). */
export function keyCondition (model: ResourceModel, parts: readonly string[]): Sql {
  return sql.join(model.key.map((f, i) => sql`${columnOf(f)} = ${parts[i]}`), sql` AND `)
}
