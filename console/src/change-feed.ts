// Following a resource's changes (`GET {basePath}/{resource}:changes`) as the caller, with the
// list's filter and fields, for as long as a screen shows them: fetch() reads the stream (an
// EventSource could not send the token), sse.ts parses it, and change.ts says what each ending
// calls for. A lost stream is opened again from its last id (`Last-Event-ID`), so no change is
// missed; a position the log no longer holds starts again from now, and the screen reads anew.
import type { Session } from './api.js'
import { ApiError } from './api.js'
import { SseParser } from './sse.js'
import { backoff, changeOf, isEnding, stepAfter, stepAfterRefusal, type Change, type Step } from './change.js'
import { collectionPath } from './record-model.js'

/** The server's reconnection time until a stream names its own (`retry`). */
const DEFAULT_RETRY_MS = 1000

export interface FeedQuery {
  readonly filter?: string | undefined
  readonly fields?: string | undefined
}

export interface FeedListener {
  /**
   * A stream follows from now on (the first, or a new one after the old position expired): what
   * the screen read before may miss changes, so it reads now, and replays what comes after.
   */
  readonly start: () => void
  readonly change: (change: Change) => void
  /** The stream could not open or was lost; the feed tries again on its own. */
  readonly interrupted?: () => void
  /** The feed has ended for good (access revoked, the question refused), and says why. */
  readonly stop: (why: string) => void
}

/** Resolves after `ms`, or at once when the feed is closed meanwhile. */
async function wait (ms: number, signal: AbortSignal): Promise<void> {
  await new Promise<void>((resolve) => {
    const done = (): void => {
      clearTimeout(timer)
      signal.removeEventListener('abort', done)
      resolve()
    }
    const timer = setTimeout(done, ms)
    signal.addEventListener('abort', done)
  })
}

/** Follows the changes until the returned function is called (the screen closes or changes its question). */
export function followChanges (session: Session, resource: string, query: FeedQuery, listener: FeedListener): () => void {
  const abort = new AbortController()
  const { signal } = abort
  const search = new URLSearchParams()
  if (query.filter !== undefined && query.filter !== '') search.set('filter', query.filter)
  if (query.fields !== undefined && query.fields !== '') search.set('fields', query.fields)
  const path = `${collectionPath(resource)}:changes${search.size === 0 ? '' : `?${search}`}`

  // The position to resume from: '' until a stream has started, and again once it expired.
  let lastId = ''
  let retryMs = DEFAULT_RETRY_MS
  let failures = 0
  // Starts from now since the last change: a log that expires each new position at once (a
  // transaction open past the retention) must not have the screen read again in a tight loop.
  let restarts = 0

  /** One stream, read to its end; what follows it. */
  const read = async (): Promise<Step> => {
    let response: Response
    try {
      response = await session.stream(path, lastId === '' ? {} : { 'last-event-id': lastId }, signal)
    } catch (err) {
      if (err instanceof ApiError) return stepAfterRefusal(err.status, err.message, failures, retryMs)
      return stepAfter(undefined, failures, retryMs)
    }
    const parser = new SseParser()
    parser.lastEventId = lastId
    const decoder = new TextDecoder()
    const reader = response.body!.getReader()
    let ending: string | undefined
    try {
      for (;;) {
        const { value, done } = await reader.read()
        if (done) break
        for (const message of parser.push(decoder.decode(value, { stream: true }))) {
          if (message.event === 'ready') {
            failures = 0
            // Without a position the stream starts from now, and the screen reads from there.
            if (lastId === '') listener.start()
          } else if (message.event === 'message') {
            const change = changeOf(message.data)
            if (change !== undefined) {
              restarts = 0
              listener.change(change)
            }
          } else if (isEnding(message.event)) {
            ending = message.event
          }
        }
        // Every event's id, and a heartbeat's (the stream moved on with nothing for this caller).
        lastId = parser.lastEventId
        retryMs = parser.retryMs ?? retryMs
      }
    } catch {
      // Lost on the way (or aborted: the loop below stops).
    }
    return stepAfter(ending, failures, retryMs)
  }

  const run = async (): Promise<void> => {
    while (!signal.aborted) {
      const step = await read()
      if (signal.aborted) return
      if (step.kind === 'stop') {
        listener.stop(step.why)
        return
      }
      if (step.kind === 'restart') {
        lastId = ''
        await wait(backoff(restarts++, retryMs), signal)
        continue
      }
      failures++
      if (step.delayMs > 0) {
        listener.interrupted?.()
        await wait(step.delayMs, signal)
      }
    }
  }
  void run()
  return () => { abort.abort() }
}
