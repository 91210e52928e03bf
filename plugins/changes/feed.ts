// One request of `:changes`, after its plan: a long-poll (JSON) or a stream of Server-Sent Events,
// each following the hub for one caller's question. No Fastify here: the route hands in what it
// read of the request and sends what comes back.
import { PassThrough, type Readable } from 'node:stream'
import type { ChangeHub, Follower, Question } from '../../lib/changes/hub.js'
import type { ChangeEvent } from '../../lib/changes/evaluate.js'
import type { ChangeTokens, Position, Resume } from '../../lib/changes/position.js'
import { isProblem } from '../../lib/problems.js'

export interface FeedRequest {
  readonly hub: ChangeHub
  readonly question: Question
  readonly tokens: ChangeTokens
  readonly start: Resume
  /** Calls its listener once the client has gone or the answer was sent. */
  onClose (listener: () => void): void
}

/** An event as the caller receives it. */
function eventJson (event: ChangeEvent): Record<string, unknown> {
  const { type, key, record, batch, time } = event
  return record === undefined ? { type, key, batch, time } : { type, key, record, batch, time }
}

export interface LongPollAnswer {
  readonly changes: readonly Record<string, unknown>[]
  readonly next_page_token: string
}

/**
 * The changes after `start` the caller sees, at once where there are some (or `waitMs` is 0),
 * else the first that come within `waitMs`; with the token to read on from.
 */
export async function longPoll (request: FeedRequest, waitMs: number): Promise<LongPollAnswer> {
  const { hub, question, tokens } = request
  const events: ChangeEvent[] = []
  let failure: unknown
  let gone = false
  let settle: () => void = () => {}
  const settled = new Promise<void>((resolve) => { settle = resolve })
  const follower: Follower = {
    question,
    position: request.start.position,
    deliver: (delivered) => {
      events.push(...delivered)
      if (delivered.length > 0) settle()
    },
    fail: (error) => {
      failure = error
      settle()
    },
  }
  request.onClose(() => {
    gone = true
    settle()
  })
  await hub.follow(follower, request.start, () => gone || events.length > 0)
  if (events.length === 0 && waitMs > 0 && !gone) {
    const timer = setTimeout(settle, waitMs)
    await settled
    clearTimeout(timer)
  }
  hub.leave(follower)
  if (failure !== undefined) throw failure
  return { changes: events.map(eventJson), next_page_token: tokens.encode(question.resource, { position: follower.position }) }
}

const MAX_TIMER_MS = 2 ** 31 - 1

/** Why a stream ends on the server's side: each is the stream's last event, named so. */
export type StreamEnd =
  | { readonly event: 'revoked', readonly reason: 'token-revoked' | 'access-changed' }
  | { readonly event: 'reauth' }
  | { readonly event: 'overflow' }
  | { readonly event: 'expired' }
  | { readonly event: 'unavailable' }

export interface StreamOptions {
  readonly heartbeatMs: number
  /** Bytes a stream may hold unsent before its reader counts as too slow and it ends. */
  readonly maxBufferedBytes: number
  /** How often the caller is checked again, and that check: undefined while they hold. */
  readonly recheckMs: number
  recheck (): Promise<StreamEnd | undefined>
  /** When the caller's token expires (ms since the epoch), if it says. */
  readonly expiresAt: number | undefined
  /** Told once the stream has ended, whatever ended it. */
  readonly onEnd: () => void
}

/**
 * A stream of Server-Sent Events: `ready` first (its id resumes from the start), each change with
 * its id, a comment every `heartbeatMs` carrying the newest id where the stream moved on without
 * an event for this caller, and a last named event when the server ends it.
 */
export function changeStream (request: FeedRequest, options: StreamOptions): Readable {
  const { hub, question, tokens } = request
  const stream = new PassThrough()
  let ended = false
  // The position of the last id sent, and where the stream stands: a heartbeat sends the latter when they differ.
  let sentPosition: Position | undefined
  let position = request.start.position
  const token = (at: Resume): string => tokens.encode(question.resource, at)
  const timers: NodeJS.Timeout[] = []
  const write = (text: string): void => {
    if (ended) return
    stream.write(text)
    if (stream.writableLength > options.maxBufferedBytes) end({ event: 'overflow' })
  }
  const end = (why?: StreamEnd): void => {
    if (ended) return
    if (why !== undefined) {
      const { event, ...data } = why
      stream.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`)
    }
    ended = true
    for (const timer of timers) clearInterval(timer)
    hub.leave(follower)
    stream.end()
    options.onEnd()
  }
  const follower: Follower = {
    question,
    position: request.start.position,
    deliver: (events, at) => {
      position = at
      for (const event of events) {
        sentPosition = event.resume.within === undefined ? event.resume.position : undefined
        write(`id: ${token(event.resume)}\ndata: ${JSON.stringify(eventJson(event))}\n\n`)
      }
    },
    fail: (error) => { end(isProblem(error) && error.slug === 'changes-expired' ? { event: 'expired' } : { event: 'unavailable' }) },
  }
  request.onClose(() => { end() })
  const ready = token(request.start)
  sentPosition = request.start.within === undefined ? request.start.position : undefined
  write(`retry: 1000\nevent: ready\nid: ${ready}\ndata: ${JSON.stringify({ next_page_token: ready })}\n\n`)
  timers.push(setInterval(() => {
    const moved = position !== sentPosition
    if (moved) sentPosition = position
    write(`${moved ? `id: ${token({ position })}\n` : ''}: heartbeat\n\n`)
  }, options.heartbeatMs))
  timers.push(setInterval(() => {
    void options.recheck().then((why) => { if (why !== undefined) end(why) }, () => {})
  }, options.recheckMs))
  const untilExpiry = options.expiresAt === undefined ? undefined : Math.max(0, options.expiresAt - Date.now())
  // Past a timer's longest delay (24.8 days) the re-check, which also sees expiry, ends the stream.
  if (untilExpiry !== undefined && untilExpiry <= MAX_TIMER_MS) {
    timers.push(setTimeout(() => { end({ event: 'reauth' }) }, untilExpiry))
  }
  for (const timer of timers) timer.unref()
  hub.follow(follower, request.start, () => ended).catch((error: unknown) => { follower.fail(error) })
  return stream
}
