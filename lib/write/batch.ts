// The operations of a batch, in order, on one transaction: each through the same write pipeline
// as a single write (access, tenant, body, row filters, record rules, If-Match, hooks), so
// nothing a single write enforces can be skipped by batching it. Consecutive creates of one
// resource that no hook hears of and no record rule judges are one INSERT of many rows. A
// failure is the operation's own problem with `operation`, `op` and `resource` added; the caller
// rolls everything back.
import { rows, type Queryable } from '../db/query.js'
import type { Pool } from '../db/pool.js'
import { withTransaction } from '../db/transaction.js'
import type { TablegateContext } from '../context.js'
import { requireVisible } from '../access/require.js'
import { keyFromValue, keyParts } from '../model/keys.js'
import { isProblem, problem, withExtras } from '../problems.js'
import { isPgError, problemFromPgError } from '../db/pg-errors.js'
import { rowPermissions } from '../read/permissions.js'
import { recordJson } from '../serialize/json.js'
import { batchJson, DELETED_RESULT, writtenResult } from '../serialize/envelopes.js'
import type { Row } from '../serialize/record.js'
import { compileInsertMany } from '../sql/write.js'
import type { WritePlan } from '../plan/types.js'
import { commitWrite, prepareLike, written, type WriteContext, type WriteServices } from './pipeline.js'
import { planAdmitted, type BatchOperation } from './batch-operations.js'
import { Refs, refsNamed } from './batch-refs.js'
import { reorder } from './reorder.js'

export interface BatchContext {
  readonly ctx: TablegateContext
  readonly services: WriteServices
  /** The resources whose records carry `permissions`. */
  readonly rowPermissions: ReadonlySet<string>
  /** The statement timeout, which covers the whole batch: no operation starts past it. */
  readonly timeoutMs: number
}

type Create = Extract<BatchOperation, { op: 'create' }>

/**
 * A run's one INSERT failed: PostgreSQL does not say which row failed, so the batch runs again
 * from the start, one operation at a time, and the failure is named by its own operation.
 * Failures are rare; a savepoint around every INSERT would cost every batch two round trips
 * instead. Thrown so that the transaction rolls back; runBatch alone catches it, and it is never
 * an answer.
 */
class RunAgainOneByOne extends Error {
  constructor () {
    super('A grouped INSERT of the batch failed: run the batch again, one operation at a time.')
    this.name = 'RunAgainOneByOne'
  }
}

interface Attempt {
  /** Whether a run of creates may be one INSERT. */
  readonly grouped: boolean
  readonly deadline: number
}

/** The operation's problem with where it happened; a failure that is not a problem stays a 500. */
function located (err: unknown, op: BatchOperation): unknown {
  const where = { operation: op.index, op: op.op, resource: op.resource }
  if (isProblem(err)) return withExtras(err, where)
  const fromDb = problemFromPgError(err)
  return fromDb === undefined ? err : withExtras(fromDb, where)
}

/** A written record as the caller sees it, `permissions` as on a get (read back with the row). */
async function recordResult (plan: WritePlan, row: Row, etag: string, permissionsOf = plan.permissions === undefined ? undefined : rowPermissions(plan.model, plan.permissions)): Promise<string> {
  const permissions = permissionsOf === undefined ? undefined : await permissionsOf(row)
  return writtenResult(recordJson(plan.select, row, etag, permissions?.json), etag)
}

function writeContext (op: BatchOperation, context: BatchContext): WriteContext {
  return { ctx: context.ctx, access: requireVisible(context.ctx.access(op.resource)), services: context.services }
}

async function runOne (op: BatchOperation, refs: Refs, context: BatchContext, tx: Queryable): Promise<string> {
  const write = writeContext(op, context)
  if (op.op === 'reorder') return await reorder(op, refs, write, tx)
  const { model } = write.access
  const key = op.op === 'create' ? undefined : keyFromValue(model, refs.key(op, op.key))
  const plan = await planAdmitted({
    operation: op.op,
    key,
    body: op.op === 'delete' ? undefined : refs.data(op, op.data),
    ifMatch: op.op === 'create' ? undefined : op.etag,
    withPermissions: op.op !== 'delete' && context.rowPermissions.has(op.resource),
  }, write)
  const outcome = await commitWrite(plan, write, tx)
  if (op.op === 'delete') return DELETED_RESULT
  if (op.op === 'create' && op.ref !== undefined) refs.define(op.ref, { plan, row: outcome.row, key: keyParts(model, outcome.row) })
  return await recordResult(plan, outcome.row, outcome.etag)
}

/** Consecutive creates of one resource from `start`, up to one that names a record created among them. */
function createRun (operations: readonly BatchOperation[], start: number): Create[] {
  const run: Create[] = []
  const named = new Set<string>()
  for (let i = start; i < operations.length; i++) {
    const op = operations[i]!
    if (op.op !== 'create' || op.resource !== operations[start]!.resource) break
    if (named.size > 0 && refsNamed(op.data).some((ref) => named.has(ref))) break
    run.push(op)
    if (op.ref !== undefined) named.add(op.ref)
  }
  return run
}

/**
 * The plans of a run of creates that may be one INSERT: the first in full, the others like it
 * (the caller, the resource and the operation are the same; only bodies differ). Undefined when
 * a hook, a record rule, a reference field or a staff caller's named tenant needs each record on its own. The plans stop before a body that fails,
 * whose operation then runs (and fails) in its turn, after the ones before it.
 */
async function planRun (run: readonly Create[], refs: Refs, context: BatchContext): Promise<WritePlan[] | undefined> {
  const write = writeContext(run[0]!, context)
  const plans: WritePlan[] = []
  for (const op of run) {
    try {
      const body = refs.data(op, op.data)
      if (plans.length > 0) {
        plans.push(await prepareLike(plans[0]!, body, write))
        continue
      }
      const first = await planAdmitted({ operation: 'create', body, withPermissions: context.rowPermissions.has(op.resource) }, write)
      // References are checked in each record's own INSERT, which names the field they refuse; the
      // tenant of staff across tenants is each create's own, where one INSERT gives every row the first's.
      if (first.hooked || first.access.check !== undefined || first.everyTenant === true || first.model.fieldList.some((f) => f.references !== undefined)) return undefined
      plans.push(first)
    } catch (err) {
      if (plans.length > 0) return plans
      throw located(err, op)
    }
  }
  return plans
}

/** A planned run of creates as one INSERT on `db`; a database failure runs the batch again one by one. */
async function insertRun (run: readonly Create[], plans: readonly WritePlan[], refs: Refs, context: BatchContext, db: Queryable): Promise<string[]> {
  const first = plans[0]!
  const { model } = first
  const check = first.access.rows
  let inserted: Row[]
  try {
    inserted = await rows<Row>(db, compileInsertMany(plans, check))
  } catch (err) {
    if (isPgError(err)) throw new RunAgainOneByOne()
    throw err
  }
  const etagOf = context.services.etags.of(model, first.readable)
  const permissionsOf = first.permissions === undefined ? undefined : rowPermissions(model, first.permissions)
  const results: string[] = []
  for (const [i, plan] of plans.entries()) {
    const op = run[i]!
    let row: Row
    try {
      row = written(model, inserted[i], check)
    } catch (err) {
      throw located(err, op)
    }
    if (op.ref !== undefined) refs.define(op.ref, { plan, row, key: keyParts(model, row) })
    results.push(await recordResult(plan, row, etagOf(row), permissionsOf))
  }
  return results
}

/** Runs every operation on `tx`; the results' JSON, or the first failure, located. */
async function runAll (operations: readonly BatchOperation[], context: BatchContext, tx: Queryable, attempt: Attempt): Promise<string[]> {
  const refs = new Refs(operations)
  const results: string[] = []
  const startInTime = (op: BatchOperation): void => {
    if (Date.now() > attempt.deadline) throw located(problem('statement-timeout', 'The batch took longer than the statement timeout allows.'), op)
  }
  while (results.length < operations.length) {
    const op = operations[results.length]!
    startInTime(op)
    const run = attempt.grouped ? createRun(operations, results.length) : []
    const plans = run.length > 1 ? await planRun(run, refs, context) : undefined
    if (plans !== undefined && plans.length > 1) {
      results.push(...await insertRun(run, plans, refs, context, tx))
      continue
    }
    // A run that must go one by one goes so to its end, without being planned again at each step.
    for (const one of plans === undefined && run.length > 1 ? run : [op]) {
      if (one !== op) startInTime(one)
      try {
        results.push(await runOne(one, refs, context, tx))
      } catch (err) {
        throw located(err, one)
      }
    }
  }
  return results
}

/**
 * A batch that is one run of creates needing no check on the rows as written: one INSERT, atomic
 * on its own, so it runs without BEGIN and COMMIT. Undefined when the batch is anything else.
 */
async function runAsOneStatement (operations: readonly BatchOperation[], context: BatchContext, pool: Pool): Promise<string[] | undefined> {
  if (operations.length < 2 || createRun(operations, 0).length < operations.length) return undefined
  const refs = new Refs(operations)
  const creates = operations as readonly Create[]
  const plans = await planRun(creates, refs, context)
  if (plans === undefined || plans.length < creates.length || plans[0]!.access.rows !== undefined) return undefined
  return await insertRun(creates, plans, refs, context, pool)
}

/** Runs a batch on `pool`: in one transaction, or as one statement when it is one; the answer's JSON. */
export async function runBatch (operations: readonly BatchOperation[], context: BatchContext, pool: Pool): Promise<string> {
  const deadline = Date.now() + context.timeoutMs
  const inTransaction = async (grouped: boolean): Promise<string[]> =>
    await withTransaction(pool, {}, async (tx) => await runAll(operations, context, tx, { grouped, deadline }))
  let results: string[]
  try {
    results = await runAsOneStatement(operations, context, pool) ?? await inTransaction(true)
  } catch (err) {
    if (!(err instanceof RunAgainOneByOne)) throw err
    results = await inTransaction(false)
  }
  return batchJson(results)
}
