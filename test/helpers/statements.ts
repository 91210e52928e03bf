// The statements a piece of work sends to PostgreSQL, as published on the `tablegate:query`
// diagnostics channel (texts only): proves which path a request took, not only what it answered.
import { subscribe, unsubscribe } from 'node:diagnostics_channel'

export async function statementsOf (work: () => Promise<unknown>): Promise<string[]> {
  const seen: string[] = []
  const listener = (message: unknown): void => { seen.push((message as { text: string }).text) }
  subscribe('tablegate:query', listener)
  try {
    await work()
  } finally {
    unsubscribe('tablegate:query', listener)
  }
  return seen
}

/**
 * The first word of each statement, and whether it locks: `SELECT FOR UPDATE`, `UPDATE`, `BEGIN`
 * (also for `BEGIN; SET LOCAL statement_timeout = …`, a BEGIN behind a transaction pooler).
 */
export function kinds (statements: readonly string[]): string[] {
  return statements.map((text) => /FOR UPDATE$/.test(text) ? 'SELECT FOR UPDATE' : text.split(/[ ;]/)[0]!)
}
