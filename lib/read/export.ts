// Runs an export plan: one read-only transaction with its own statement timeout, a cursor read a
// batch at a time as the client takes the text in chunks of bounded size (backpressure: a slow
// client holds the cursor, not memory), and a statement cancelled in PostgreSQL when the client goes away. Failures before the
// first row are problems like any read's; a failure after it can only cut the response short.
import { once } from 'node:events'
import { Readable } from 'node:stream'
import type { Pool } from '../db/pool.js'
import { cancelStatement, streamRows } from '../db/query.js'
import { beginTransaction } from '../db/transaction.js'
import { compileExport } from '../sql/read.js'
import type { ExportPlan } from '../plan/export.js'
import { exportWriter } from '../serialize/export.js'
import type { PageTokens } from '../query/page-token.js'
import type { Row } from '../serialize/record.js'
import { asFilterProblem } from './execute.js'

/** Rows fetched from the cursor at a time. */
const BATCH_ROWS = 1000
/**
 * About how many characters one chunk of text holds. A string over 128 KiB lands in V8's
 * large-object space, which only a full collection frees: chunks that big grow the heap with the
 * row count until one runs. Rows per chunk follow the width of the rows before.
 */
const CHUNK_CHARS = 32 * 1024

export interface ExportOptions {
  readonly timeoutMs: number
  /** Aborted when the client goes away: the statement is cancelled, the transaction rolled back. */
  readonly signal: AbortSignal
}

/** Rows per chunk for rows as wide as those of the last chunk. */
function chunkRows (rows: number, chars: number): number {
  return Math.max(1, Math.min(BATCH_ROWS, Math.floor(rows * CHUNK_CHARS / Math.max(chars, 1))))
}

/** `tokens` write the page tokens of to-many embeds, which continue on the child's list. */
export async function openExport (pool: Pool, plan: ExportPlan, tokens: PageTokens, options: ExportOptions): Promise<Readable> {
  const transaction = await beginTransaction(pool, { readOnly: true, timeoutMs: options.timeoutMs })
  const { tx } = transaction
  const stream = streamRows(tx, compileExport(plan), BATCH_ROWS)
  // Rows are taken a batch at a time, not awaited one by one; an error while none is awaited is
  // kept by the stream (`errored`) and thrown by the next batch.
  stream.on('error', () => {})
  let fetching = false
  const cancel = (): void => {
    if (fetching) cancelStatement(tx).catch(() => {})
  }
  options.signal.addEventListener('abort', cancel, { once: true })
  /** The rows the stream holds, waiting for some when it holds none; empty at the end. */
  const nextBatch = async (): Promise<Row[]> => {
    for (;;) {
      if (stream.errored !== null) throw stream.errored
      const batch: Row[] = []
      for (let row = stream.read() as Row | null; row !== null; row = stream.read() as Row | null) batch.push(row)
      if (batch.length > 0 || stream.readableEnded) return batch
      fetching = true
      const settled = new AbortController()
      try {
        await Promise.race([once(stream, 'readable', { signal: settled.signal }), once(stream, 'end', { signal: settled.signal })])
      } finally {
        fetching = false
        settled.abort()
      }
    }
  }
  const end = async (ok: boolean): Promise<void> => {
    options.signal.removeEventListener('abort', cancel)
    stream.destroy()
    await (ok ? transaction.commit() : transaction.rollback())
  }
  let first: Row[]
  try {
    first = await nextBatch()
  } catch (err) {
    await end(false)
    throw asFilterProblem(err, plan)
  }
  const write = exportWriter(plan, tokens)
  async function * text (): AsyncGenerator<string> {
    let done = false
    try {
      if (write.head !== '') yield write.head
      // The first row's width is unknown: it goes alone.
      let rowsPerChunk = 1
      for (let batch = first; batch.length > 0; batch = await nextBatch()) {
        for (let at = 0; at < batch.length;) {
          const rows = batch.slice(at, at + rowsPerChunk)
          const chunk = write.rows(rows)
          at += rows.length
          rowsPerChunk = chunkRows(rows.length, chunk.length)
          yield chunk
        }
      }
      done = true
    } finally {
      // Not done: the client went away (the generator was returned) or a fetch failed.
      await end(done)
    }
  }
  return Readable.from(text(), { objectMode: false })
}
