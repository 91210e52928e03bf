// PostgreSQL's not-null violation (23502) of a create, told as the caller may hear it (an update
// meets none: a field on a NOT NULL column refuses null before). The database names the column;
// the answer names it only as the caller knows it: a field they read by its name, a column no
// field serves by its own (a config that leaves out a NOT NULL column without a default, which no
// caller can send), and a hidden field or the tenant column not at all.
import { rows, type Queryable } from '../db/query.js'
import { problem, type Problem } from '../problems.js'
import type { Sql } from '../sql/sql.js'
import type { Row } from '../serialize/record.js'
import type { WritePlan } from '../plan/types.js'
import { tableNameParts } from '../model/table-name.js'

interface NotNullError { code: '23502', schema?: unknown, table?: unknown, column?: unknown }

function isNotNull (err: unknown): err is NotNullError {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === '23502'
}

/** Whether PostgreSQL's error is about the plan's own table, not one a trigger or a hook wrote. */
function onTable (err: NotNullError, plan: WritePlan): boolean {
  const parts = tableNameParts(plan.model.tableText)
  return err.table === parts.at(-1) && (parts.length === 1 || err.schema === parts[0])
}

/** The problem for a not-null violation of the plan's table; undefined for any other error. */
export function notNullProblem (err: unknown, plan: WritePlan): Problem | undefined {
  if (!isNotNull(err) || typeof err.column !== 'string' || !onTable(err, plan)) return undefined
  const { model } = plan
  const column = err.column
  const field = model.fieldList.find((f) => f.column === column)
  if (field !== undefined && plan.readable.includes(field)) {
    const message = field.readOnly
      ? `${field.name} is read-only, and the table holds no record without it: its column needs a default.`
      : `${field.name} is required: the table holds no record without it.`
    return problem('invalid-record', message, { errors: [{ field: field.name, code: 'required', message }] })
  }
  if (field !== undefined || column === model.tenant) return problem('invalid-record', 'A value the table requires is missing, and it is not one you can send.')
  return problem('invalid-record', `The table requires a value in its column '${column}', which no field serves: no record can be created until the config serves it or the column has a default.`)
}

/** A create's INSERT; a not-null violation of its table becomes the caller's 400. */
export async function insertRows<T extends Row = Row> (plan: WritePlan, db: Queryable, statement: Sql): Promise<T[]> {
  try {
    return await rows<T>(db, statement)
  } catch (err) {
    throw notNullProblem(err, plan) ?? err
  }
}
