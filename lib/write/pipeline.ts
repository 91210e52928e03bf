// The write pipeline: one create, update, delete or undelete, in the order docs/resources.md ("The
// write pipeline") gives: operation and tenant (admit, lib/access/require.ts, before the plan) →
// body (prepareWrite, no database) → lock → record rule → If-Match → write → hooks (commitWrite,
// on a transaction it is given, so a batch can run hundreds in one). The executors read the plan
// alone, never the access plan again. Nothing here commits or rolls back; the caller owns the
// transaction.
import { problem, recordNotFound } from '../problems.js'
import { rows, type Queryable } from '../db/query.js'
import type { TablegateContext } from '../context.js'
import type { ResourceModel } from '../model/types.js'
import type { Selection, Selections } from '../model/selection.js'
import { keyText } from '../model/keys.js'
import { compileDelete, compileInsert, compileLock, compileReferenceCheck, compileSoftDelete, compileUpdate, compileVerify } from '../sql/write.js'
import { storedRecord, type Row } from '../serialize/record.js'
import type { Etags } from '../serialize/etag.js'
import { namedTenant, requireTenantParent } from './tenants.js'
import { invalidRecord, validateBody } from './validate-body.js'
import { insertRows } from './not-null.js'
import type { ValidateContext } from '../config/functions.js'
import type { WriteHooks } from '../../hooks/registry.js'
import type { RecordWriteOperation } from '../../hooks/types.js'
import type { AccessPlan, OperationAccess, RuleContext } from '../access/types.js'
import { both, readRows, writeRows, type RuleFilters } from '../access/row-filter.js'
import type { CheckedFilter } from '../query/filter/checked.js'
import type { ColumnValues, ReferenceCheck, WritePlan } from '../plan/types.js'
import { needsStoredRecord } from '../plan/read.js'
import { NO_EMBEDS, planReadMask, type ReadMask } from '../plan/embed.js'
import type { BoundedCache } from '../cache.js'

export interface WriteRequest {
  readonly operation: RecordWriteOperation
  /** The operation as `admit` let the caller do it: a write is planned only once it is admitted. */
  readonly admitted: OperationAccess & { readonly allowed: true }
  /** Key parts (decoded); absent on create. */
  readonly key?: readonly string[] | undefined
  readonly body?: unknown
  readonly ifMatch?: '*' | readonly string[] | undefined
  /** Read the record's `permissions` back with it, as a get decides them (a batch answers with them). */
  readonly withPermissions?: boolean
  /** The `fields` mask of the answer, paths included, checked as a get checks it; undefined: every readable field. */
  readonly fields?: unknown
  /** No body answers (`Prefer: return=minimal`): `fields` is checked, and nothing is embedded. */
  readonly minimal?: boolean
}

/** What writes need of the app. */
export interface WriteServices {
  readonly hooks: WriteHooks
  readonly selections: Selections
  readonly etags: Etags
  readonly ruleFilters: RuleFilters
  /** `fields` masks that embed, by caller and text, shared with reads. */
  readonly readMasks?: BoundedCache<ReadMask>
  /** The server's UPDATE can return the row before (lib/db/server-version.ts, `returnsOldRows`). */
  readonly returnsOldRows: boolean
}

/** What planning a write needs: the request's context, the caller's access to the resource, the app. */
export interface WriteContext {
  readonly ctx: TablegateContext
  /** The caller's access to this resource: required, so no write can skip it. */
  readonly access: AccessPlan
  readonly services: WriteServices
}

/** What running a planned write needs beside its plan: the app, and the request's context the hooks hear. */
export type RunContext = Pick<WriteContext, 'ctx' | 'services'>

export interface WriteOutcome {
  /** The row as written (as deleted, after a delete): at least the caller's readable fields. */
  readonly row: Row
  readonly etag: string
  /** The key as URL text. */
  readonly key: string
  /** What the answer carries of the row (the plan's). */
  readonly select: Selection
  /** The row of the answer's embeds (./embeds.ts), where `fields` names any. */
  readonly embedded?: Row
}

type StoredRow = Row & { __deleted: boolean }

function notFound (model: ResourceModel): never {
  throw recordNotFound(model.name)
}

function denied (detail: string): never {
  throw problem('access-denied', detail)
}

function checkPrecondition (operation: RecordWriteOperation, ifMatch: WritePlan['ifMatch'], current: string): void {
  if (ifMatch === undefined) {
    if (operation === 'update') throw problem('precondition-required', 'An update needs If-Match: send the record\'s etag (or * to overwrite any version).')
    return
  }
  if (ifMatch === '*' || ifMatch.includes(current)) return
  throw problem('precondition-failed', 'The record has changed since that etag was read: fetch it again and retry with its current etag.')
}

/** The record a write sends, as the caller sent it (JSON values, not bound parameters). */
function recordOf (values: ColumnValues, body: unknown, filled: ReadonlyMap<string, unknown>): Record<string, unknown> {
  const sent = (body ?? {}) as Record<string, unknown>
  return Object.fromEntries([...values.keys()].map((f) => [f.name, Object.hasOwn(sent, f.name) ? sent[f.name] : filled.get(f.name) ?? f.default]))
}

async function validateWithResource (model: ResourceModel, record: Readonly<Record<string, unknown>>, ctx: ValidateContext): Promise<void> {
  if (model.validate === undefined) return
  const issues: unknown = await model.validate(record, ctx)
  // Checked, not trusted: a JavaScript config's validate may return anything, and anything but a
  // list of issues is a bug to report (a 500), not a record to let through.
  if (!Array.isArray(issues)) throw new TypeError(`config.resources.${model.name}.validate returned ${issues === null ? 'null' : typeof issues}, not an array of issues ([] when the record is valid)`)
  if (issues.length > 0) {
    invalidRecord((issues as Array<{ field?: unknown, code?: unknown, message?: unknown }>).map((i) => ({ field: String(i.field), code: String(i.code ?? 'invalid'), message: String(i.message) })))
  }
}

/** Runs the operation's record-level check; a filter it returns is settled later against the row as written. */
async function recordCheck (plan: WritePlan, record: Readonly<Record<string, unknown>>, filters: RuleFilters): Promise<CheckedFilter | undefined> {
  const { access, model, ruleContext } = plan
  if (access.check === undefined) return undefined
  const verdict = await access.check(record, ruleContext)
  if (verdict === false) denied(`You may not ${ruleContext.operation} this ${model.name} record.`)
  return verdict === true ? undefined : filters.compile(model, verdict.filter)
}

function outsideWritable (model: ResourceModel): never {
  denied(`The ${model.name} record as written would be outside what you may write.`)
}

/** The row a write returned; a `__verified` false means the row as written left the caller's filters. */
export function written (model: ResourceModel, row: Row | undefined, check: CheckedFilter | undefined): Row {
  if (check !== undefined && row?.__verified !== true) outsideWritable(model)
  return row!
}

/** Settles a check-returned filter against the stored row before it is deleted for good. */
async function verifyStored (tx: Queryable, plan: WritePlan, filter: CheckedFilter | undefined): Promise<void> {
  if (filter === undefined) return
  const [match] = await rows(tx, compileVerify(plan, filter))
  if (match === undefined) outsideWritable(plan.model)
}

/**
 * The reference values a write sets, each with what the caller can read of the resource it names,
 * in `tenant` (staff across tenants: in the tenant their create names, else in any).
 */
function referencesOf (values: ColumnValues, ctx: TablegateContext, tenant: string | undefined, everyTenant: boolean): ReferenceCheck[] {
  const references: ReferenceCheck[] = []
  for (const [field, value] of values) {
    if (field.references === undefined || value === null) continue
    const target = ctx.access(field.references)
    references.push({ field, value, target: target.model, readable: target.operations.read.allowed, rows: readRows(target), tenant, everyTenant })
  }
  return references
}

/**
 * A write that names records the caller cannot read wrote nothing: each such field is refused as
 * if the record did not exist, whatever the reason (none, filtered out, another tenant's, deleted).
 */
async function refusedReferences (plan: WritePlan, db: Queryable): Promise<never> {
  const [held] = await rows<Record<string, boolean>>(db, compileReferenceCheck(plan))
  const refused = plan.references.filter((_, i) => held?.[String(i)] !== true)
  // Another write may have changed a record between the two statements: then every one is named.
  return invalidRecord((refused.length > 0 ? refused : plan.references).map(({ field, target }) =>
    ({ field: field.name, code: 'not-found', message: `${field.name} names no ${target.name} record.` })))
}

/** The row a write returned; none, where it names other records, means one of them is out of the caller's reach. */
async function returnedRow (plan: WritePlan, found: Row | undefined, db: Queryable): Promise<Row | undefined> {
  return found === undefined && plan.references.length > 0 ? await refusedReferences(plan, db) : found
}

/** Step 2: the body checked against the caller's fields, the owner filled in, `validate` run. */
async function checkedBody (operation: 'create' | 'update', body: unknown, allowed: WritePlan['access'], ruleContext: RuleContext, context: WriteContext): Promise<Pick<WritePlan, 'values' | 'sent' | 'references' | 'tenant'>> {
  const { ctx, access } = context
  const { model } = access
  const checked = validateBody(model, access.readable, operation === 'create' ? access.writableOnCreate : access.writable, body, operation)
  // `.own` on create: the owner is the caller unless the body names one (which the rule then checks).
  const owner = operation === 'create' && access.ownerField !== undefined && !checked.has(access.ownerField) ? access.ownerField : undefined
  const values = owner === undefined ? checked : new Map([...checked, [owner, ctx.user?.id ?? null]])
  requireTenantParent(model, values, operation)
  // Staff across tenants name the tenant of a create (./tenants.ts); everyone else's is their own.
  const staff = access.context.allTenants === true
  const tenant = staff ? namedTenant(model, values) : ctx.tenant
  // What the caller sent, as a record: only a record rule or `validate` reads it.
  let sent: Record<string, unknown> = {}
  if (allowed.check !== undefined || model.validate !== undefined) {
    sent = recordOf(values, body, new Map(owner === undefined ? [] : [[owner.name, ctx.user?.id ?? null]]))
  }
  await validateWithResource(model, sent, { user: ruleContext.user, tenant: ruleContext.tenant, operation })
  return { values, sent, tenant, references: referencesOf(values, ctx, tenant, staff && tenant === undefined) }
}

/** Another create or update like `plan` (same caller, resource and operation), with its own body: only step 2 is new. */
export async function prepareLike (plan: WritePlan, body: unknown, context: WriteContext): Promise<WritePlan> {
  const operation = plan.operation === 'create' ? 'create' : 'update'
  return { ...plan, ...(await checkedBody(operation, body, plan.access, plan.ruleContext, context)) }
}

/** Step 2 of an admitted write, which needs no database: the body and the resource's own rules. */
export async function prepareWrite (request: WriteRequest, context: WriteContext): Promise<WritePlan> {
  const { operation, admitted: allowed } = request
  const { ctx, access, services } = context
  const { model } = access
  const ruleContext: RuleContext = { ...access.context, operation }
  // A mask a get would refuse is refused here, before the body and before anything is written.
  const mask = planReadMask(access, request.fields, services.selections, ctx.access, services.readMasks)
  if ((operation === 'undelete') && model.softDelete === undefined) {
    throw problem('invalid-parameter', `${model.name} has no soft delete: a deleted record is gone and cannot be undeleted.`, {
      errors: [{ parameter: 'undelete', message: 'not available on a resource without soft delete' }],
    })
  }
  // 2. The body: unknown, hidden, read-only and tenant fields refused; values checked; resource rules.
  const { values, sent, references, tenant } = operation === 'create' || operation === 'update'
    ? await checkedBody(operation, request.body, allowed, ruleContext, context)
    : { values: new Map(), sent: {}, references: [], tenant: ctx.tenant }
  const hooked = services.hooks.for(model.name, operation).length > 0
  const select = services.selections.of(model, mask.fields)
  const permissions = request.withPermissions === true ? access.permissions.get : undefined
  return {
    kind: 'write',
    operation,
    model,
    key: request.key,
    tenant,
    everyTenant: access.context.allTenants,
    ifMatch: request.ifMatch,
    access: allowed,
    ruleContext,
    readable: access.readable,
    scope: writeRows(access, allowed),
    select,
    fetch: services.selections.fetch(select, access.readable, hooked || allowed.check !== undefined || needsStoredRecord(permissions)),
    values,
    sent,
    references,
    hooked,
    capture: model.changes !== 'pipeline' ? false : services.returnsOldRows ? 'returning' : 'locking',
    permissions,
    embeds: request.minimal === true ? NO_EMBEDS : mask.embeds,
  }
}

/** The INSERT of a create, one statement; `check` is verified on the row as written. */
export async function insertRecord (plan: WritePlan, context: RunContext, db: Queryable, check: CheckedFilter | undefined): Promise<WriteOutcome> {
  const [found] = await insertRows(plan, db, compileInsert(plan, check))
  const row = written(plan.model, await returnedRow(plan, found, db), check)
  return outcomeOf(plan, context, row, keyText(plan.model, row))
}

/** The outcome of a write that returned `row`: its ETag over the caller's readable fields. */
export function outcomeOf (plan: WritePlan, context: RunContext, row: Row, key: string): WriteOutcome {
  return { row, etag: context.services.etags.of(plan.model, plan.readable)(row), key, select: plan.select }
}

function tenantOfRow (row: Row | undefined): string | undefined {
  const tenant = row?.__tenant
  return typeof tenant === 'string' ? tenant : undefined
}

async function runHooks (plan: WritePlan, context: RunContext, tx: Queryable, key: string, before: Row | undefined, after: Row | undefined): Promise<void> {
  if (!plan.hooked) return
  const { model, operation } = plan
  await context.services.hooks.run({
    resource: model.name,
    operation,
    key,
    before: before === undefined ? undefined : storedRecord(model, before),
    after: after === undefined ? undefined : storedRecord(model, after),
    // What staff across tenants touched is the row's own tenant, read with it.
    tenant: plan.everyTenant === true ? (plan.tenant ?? tenantOfRow(after ?? before)) : plan.tenant,
    ctx: context.ctx,
  }, tx)
}

/** A stored row locked for a write, judged by the record rule and the precondition (steps 3 and 4). */
export interface LockedRecord {
  readonly row: Row
  readonly etag: string
  /** A filter the record rule returned, to settle against the row as written. */
  readonly returned: CheckedFilter | undefined
}

/** Steps 3 and 4: the stored row, locked; then the record-level rule and If-Match. */
export async function lockForWrite (plan: WritePlan, context: RunContext, tx: Queryable): Promise<LockedRecord> {
  const { model, operation } = plan
  // A row of another tenant, or outside the caller's filters, does not exist.
  const [locked] = await rows<StoredRow>(tx, compileLock(plan, plan.scope))
  if (locked === undefined) notFound(model)
  if (locked.__deleted && operation !== 'undelete') notFound(model)
  if (!locked.__deleted && operation === 'undelete') {
    throw problem('conflict', `This ${model.name} is not deleted, so there is nothing to undelete.`)
  }
  // The record-level rule with the stored record (hidden fields included), then the precondition.
  const returned = await recordCheck(plan, storedRecord(model, locked), context.services.ruleFilters)
  const etag = context.services.etags.of(model, plan.readable)(locked)
  checkPrecondition(operation, plan.ifMatch, etag)
  return { row: locked, etag, returned }
}

/** Step 5 on a locked, judged row: the write, checked against the row as written, then the hooks. */
export async function applyWrite (plan: WritePlan, context: RunContext, tx: Queryable, locked: LockedRecord): Promise<WriteOutcome> {
  const { model, operation, access } = plan
  const key = keyText(model, locked.row)
  if (operation === 'update' && plan.values.size === 0) return { row: locked.row, etag: locked.etag, key, select: plan.select }
  let row: Row
  if (operation === 'update') {
    const check = both(access.rows, locked.returned)
    const [found] = await rows<Row>(tx, compileUpdate(plan, check))
    row = written(model, await returnedRow(plan, found, tx), check)
  } else if (operation === 'delete' && model.softDelete === undefined) {
    // The row will be gone: a filter the check returned is settled against it before the delete.
    await verifyStored(tx, plan, locked.returned)
    row = (await rows<Row>(tx, compileDelete(plan)))[0]!
  } else {
    row = written(model, (await rows<Row>(tx, compileSoftDelete(plan, operation === 'delete', locked.returned)))[0], locked.returned)
  }
  const hardDelete = operation === 'delete' && model.softDelete === undefined
  await runHooks(plan, context, tx, key, locked.row, hardDelete ? undefined : row)
  return outcomeOf(plan, context, row, key)
}

/** Steps 3 to 5 on the transaction given: lock, access, If-Match, the write, the hooks. */
export async function commitWrite (plan: WritePlan, context: RunContext, tx: Queryable): Promise<WriteOutcome> {
  if (plan.operation === 'create') {
    const check = both(plan.access.rows, await recordCheck(plan, plan.sent, context.services.ruleFilters))
    const outcome = await insertRecord(plan, context, tx, check)
    await runHooks(plan, context, tx, outcome.key, undefined, outcome.row)
    return outcome
  }
  return await applyWrite(plan, context, tx, await lockForWrite(plan, context, tx))
}
