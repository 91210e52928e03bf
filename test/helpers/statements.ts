// The statements a piece of work sends to PostgreSQL, as published on the `tablegate:query`
// diagnostics channel (texts only): proves which path a request took, not only what it answered.
import { subscribe, unsubscribe } from 'node:diagnostics_channel'

// The built-in login polls its revocation table every few seconds (lib/auth/revocations.ts), on
// a timer of its own: under load a poll lands inside any piece of work, and is none of its doing.
const REVOCATION_POLL = /^SELECT \* FROM (?:"[^"]+"\.)?"auth_revocation"/

/** The statements sent while `work` ran, but the login's background revocation poll. */
export async function statementsOf (work: () => Promise<unknown>): Promise<string[]> {
  const seen: string[] = []
  const listener = (message: unknown): void => {
    const { text } = message as { text: string }
    if (!REVOCATION_POLL.test(text)) seen.push(text)
  }
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
