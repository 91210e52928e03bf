// Writes that are one statement, atomic on their own, so they run without BEGIN and COMMIT:
// - a create with no row filter, no record check and no write hook is one INSERT;
// - an update that needs nothing of the stored row in Node (no write hook, no record check, an
//   If-Match whose ETags carry the version, no trigger or rule that could rewrite the row past
//   what the UPDATE says) is one UPDATE carrying the lock's and If-Match's conditions in its
//   WHERE. Any process can take it: the ETag itself says which version it stands for. A row it
//   does not find is not an answer: the caller runs the full pipeline, which tells 404 from 403
//   from 412.
// A resource with a change log takes the same paths: its log row is written by the same statement
// (lib/sql/write.ts, `logged`), so the write and its record commit or fail together.
import { rows, type Queryable } from '../db/query.js'
import { keyText } from '../model/keys.js'
import { fieldsOf } from '../query/filter/checked.js'
import { compileGuardedUpdate } from '../sql/write.js'
import type { Row } from '../serialize/record.js'
import type { WritePlan } from '../plan/types.js'
import { insertRecord, outcomeOf, type RunContext, type WriteOutcome } from './pipeline.js'

/**
 * The versions `If-Match` stands for ('*': any), or undefined when one of its ETags does not say
 * (or it names none: only weak tags), which the locked pipeline then answers.
 */
function matchingVersions (plan: WritePlan, context: RunContext): readonly string[] | '*' | undefined {
  const { ifMatch, model, key } = plan
  if (ifMatch === undefined || ifMatch === '*') return ifMatch
  if (ifMatch.length === 0) return undefined
  const versions: string[] = []
  for (const etag of ifMatch) {
    const version = context.services.etags.versionOf(model, key!, etag)
    if (version === undefined) return undefined
    versions.push(version)
  }
  return versions
}

/**
 * Whether the row as written is sure to stay inside the update rule's filter: the WHERE clause has
 * checked the stored row, and the update changes no field the filter reads (nor the version,
 * which every update changes).
 */
function staysInside (plan: WritePlan): boolean {
  const { rows: filter } = plan.access
  if (filter === undefined) return true
  const read = fieldsOf(filter)
  const version = plan.model.versionField
  if (version !== undefined && read.has(version)) return false
  for (const field of plan.values.keys()) if (read.has(field)) return false
  return true
}

async function guardedUpdate (plan: WritePlan, context: RunContext, db: Queryable): Promise<WriteOutcome | undefined> {
  const { model } = plan
  const version = model.versionField
  if (version === undefined || model.rewritesUpdates || plan.values.size === 0) return undefined
  // A caller who cannot read the version holds ETags that hide it: only the lock can compare them.
  if (!plan.readable.includes(version)) return undefined
  if (plan.access.check !== undefined || !staysInside(plan)) return undefined
  const versions = matchingVersions(plan, context)
  if (versions === undefined) return undefined
  const [row] = await rows<Row>(db, compileGuardedUpdate(plan, plan.scope, versions))
  if (row === undefined) return undefined
  return outcomeOf(plan, context, row, keyText(model, row))
}

/** The write as one statement on `db` (no transaction), or undefined when it needs the full pipeline. */
export async function writeInOneStatement (plan: WritePlan, context: RunContext, db: Queryable): Promise<WriteOutcome | undefined> {
  if (plan.hooked) return undefined
  if (plan.operation === 'create') {
    return plan.access.rows === undefined && plan.access.check === undefined ? await insertRecord(plan, context, db, undefined) : undefined
  }
  return plan.operation === 'update' ? await guardedUpdate(plan, context, db) : undefined
}
