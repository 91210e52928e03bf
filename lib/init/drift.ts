// `tablegate check`'s drift lines, both ways: a column the database has and no field serves (saying
// so when it fails every create), a field whose column is gone or changed to a type the field does
// not fit, and a constraint that contradicts a field option (contradictions.ts). One line each, read
// in two catalog queries for all the resources' tables; what a start refuses still fails the check after.
import { sql } from '../sql/sql.js'
import { rows, type Queryable } from '../db/query.js'
import { COMPATIBLE_PG_TYPES } from '../model/field-types.js'
import type { ResourceConfig } from '../config/schema.js'
import type { ResourceModel } from '../model/types.js'
import { contradictions, type DriftCheck, type DriftColumn } from './contradictions.js'

interface ColumnRow extends DriftColumn { table: string }

/** The drift lines of the models (built from `resources`, whose options they compare). */
export async function driftLines (db: Queryable, models: Iterable<ResourceModel>, resources: Readonly<Record<string, ResourceConfig>>): Promise<string[]> {
  const list = [...models].filter((m) => m.present === undefined)
  const tables = [...new Set(list.map((m) => m.tableText))]
  if (tables.length === 0) return []
  const found = await rows<ColumnRow>(db, sql`
    SELECT t.name AS table, a.attname::text AS column, format_type(a.atttypid, a.atttypmod) AS "typeText",
           CASE WHEN bt.typtype = 'e' THEN 'enum' ELSE bt.typname::text END AS type,
           CASE WHEN chain.domains THEN chain.typmod ELSE a.atttypmod END AS typmod,
           (SELECT array_agg(e.enumlabel::text ORDER BY e.enumsortorder) FROM pg_enum e WHERE e.enumtypid = bt.oid) AS labels,
           a.attnotnull OR chain.not_null AS "notNull",
           a.atthasdef OR a.attidentity <> '' OR a.attgenerated <> '' AS filled,
           chain.checks AS "domainChecks"
    FROM unnest(${tables}::text[]) AS t (name)
    JOIN pg_attribute a ON a.attrelid = to_regclass(t.name) AND a.attnum > 0 AND NOT a.attisdropped
    -- A domain over a domain: its base at the end of the chain, its typmod on the nearest domain that
    -- has one, NOT NULL and CHECKs on any of them.
    CROSS JOIN LATERAL (
      WITH RECURSIVE d (oid, kind, base, typmod, not_null, depth) AS (
        SELECT ty.oid, ty.typtype, ty.typbasetype, ty.typtypmod, ty.typnotnull, 0 FROM pg_type ty WHERE ty.oid = a.atttypid
        UNION ALL
        SELECT b.oid, b.typtype, b.typbasetype, b.typtypmod, b.typnotnull, d.depth + 1 FROM d JOIN pg_type b ON b.oid = d.base WHERE d.kind = 'd'
      )
      SELECT (SELECT oid FROM d WHERE kind <> 'd') AS base,
             EXISTS (SELECT 1 FROM d WHERE kind = 'd') AS domains,
             coalesce((SELECT typmod FROM d WHERE kind = 'd' AND typmod >= 0 ORDER BY depth LIMIT 1), -1) AS typmod,
             coalesce((SELECT bool_or(not_null) FROM d WHERE kind = 'd'), false) AS not_null,
             (SELECT array_agg(ARRAY[format_type(d.oid, NULL), k.conname::text, pg_get_constraintdef(k.oid)] ORDER BY d.depth, k.conname)
                FROM d JOIN pg_constraint k ON k.contypid = d.oid AND k.contype = 'c' WHERE d.kind = 'd') AS checks
    ) chain
    JOIN pg_type bt ON bt.oid = chain.base
    ORDER BY t.name, a.attnum`)
  const checks = await rows<DriftCheck & { table: string }>(db, sql`
    SELECT t.name AS table, k.conname::text AS name, pg_get_constraintdef(k.oid) AS definition
    FROM unnest(${tables}::text[]) AS t (name)
    JOIN pg_constraint k ON k.conrelid = to_regclass(t.name) AND k.contype = 'c'
    ORDER BY t.name, k.conname`)
  const columnsOf = new Map<string, ColumnRow[]>()
  for (const row of found) columnsOf.set(row.table, [...columnsOf.get(row.table) ?? [], row])
  const checksOf = new Map<string, DriftCheck[]>()
  for (const check of checks) checksOf.set(check.table, [...checksOf.get(check.table) ?? [], check])
  const lines: string[] = []
  for (const model of [...list].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const columns = columnsOf.get(model.tableText)
    // A table that is gone is the start's refusal to name.
    if (columns === undefined) continue
    const path = `config.resources.${model.name}`
    const byName = new Map(columns.map((c) => [c.column, c]))
    const noCreate = resources[model.name]?.access?.create === false
    for (const field of model.fields.values()) {
      const column = byName.get(field.column)
      // Managed columns take their type from the column (the tenant's, a field to staff only, too).
      if (field.managed === 'version' || field.managed === 'softDelete' || field === model.tenantField) continue
      if (column === undefined) lines.push(`drift: ${path}.fields.${field.name}: column '${field.column}' is gone from table ${model.tableText}`)
      else if (!COMPATIBLE_PG_TYPES[field.type].includes(column.type)) lines.push(`drift: ${path}.fields.${field.name}: column '${field.column}' of table ${model.tableText} is ${column.typeText} now, which a ${field.type} field does not fit`)
      else {
        const options = resources[model.name]?.fields[field.name]
        if (options !== undefined) for (const line of contradictions({ path, table: model.tableText, field, options, column, checks: checksOf.get(model.tableText) ?? [], owner: model.owner === field.name, noCreate })) lines.push(`drift: ${line}`)
      }
    }
    const served = new Set([...model.fields.values()].map((f) => f.column))
    for (const managed of [model.tenant, model.softDelete, model.version?.column]) if (managed !== undefined) served.add(managed)
    for (const column of columns) {
      if (served.has(column.column)) continue
      const unserved = `drift: ${path}: column '${column.column}' (${column.typeText}) of table ${model.tableText} is served by no field`
      lines.push(!noCreate && column.notNull && !column.filled ? `${unserved}, and it is NOT NULL without a default, so every create fails: serve it as a required field, or give the column a default` : unserved)
    }
  }
  return lines
}
