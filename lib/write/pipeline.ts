// The write pipeline: one create, update, delete or undelete, in the spec's order: tenant → body
// (prepareWrite, no database) → lock → access → If-Match → write → hooks (commitWrite, on a
// transaction it is given, so a batch can run hundreds in one). Nothing here commits or rolls
// back; the caller owns the transaction.
import { problem } from '../problems.js'
import { rows } from '../db/query.js'
import type { Queryable } from '../db/query.js'
import type { TablegateContext } from '../context.js'
import type { ResourceModel } from '../model/types.js'
import { keyText } from '../model/keys.js'
import { compileDelete, compileInsert, compileLock, compileSoftDelete, compileUpdate, compileVerify } from '../sql/write.js'
import { present, storedRecord, type RecordShape, type Row } from '../serialize/record.js'
import { invalidRecord, validateBody, type ColumnValues } from './validate-body.js'
import type { WriteHooks } from '../../hooks/registry.js'
import type { RecordValues, WriteOperation } from '../../hooks/types.js'
import type { AccessPlan, OperationAccess, RuleContext } from '../access/types.js'
import type { ValidateContext } from '../config/functions.js'
import { both, compileRowFilter, writeRows } from '../access/row-filter.js'
import { requireOperation, requireTenant } from '../access/require.js'
import type { CheckedFilter } from '../query/filter/checked.js'

export interface WriteRequest {
  readonly operation: WriteOperation
  readonly model: ResourceModel
  /** Key parts (decoded); absent on create. */
  readonly key?: readonly string[] | undefined
  readonly body?: unknown
  readonly ifMatch?: '*' | readonly string[] | undefined
}

export interface WriteContext {
  readonly ctx: TablegateContext
  /** The caller's access to this resource: required, so no write can skip it. */
  readonly access: AccessPlan
  readonly hooks: WriteHooks
}

export interface WriteOutcome {
  /** The record as the caller sees it after the write (the deleted record after a delete). */
  readonly record: RecordValues
  readonly etag: string
  /** The key as URL text. */
  readonly key: string
}

type StoredRow = Row & { __deleted: boolean }

function notFound (model: ResourceModel): never {
  throw problem('not-found', `No ${model.name} has this key.`)
}

function denied (detail: string): never {
  throw problem('access-denied', detail)
}

function checkPrecondition (operation: WriteOperation, ifMatch: WriteRequest['ifMatch'], current: string): void {
  if (ifMatch === undefined) {
    if (operation === 'update') throw problem('precondition-required', 'An update needs If-Match: send the record\'s etag (or * to overwrite any version).')
    return
  }
  if (ifMatch === '*' || ifMatch.includes(current)) return
  throw problem('precondition-failed', 'The record has changed since that etag was read: fetch it again and retry with its current etag.')
}

/** The record a write sends, as the caller sent it (JSON values, not bound parameters). */
function recordOf (values: ColumnValues, body: unknown, filled: ReadonlyMap<string, unknown>): RecordValues {
  const sent = (body ?? {}) as Record<string, unknown>
  return Object.fromEntries([...values.keys()].map((f) => [f.name, f.name in sent ? sent[f.name] : filled.get(f.name) ?? f.default]))
}

async function validateWithResource (model: ResourceModel, record: RecordValues, ctx: ValidateContext): Promise<void> {
  if (model.validate === undefined) return
  const issues = await model.validate(record, ctx)
  // Checked, not trusted: a JavaScript config's validate may return anything.
  if (Array.isArray(issues) && issues.length > 0) {
    invalidRecord(issues.map((i) => ({ field: String(i.field), code: String(i.code ?? 'invalid'), message: String(i.message) })))
  }
}

/** Runs the operation's record-level check; a filter it returns is settled later against the row as written. */
async function recordCheck (model: ResourceModel, access: OperationAccess & { allowed: true }, record: RecordValues, context: RuleContext): Promise<CheckedFilter | undefined> {
  if (access.check === undefined) return undefined
  const verdict = await access.check(record, context)
  if (verdict === false) denied(`You may not ${context.operation} this ${model.name} record.`)
  return verdict === true ? undefined : compileRowFilter(model, verdict.filter)
}

function outsideWritable (model: ResourceModel): never {
  denied(`The ${model.name} record as written would be outside what you may write.`)
}

/** The row a write returned; a `__verified` false means the row as written left the caller's filters. */
function written (model: ResourceModel, row: Row | undefined, check: CheckedFilter | undefined): Row {
  if (check !== undefined && row?.__verified !== true) outsideWritable(model)
  return row!
}

/** Settles a check-returned filter against the stored row before it is deleted for good. */
async function verifyStored (tx: Queryable, model: ResourceModel, key: readonly string[], tenant: string | undefined, filter: CheckedFilter | undefined): Promise<void> {
  if (filter === undefined) return
  const [match] = await rows(tx, compileVerify(model, key, tenant, filter))
  if (match === undefined) outsideWritable(model)
}

/** A write whose request is checked (steps 1 and 2): what remains needs the database. */
export interface PreparedWrite {
  readonly request: WriteRequest
  readonly allowed: OperationAccess & { allowed: true }
  readonly ruleContext: RuleContext
  readonly shape: RecordShape
  /** The columns the write sets, as bound values. */
  readonly values: ColumnValues
  /** The record as the caller sent it, for record checks. */
  readonly sent: RecordValues
}

/** Steps 1 and 2, which need no database: tenant, then the body and the resource's own rules. */
export async function prepareWrite (request: WriteRequest, context: WriteContext): Promise<PreparedWrite> {
  const { model, operation } = request
  const { ctx, access } = context
  const allowed = requireOperation(access, model, operation)
  const ruleContext: RuleContext = { ...access.context, operation }
  const shape: RecordShape = { model, select: access.readable, readable: access.readable }
  // 1. A tenant-scoped resource needs a caller with a tenant.
  requireTenant(model, ctx.tenant)
  if ((operation === 'undelete') && model.softDelete === undefined) {
    throw problem('invalid-parameter', `${model.name} has no soft delete: a deleted record is gone and cannot be undeleted.`, {
      errors: [{ parameter: 'undelete', message: 'not available on a resource without soft delete' }],
    })
  }
  // 2. The body: unknown, hidden, read-only and tenant fields refused; values checked; resource rules.
  let values: ColumnValues = new Map()
  let sent: RecordValues = {}
  if (operation === 'create' || operation === 'update') {
    const checked = validateBody(model, access.readable, access.writable, request.body, operation)
    // `.own` on create: the owner is the caller unless the body names one (which the rule then checks).
    const owner = operation === 'create' && access.ownerField !== undefined && !checked.has(access.ownerField) ? access.ownerField : undefined
    values = owner === undefined ? checked : new Map([...checked, [owner, ctx.user?.id ?? null]])
    sent = recordOf(values, request.body, new Map(owner === undefined ? [] : [[owner.name, ctx.user?.id ?? null]]))
    await validateWithResource(model, sent, { user: ruleContext.user, tenant: ruleContext.tenant, operation })
  }
  return { request, allowed, ruleContext, shape, values, sent }
}

/** Steps 3 to 5 on the transaction given: lock, access, If-Match, the write, the hooks. */
export async function commitWrite (prepared: PreparedWrite, context: WriteContext, tx: Queryable): Promise<WriteOutcome> {
  const { request, allowed, ruleContext, shape, values, sent } = prepared
  const { model, operation } = request
  const { ctx, access } = context
  if (operation === 'create') {
    const returned = await recordCheck(model, allowed, sent, ruleContext)
    const check = both(allowed.rows, returned)
    const created = written(model, (await rows<Row>(tx, compileInsert(shape, values, ctx.tenant, check)))[0], check)
    const record = present(shape, created)
    const key = keyText(model, created)
    await context.hooks.run({ resource: model.name, operation, key, before: undefined, after: record, ctx }, tx)
    return { record, etag: record.etag, key }
  }

  // 3. The stored row, locked; a row of another tenant, or outside the caller's filters, does not exist.
  const keyParts = request.key!
  const [locked] = await rows<StoredRow>(tx, compileLock(shape, keyParts, ctx.tenant, writeRows(access, allowed), allowed.check !== undefined))
  if (locked === undefined) notFound(model)
  if (locked.__deleted && operation !== 'undelete') notFound(model)
  if (!locked.__deleted && operation === 'undelete') {
    throw problem('conflict', `This ${model.name} is not deleted, so there is nothing to undelete.`)
  }
  const before = present(shape, locked)
  // 4. The record-level rule with the stored record (hidden fields included), then the precondition.
  const returned = await recordCheck(model, allowed, storedRecord(model, locked), ruleContext)
  checkPrecondition(operation, request.ifMatch, before.etag)

  // 5. The write, checked against the row as written, then the hooks in the same transaction.
  let after: RecordValues | undefined
  let record: RecordValues
  if (operation === 'update') {
    const check = both(allowed.rows, returned)
    record = values.size === 0 ? before : present(shape, written(model, (await rows<Row>(tx, compileUpdate(shape, keyParts, values, ctx.tenant, check)))[0], check))
    after = record
  } else if (operation === 'delete' && model.softDelete === undefined) {
    // The row will be gone: a filter the check returned is settled against it before the delete.
    await verifyStored(tx, model, keyParts, ctx.tenant, returned)
    record = present(shape, (await rows<Row>(tx, compileDelete(shape, keyParts, ctx.tenant)))[0]!)
    after = undefined
  } else {
    record = present(shape, written(model, (await rows<Row>(tx, compileSoftDelete(shape, keyParts, ctx.tenant, operation === 'delete', returned)))[0], returned))
    after = record
  }
  const key = keyText(model, locked)
  if (operation !== 'update' || values.size > 0) {
    await context.hooks.run({ resource: model.name, operation, key, before, after, ctx }, tx)
  }
  return { record, etag: record.etag as string, key }
}
