// `tablegate check`'s drift lines, both ways: a column the database has and no field serves, and a
// field whose column is gone or changed to a type the field does not fit. One line each, read in
// one catalog query for all the resources' tables; what a start refuses still fails the check after.
import { sql } from '../sql/sql.js'
import { rows, type Queryable } from '../db/query.js'
import { COMPATIBLE_PG_TYPES } from '../model/field-types.js'
import type { ResourceModel } from '../model/types.js'

interface ColumnRow { table: string, column: string, type: string, typeText: string }

export async function driftLines (db: Queryable, models: Iterable<ResourceModel>): Promise<string[]> {
  const list = [...models].filter((m) => m.present === undefined)
  const tables = [...new Set(list.map((m) => m.tableText))]
  if (tables.length === 0) return []
  const found = await rows<ColumnRow>(db, sql`
    SELECT t.name AS table, a.attname::text AS column, format_type(a.atttypid, a.atttypmod) AS "typeText",
           CASE WHEN bt.typtype = 'e' THEN 'enum' ELSE bt.typname::text END AS type
    FROM unnest(${tables}::text[]) AS t (name)
    JOIN pg_attribute a ON a.attrelid = to_regclass(t.name) AND a.attnum > 0 AND NOT a.attisdropped
    CROSS JOIN LATERAL (
      WITH RECURSIVE d (oid, kind, base) AS (
        SELECT ty.oid, ty.typtype, ty.typbasetype FROM pg_type ty WHERE ty.oid = a.atttypid
        UNION ALL
        SELECT b.oid, b.typtype, b.typbasetype FROM d JOIN pg_type b ON b.oid = d.base WHERE d.kind = 'd'
      )
      SELECT oid FROM d WHERE kind <> 'd'
    ) base
    JOIN pg_type bt ON bt.oid = base.oid
    ORDER BY t.name, a.attnum`)
  const columnsOf = new Map<string, ColumnRow[]>()
  for (const row of found) columnsOf.set(row.table, [...columnsOf.get(row.table) ?? [], row])
  const lines: string[] = []
  for (const model of [...list].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const columns = columnsOf.get(model.tableText)
    // A table that is gone is the start's refusal to name.
    if (columns === undefined) continue
    const path = `config.resources.${model.name}`
    const byName = new Map(columns.map((c) => [c.column, c]))
    for (const field of model.fields.values()) {
      const column = byName.get(field.column)
      if (field.managed === 'version' || field.managed === 'softDelete') continue
      if (column === undefined) lines.push(`drift: ${path}.fields.${field.name}: column '${field.column}' is gone from table ${model.tableText}`)
      else if (!COMPATIBLE_PG_TYPES[field.type].includes(column.type)) lines.push(`drift: ${path}.fields.${field.name}: column '${field.column}' of table ${model.tableText} is ${column.typeText} now, which a ${field.type} field does not fit`)
    }
    const served = new Set([...model.fields.values()].map((f) => f.column))
    for (const managed of [model.tenant, model.softDelete, model.version?.column]) if (managed !== undefined) served.add(managed)
    for (const column of columns) {
      if (!served.has(column.column)) lines.push(`drift: ${path}: column '${column.column}' (${column.typeText}) of table ${model.tableText} is served by no field`)
    }
  }
  return lines
}
