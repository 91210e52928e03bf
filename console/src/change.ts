// What the change feed (`GET {basePath}/{resource}:changes` as Server-Sent Events) says, and what
// the console does about each thing it says. A stream opens with `ready`, sends each change as an
// unnamed event, and ends with a named event when the server ends it; a stream that breaks off
// without one was lost on the way. The transport is change-feed.ts's; this stays pure, for the
// unit tests.

export type Item = Readonly<Record<string, unknown>>

/** One change as the caller sees it, with the record as their list reads it unless it left them. */
export type Change =
  | { readonly type: 'created' | 'updated' | 'entered', readonly key: string, readonly record: Item }
  | { readonly type: 'left' | 'deleted', readonly key: string }

const TYPES: ReadonlySet<string> = new Set<Change['type']>(['created', 'updated', 'entered', 'left', 'deleted'])

/** An unnamed event's data as a change; undefined for anything else (a newer server's additions). */
export function changeOf (data: string): Change | undefined {
  let value: unknown
  try { value = JSON.parse(data) } catch { return undefined }
  if (value === null || typeof value !== 'object') return undefined
  const { type, key, record } = value as Record<string, unknown>
  if (typeof type !== 'string' || !TYPES.has(type) || typeof key !== 'string') return undefined
  if (type === 'left' || type === 'deleted') return { type, key }
  if (record === null || typeof record !== 'object') return undefined
  return { type: type as 'created' | 'updated' | 'entered', key, record: record as Item }
}

/**
 * What follows the end of a stream:
 * - `resume`: open it again from the last id, after `delayMs`; nothing is lost;
 * - `restart`: the position is gone (expired): start again from now (after the server's retry
 *   time), and read the list anew;
 * - `stop`: the feed ends for good, and the screen says so (`why`).
 */
export type Step =
  | { readonly kind: 'resume', readonly delayMs: number }
  | { readonly kind: 'restart' }
  | { readonly kind: 'stop', readonly why: string }

const ENDINGS: ReadonlySet<string> = new Set(['revoked', 'reauth', 'overflow', 'expired', 'unavailable'])

/** Whether a named event is the last one, the server's reason for ending the stream. */
export function isEnding (event: string): boolean {
  return ENDINGS.has(event)
}

/**
 * What follows a stream's end, given how it ended (the server's last event, or `undefined` where
 * the stream was lost on the way) and how many tries in a row have failed.
 */
export function stepAfter (event: string | undefined, failures: number, retryMs: number): Step {
  switch (event) {
    // The token expired: the session renews it (or takes one on the 401), and the stream goes on.
    case 'reauth':
    // Too slow a reader: the server let go of it, not of its position. At once, unless the
    // last try ended so too before it even started.
    case 'overflow': return { kind: 'resume', delayMs: failures === 0 ? 0 : backoff(failures, retryMs) }
    case 'expired': return { kind: 'restart' }
    case 'revoked': return { kind: 'stop', why: 'Your access changed.' }
    // `unavailable` (the server is going away), or the stream was lost on the way.
    default: return { kind: 'resume', delayMs: backoff(failures, retryMs) }
  }
}

const MAX_DELAY_MS = 30_000

/** The wait before the next try: the server's retry time, doubled with each failure in a row. */
export function backoff (failures: number, retryMs: number): number {
  return Math.min(MAX_DELAY_MS, retryMs * 2 ** Math.min(failures, 10))
}

/** What follows a refusal to open the stream: its status, and the problem's detail. */
export function stepAfterRefusal (status: number, detail: string, failures: number, retryMs: number): Step {
  if (status === 410) return { kind: 'restart' }
  // Too many streams (this caller's, or the server's): one may close soon.
  if (status === 429 || status === 503) return { kind: 'resume', delayMs: Math.max(5_000, backoff(failures, retryMs)) }
  if (status >= 500) return { kind: 'resume', delayMs: backoff(failures, retryMs) }
  return { kind: 'stop', why: detail }
}
