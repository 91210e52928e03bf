// SQLSTATE → problem. Never copies pg's message, detail, constraint, table or column into the
// response: those name schema objects and can echo values the caller may not read.
import { problem, type Problem } from '../problems.js'

interface PgLikeError { code?: unknown, severity?: unknown }

/** True for errors raised by PostgreSQL (they carry a five-character SQLSTATE). */
export function isPgError (err: unknown): err is PgLikeError & { code: string } {
  const e = err as PgLikeError | null
  return typeof e === 'object' && e !== null && typeof e.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code) && typeof e.severity === 'string'
}

const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE'])
// node-postgres reports a lost or unreachable server with plain Errors and no code: these are its
// messages for a connection that could not be had in time, or ended under a statement.
const CONNECTION_MESSAGES = new Set([
  'timeout exceeded when trying to connect',
  'Connection terminated due to connection timeout',
  'Connection terminated unexpectedly',
  'Connection terminated',
  'Query read timeout',
  'Client has encountered a connection error and is not queryable',
  'Client was closed and is not queryable',
])
/** Seconds a caller should wait before trying again when the database is away. */
const RETRY_AFTER_SECONDS = '1'

function unavailable (detail: string): Problem {
  return problem('service-unavailable', detail, {}, { 'retry-after': RETRY_AFTER_SECONDS })
}

/** The problem for a database error, or undefined when it is unexpected (a 500). */
export function problemFromPgError (err: unknown): Problem | undefined {
  const code = (err as PgLikeError | null)?.code
  if ((typeof code === 'string' && CONNECTION_CODES.has(code)) || (err instanceof Error && CONNECTION_MESSAGES.has(err.message))) {
    return unavailable('The database cannot be reached right now. Try again shortly.')
  }
  if (!isPgError(err)) return undefined
  switch (err.code) {
    case '23505': return problem('conflict', 'A record with the same unique value already exists.')
    case '23503': return problem('conflict', 'The record refers to a record that does not exist, or is referred to by another record.')
    case '23502': return problem('invalid-record', 'A required value is missing.')
    case '23514': return problem('invalid-record', 'A value breaks a rule of the table.')
    case '40001':
    case '40P01': return problem('conflict', 'The write conflicted with a concurrent one. Retry it.')
    case '57014': return problem('statement-timeout', 'The query took longer than the statement timeout allows.')
  }
  if (err.code.startsWith('22')) return problem('invalid-record', 'A value is out of range or has the wrong format.')
  // 08P01 is a protocol violation: our own bug, not the database being away.
  if ((err.code.startsWith('08') && err.code !== '08P01') || err.code.startsWith('53') || ['57P01', '57P02', '57P03'].includes(err.code)) {
    return unavailable('The database cannot serve the request right now. Try again shortly.')
  }
  return undefined
}

/** The database is away or too slow (503, 504): not the fault of the code that met it. */
export function isDatabaseUnavailable (err: unknown): boolean {
  const status = problemFromPgError(err)?.status
  return status === 503 || status === 504
}
