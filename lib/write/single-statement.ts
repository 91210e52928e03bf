// Writes that are one statement, atomic on their own, so they run without BEGIN and COMMIT:
// - a create with no row filter, no record check and no hooks is one INSERT;
// - an update that needs nothing of the stored row in Node (no hooks, no record check, a version
//   ETag this process knows, no trigger or rule that could rewrite the row past what the UPDATE
//   says) is one UPDATE carrying the lock's and If-Match's conditions in its WHERE. A row it does
//   not find is not an answer: the caller runs the full pipeline, which tells 404 from 403 from 412.
import { rows, type Queryable } from '../db/query.js'
import { keyText } from '../model/keys.js'
import { fieldsOf } from '../query/filter/checked.js'
import { writeRows } from '../access/row-filter.js'
import { compileGuardedUpdate } from '../sql/write.js'
import { present, versionField, versionOfEtag, type Row } from '../serialize/record.js'
import { commitWrite, type PreparedWrite, type WriteContext, type WriteOutcome } from './pipeline.js'

/** The versions `If-Match` stands for ('*': any), or undefined when one of its ETags is unknown here. */
function matchingVersions (prepared: PreparedWrite): readonly unknown[] | '*' | undefined {
  const { ifMatch, model } = prepared.request
  if (ifMatch === undefined || ifMatch === '*') return ifMatch
  const versions: unknown[] = []
  for (const etag of ifMatch) {
    const version = versionOfEtag(model, etag)
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
function staysInside (prepared: PreparedWrite): boolean {
  const { rows: filter } = prepared.allowed
  if (filter === undefined) return true
  const read = fieldsOf(filter)
  const version = versionField(prepared.request.model)
  if (version !== undefined && read.has(version)) return false
  for (const field of prepared.values.keys()) if (read.has(field)) return false
  return true
}

async function guardedUpdate (prepared: PreparedWrite, context: WriteContext, db: Queryable): Promise<WriteOutcome | undefined> {
  const { request, allowed, shape, values } = prepared
  const { model } = request
  if (model.version === undefined || model.rewritesUpdates || values.size === 0) return undefined
  if (allowed.check !== undefined || !staysInside(prepared)) return undefined
  const versions = matchingVersions(prepared)
  if (versions === undefined) return undefined
  const [row] = await rows<Row>(db, compileGuardedUpdate(shape, request.key!, values, context.ctx.tenant, writeRows(context.access, allowed), versions))
  if (row === undefined) return undefined
  const record = present(shape, row)
  return { record, etag: record.etag, key: keyText(model, row) }
}

/** The write as one statement on `db` (no transaction), or undefined when it needs the full pipeline. */
export async function writeInOneStatement (prepared: PreparedWrite, context: WriteContext, db: Queryable): Promise<WriteOutcome | undefined> {
  if (context.hooks.size > 0) return undefined
  const { operation } = prepared.request
  const { allowed } = prepared
  if (operation === 'create') return allowed.rows === undefined && allowed.check === undefined ? await commitWrite(prepared, context, db) : undefined
  return operation === 'update' ? await guardedUpdate(prepared, context, db) : undefined
}
