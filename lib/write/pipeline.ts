// The write pipeline: one create, update, delete or undelete on a transaction it is given (so a
// batch can run hundreds in one), in the spec's order: tenant → body → lock → access → If-Match →
// write → hooks. Nothing here commits or rolls back; the caller owns the transaction.
import { problem } from '../problems.js'
import { rows } from '../db/query.js'
import type { Tx } from '../db/transaction.js'
import type { TablegateContext } from '../context.js'
import type { FieldModel, ResourceModel } from '../model/types.js'
import { keyText } from '../model/keys.js'
import { compileDelete, compileInsert, compileLock, compileSoftDelete, compileUpdate, type RecordShape } from '../sql/write.js'
import { invalidRecord, validateBody, type ColumnValues, type FieldIssue } from './validate-body.js'
import type { WriteHooks } from '../../hooks/registry.js'
import type { RecordValues, WriteOperation } from '../../hooks/types.js'

export interface WriteRequest {
  readonly operation: WriteOperation
  readonly model: ResourceModel
  /** Key parts (decoded); absent on create. */
  readonly key?: readonly string[] | undefined
  readonly body?: unknown
  readonly ifMatch?: '*' | readonly string[] | undefined
}

/** What the caller may see and set; the access feature narrows these per caller. */
export interface CallerFields {
  readonly readable: readonly FieldModel[]
  readonly writable: readonly FieldModel[]
}

export interface WriteContext {
  readonly ctx: TablegateContext
  readonly fields: CallerFields
  readonly hooks: WriteHooks
  /** The access rule for this operation, run with the stored record (step 4). */
  readonly authorize?: ((operation: WriteOperation, stored: RecordValues | undefined) => Promise<void>) | undefined
}

export interface WriteOutcome {
  /** The record as the caller sees it after the write (the deleted record after a delete). */
  readonly record: RecordValues
  readonly etag: string
  /** The key as URL text. */
  readonly key: string
}

type StoredRow = Record<string, unknown> & { etag: string, __deleted: boolean }

function notFound (model: ResourceModel): never {
  throw problem('not-found', `No ${model.name} has this key.`)
}

function checkPrecondition (operation: WriteOperation, ifMatch: WriteRequest['ifMatch'], current: string): void {
  if (ifMatch === undefined) {
    if (operation === 'update') throw problem('precondition-required', 'An update needs If-Match: send the record\'s etag (or * to overwrite any version).')
    return
  }
  if (ifMatch === '*' || ifMatch.includes(current)) return
  throw problem('precondition-failed', 'The record has changed since that etag was read: fetch it again and retry with its current etag.')
}

async function validateWithResource (model: ResourceModel, values: ColumnValues, body: unknown, ctx: TablegateContext, operation: WriteOperation): Promise<void> {
  if (model.validate === undefined) return
  const record = Object.fromEntries([...values.keys()].map((f) => [f.name, (body as Record<string, unknown>)[f.name] ?? (f.hasDefault ? f.default : undefined)]))
  const issues = await model.validate(record, { user: ctx.user, tenant: ctx.tenant, operation }) as FieldIssue[] | undefined
  if (Array.isArray(issues) && issues.length > 0) {
    invalidRecord(issues.map((i) => ({ field: String(i.field), code: String(i.code ?? 'invalid'), message: String(i.message) })))
  }
}

function withoutLockColumns (row: StoredRow): RecordValues {
  const { __deleted: _deleted, ...record } = row
  return record
}

export async function runWrite (request: WriteRequest, context: WriteContext, tx: Tx): Promise<WriteOutcome> {
  const { model, operation } = request
  const { ctx, fields } = context
  const shape: RecordShape = { model, select: fields.readable, readable: fields.readable }
  // 1. A tenant-scoped resource needs a caller with a tenant.
  if (model.tenant !== undefined && ctx.tenant === undefined) {
    throw problem('tenant-required', `${model.name} is kept per tenant, and this caller has no tenant.`)
  }
  if ((operation === 'undelete') && model.softDelete === undefined) {
    throw problem('invalid-parameter', `${model.name} has no soft delete: a deleted record is gone and cannot be undeleted.`, {
      errors: [{ parameter: 'undelete', message: 'not available on a resource without soft delete' }],
    })
  }
  // 2. The body: unknown, hidden, read-only and tenant fields refused; values checked; resource rules.
  let values: ColumnValues = new Map()
  if (operation === 'create' || operation === 'update') {
    values = validateBody(model, fields.readable, fields.writable, request.body, operation)
    await validateWithResource(model, values, request.body, ctx, operation)
  }

  if (operation === 'create') {
    await context.authorize?.(operation, undefined)
    const [created] = await rows<Record<string, unknown> & { etag: string }>(tx, compileInsert(shape, values, ctx.tenant))
    const record = created!
    const key = keyText(model, record)
    await context.hooks.run({ resource: model.name, operation, key, before: undefined, after: record, ctx }, tx)
    return { record, etag: record.etag, key }
  }

  // 3. The stored row, locked; another tenant's row does not exist for this caller.
  const keyParts = request.key!
  const [locked] = await rows<StoredRow>(tx, compileLock(shape, keyParts, ctx.tenant))
  if (locked === undefined) notFound(model)
  if (locked.__deleted && operation !== 'undelete') notFound(model)
  if (!locked.__deleted && operation === 'undelete') {
    throw problem('conflict', `This ${model.name} is not deleted, so there is nothing to undelete.`)
  }
  const before = withoutLockColumns(locked)
  // 4. The access rule with the stored record, then the precondition.
  await context.authorize?.(operation, before)
  checkPrecondition(operation, request.ifMatch, locked.etag)

  // 5. The write, then the hooks in the same transaction.
  let after: RecordValues | undefined
  let record: RecordValues
  if (operation === 'update') {
    record = values.size === 0 ? before : (await rows(tx, compileUpdate(shape, keyParts, values, ctx.tenant)))[0]!
    after = record
  } else if (operation === 'delete' && model.softDelete === undefined) {
    record = (await rows(tx, compileDelete(shape, keyParts, ctx.tenant)))[0]!
    after = undefined
  } else {
    record = (await rows(tx, compileSoftDelete(shape, keyParts, ctx.tenant, operation === 'delete')))[0]!
    after = record
  }
  const key = keyText(model, before)
  if (operation !== 'update' || values.size > 0) {
    await context.hooks.run({ resource: model.name, operation, key, before, after, ctx }, tx)
  }
  return { record, etag: record.etag as string, key }
}
