// The operations of a batch, in order, on one transaction: each through the same write pipeline
// as a single write (access, tenant, body, row filters, record rules, If-Match, hooks), so
// nothing a single write enforces can be skipped by batching it. A failure is the operation's
// own problem with `operation`, `op` and `resource` added; the caller rolls everything back.
import type { Queryable } from '../../lib/db/query.js'
import type { TablegateContext } from '../../lib/context.js'
import { requireVisible } from '../../lib/access/require.js'
import { keyFromValue } from '../../lib/model/keys.js'
import { isProblem, problem, withExtras } from '../../lib/problems.js'
import { problemFromPgError } from '../../lib/db/pg-errors.js'
import { planGet } from '../../lib/plan/read.js'
import { readOne } from '../../lib/read/execute.js'
import { recordJson } from '../../lib/serialize/json.js'
import type { AppServices } from '../../lib/runtime.js'
import { commitWrite, prepareWrite, type WriteOutcome } from '../../lib/write/pipeline.js'
import type { AccessPlan } from '../../lib/access/types.js'
import type { BatchOperation } from './operations.js'
import { Refs } from './refs.js'
import { reorder } from './reorder.js'

export interface BatchContext {
  readonly ctx: TablegateContext
  readonly services: AppServices
  /** The resources whose records carry `permissions`. */
  readonly rowPermissions: ReadonlySet<string>
  /** The statement timeout, which covers the whole batch: no operation starts past it. */
  readonly timeoutMs: number
}

/** The operation's problem with where it happened; a failure that is not a problem stays a 500. */
function located (err: unknown, op: BatchOperation): unknown {
  const where = { operation: op.index, op: op.op, resource: op.resource }
  if (isProblem(err)) return withExtras(err, where)
  const fromDb = problemFromPgError(err)
  return fromDb === undefined ? err : withExtras(fromDb, where)
}

/** A written record as the caller sees it, `permissions` as on a get. */
async function recordResult (tx: Queryable, context: BatchContext, access: AccessPlan, outcome: WriteOutcome, key: readonly string[]): Promise<string> {
  const { services } = context
  if (!context.rowPermissions.has(access.resource)) {
    return `{"record":${recordJson(services.selections.of(access.model, access.readable), outcome.row, outcome.etag)},"etag":${JSON.stringify(outcome.etag)}}`
  }
  // Whether the caller may update or delete it is the database's to decide, as on a get.
  const { json, etag } = await readOne(tx, planGet(key, {}, access, services, true), services)
  return `{"record":${json},"etag":${JSON.stringify(etag)}}`
}

async function runOne (op: BatchOperation, refs: Refs, context: BatchContext, tx: Queryable): Promise<string> {
  const access = requireVisible(context.ctx.access(op.resource))
  const writeContext = { ctx: context.ctx, access, services: context.services }
  if (op.op === 'reorder') return await reorder(op, refs, writeContext, tx)
  const key = op.op === 'create' ? undefined : keyFromValue(access.model, refs.key(op, op.key))
  const plan = await prepareWrite({
    operation: op.op,
    key,
    body: op.op === 'delete' ? undefined : refs.data(op, op.data),
    ifMatch: op.op === 'create' ? undefined : op.etag,
  }, writeContext)
  const outcome = await commitWrite(plan, writeContext, tx)
  if (op.op === 'delete') return '{"deleted":true}'
  const written = key ?? keyFromValue(access.model, access.model.key.map((f) => String(outcome.row[f.name])))
  if (op.op === 'create' && op.ref !== undefined) refs.define(op.ref, { access, row: outcome.row, key: written })
  return await recordResult(tx, context, access, outcome, written)
}

/** Runs every operation on `tx`; the answer's JSON, or the first failure, located. */
export async function runBatch (operations: readonly BatchOperation[], context: BatchContext, tx: Queryable): Promise<string> {
  const refs = new Refs(operations)
  const results: string[] = []
  const deadline = Date.now() + context.timeoutMs
  for (const op of operations) {
    try {
      if (Date.now() > deadline) throw problem('statement-timeout', 'The batch took longer than the statement timeout allows.')
      results.push(await runOne(op, refs, context, tx))
    } catch (err) {
      throw located(err, op)
    }
  }
  return `{"results":[${results.join(',')}]}`
}
