// Runs an export plan: one read-only transaction with its own statement timeout, a cursor read a
// batch at a time as the client takes the text (backpressure: a slow client holds the cursor, not
// memory), and a statement cancelled in PostgreSQL when the client goes away. Failures before the
// first row are problems like any read's; a failure after it can only cut the response short.
import { Readable } from 'node:stream'
import type { Pool } from '../db/pool.js'
import { cancelStatement, streamRows } from '../db/query.js'
import { beginTransaction } from '../db/transaction.js'
import { compileExport } from '../sql/read.js'
import type { ExportPlan } from '../plan/export.js'
import { exportWriter } from '../serialize/export.js'
import type { Row } from '../serialize/record.js'
import { asFilterProblem } from './execute.js'

/** Rows fetched from the cursor at a time, and rows written as one chunk of text. */
const BATCH_ROWS = 1000

export interface ExportOptions {
  readonly timeoutMs: number
  /** Aborted when the client goes away: the statement is cancelled, the transaction rolled back. */
  readonly signal: AbortSignal
}

export async function openExport (pool: Pool, plan: ExportPlan, options: ExportOptions): Promise<Readable> {
  const transaction = await beginTransaction(pool, { readOnly: true, timeoutMs: options.timeoutMs })
  const { tx } = transaction
  const stream = streamRows(tx, compileExport(plan), BATCH_ROWS)
  const rows = stream[Symbol.asyncIterator]() as AsyncIterator<Row>
  let fetching = false
  const cancel = (): void => {
    if (fetching) cancelStatement(pool, tx).catch(() => {})
  }
  options.signal.addEventListener('abort', cancel, { once: true })
  const next = async (): Promise<IteratorResult<Row>> => {
    fetching = true
    try {
      return await rows.next()
    } finally {
      fetching = false
    }
  }
  const end = async (ok: boolean): Promise<void> => {
    options.signal.removeEventListener('abort', cancel)
    stream.destroy()
    await (ok ? transaction.commit() : transaction.rollback())
  }
  let first: IteratorResult<Row>
  try {
    first = await next()
  } catch (err) {
    await end(false)
    throw asFilterProblem(err, plan)
  }
  const write = exportWriter(plan.select, plan.format)
  async function * text (): AsyncGenerator<string> {
    let done = false
    try {
      if (write.head !== '') yield write.head
      let batch: Row[] = []
      for (let row = first; row.done !== true; row = await next()) {
        batch.push(row.value)
        if (batch.length === BATCH_ROWS) {
          yield write.rows(batch)
          batch = []
        }
      }
      if (batch.length > 0) yield write.rows(batch)
      done = true
    } finally {
      // Not done: the client went away (the generator was returned) or a fetch failed.
      await end(done)
    }
  }
  return Readable.from(text(), { objectMode: false })
}
