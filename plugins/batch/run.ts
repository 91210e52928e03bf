// The operations of a batch, in order, on one transaction: each through the same write pipeline
// as a single write (access, tenant, body, row filters, record rules, If-Match, hooks), so
// nothing a single write enforces can be skipped by batching it. Consecutive creates of one
// resource that no hook hears of and no record rule judges are one INSERT of many rows. A
// failure is the operation's own problem with `operation`, `op` and `resource` added; the caller
// rolls everything back.
import { control, rows, type Queryable } from '../../lib/db/query.js'
import type { TablegateContext } from '../../lib/context.js'
import { requireVisible } from '../../lib/access/require.js'
import { keyFromValue, keyParts } from '../../lib/model/keys.js'
import { isProblem, problem, withExtras } from '../../lib/problems.js'
import { isPgError, problemFromPgError } from '../../lib/db/pg-errors.js'
import { rowPermissions } from '../../lib/read/permissions.js'
import { recordJson } from '../../lib/serialize/json.js'
import type { Row } from '../../lib/serialize/record.js'
import { compileInsertMany } from '../../lib/sql/write.js'
import type { WritePlan } from '../../lib/plan/types.js'
import type { AppServices } from '../../lib/runtime.js'
import { commitWrite, prepareLike, prepareWrite, written, type WriteContext } from '../../lib/write/pipeline.js'
import type { BatchOperation } from './operations.js'
import { Refs, refsNamed } from './refs.js'
import { reorder } from './reorder.js'

export interface BatchContext {
  readonly ctx: TablegateContext
  readonly services: AppServices
  /** The resources whose records carry `permissions`. */
  readonly rowPermissions: ReadonlySet<string>
  /** The statement timeout, which covers the whole batch: no operation starts past it. */
  readonly timeoutMs: number
}

type Create = Extract<BatchOperation, { op: 'create' }>

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
  return `{"record":${recordJson(plan.select, row, etag, permissions)},"etag":${JSON.stringify(etag)}}`
}

function writeContext (op: BatchOperation, context: BatchContext): WriteContext {
  return { ctx: context.ctx, access: requireVisible(context.ctx.access(op.resource)), services: context.services }
}

async function runOne (op: BatchOperation, refs: Refs, context: BatchContext, tx: Queryable): Promise<string> {
  const write = writeContext(op, context)
  if (op.op === 'reorder') return await reorder(op, refs, write, tx)
  const { model } = write.access
  const key = op.op === 'create' ? undefined : keyFromValue(model, refs.key(op, op.key))
  const plan = await prepareWrite({
    operation: op.op,
    key,
    body: op.op === 'delete' ? undefined : refs.data(op, op.data),
    ifMatch: op.op === 'create' ? undefined : op.etag,
    withPermissions: op.op !== 'delete' && context.rowPermissions.has(op.resource),
  }, write)
  const outcome = await commitWrite(plan, write, tx)
  if (op.op === 'delete') return '{"deleted":true}'
  if (op.op === 'create' && op.ref !== undefined) refs.define(op.ref, { access: write.access, row: outcome.row, key: keyParts(model, outcome.row) })
  return await recordResult(plan, outcome.row, outcome.etag)
}

/** Consecutive creates of one resource from `start`, up to one that names a record created among them. */
function createRun (operations: readonly BatchOperation[], start: number): Create[] {
  const run: Create[] = []
  const named = new Set<string>()
  for (let i = start; i < operations.length; i++) {
    const op = operations[i]!
    if (op.op !== 'create' || op.resource !== operations[start]!.resource) break
    if (refsNamed(op.data).some((ref) => named.has(ref))) break
    run.push(op)
    if (op.ref !== undefined) named.add(op.ref)
  }
  return run
}

/**
 * A run of creates as one INSERT, when it may be one: undefined when a hook or a record rule
 * needs each record on its own, or when the INSERT fails (it is undone to a savepoint, and the
 * creates run one by one, so the failure is named by its own operation).
 */
async function insertRun (run: readonly Create[], refs: Refs, context: BatchContext, tx: Queryable): Promise<string[] | undefined> {
  const write = writeContext(run[0]!, context)
  const plans: WritePlan[] = []
  for (const op of run) {
    try {
      const body = refs.data(op, op.data)
      // The caller, the resource and the operation are the same for the run: only bodies differ.
      plans.push(plans.length === 0
        ? await prepareWrite({ operation: 'create', body, withPermissions: context.rowPermissions.has(op.resource) }, write)
        : await prepareLike(plans[0]!, body, write))
    } catch (err) {
      throw located(err, op)
    }
  }
  if (plans.some((plan) => plan.hooked || plan.access.check !== undefined)) return undefined
  const check = plans[0]!.access.rows
  let inserted: Row[]
  await control(tx, 'SAVEPOINT tg_batch')
  try {
    inserted = await rows<Row>(tx, compileInsertMany(plans, check))
  } catch (err) {
    if (!isPgError(err)) throw err
    await control(tx, 'ROLLBACK TO SAVEPOINT tg_batch')
    return undefined
  }
  await control(tx, 'RELEASE SAVEPOINT tg_batch')
  const { model, readable } = write.access
  const etagOf = context.services.etags.of(model, readable)
  const first = plans[0]!
  const permissionsOf = first.permissions === undefined ? undefined : rowPermissions(model, first.permissions)
  const results: string[] = []
  for (const [i, op] of run.entries()) {
    const plan = plans[i]!
    let row: Row
    try {
      row = written(model, inserted[i], check)
    } catch (err) {
      throw located(err, op)
    }
    if (op.ref !== undefined) refs.define(op.ref, { access: write.access, row, key: keyParts(model, row) })
    results.push(await recordResult(plan, row, etagOf(row), permissionsOf))
  }
  return results
}

/** Runs every operation on `tx`; the answer's JSON, or the first failure, located. */
export async function runBatch (operations: readonly BatchOperation[], context: BatchContext, tx: Queryable): Promise<string> {
  const refs = new Refs(operations)
  const results: string[] = []
  const deadline = Date.now() + context.timeoutMs
  while (results.length < operations.length) {
    const op = operations[results.length]!
    if (Date.now() > deadline) throw located(problem('statement-timeout', 'The batch took longer than the statement timeout allows.'), op)
    const run = createRun(operations, results.length)
    const many = run.length > 1 ? await insertRun(run, refs, context, tx) : undefined
    if (many !== undefined) {
      results.push(...many)
      continue
    }
    try {
      results.push(await runOne(op, refs, context, tx))
    } catch (err) {
      throw located(err, op)
    }
  }
  return `{"results":[${results.join(',')}]}`
}
