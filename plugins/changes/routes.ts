// GET {basePath}/{resource}:changes as a route declaration: the changes of a resource with
// `changes` configured that the caller's list with their `filter` would show, as JSON (a long-poll
// of up to `wait` seconds) or as Server-Sent Events (`Accept: text/event-stream`). See
// docs/changes.md.
import type { Runtime } from '../../lib/runtime.js'
import { resourceRoute, type Answer, type AnyResourceRoute, type RouteInput } from '../../lib/route/types.js'
import { planList, MAX_FILTER_QUERY } from '../../lib/plan/list.js'
import type { ListPlan } from '../../lib/plan/types.js'
import { questionKey, readChanges } from '../../lib/changes/evaluate.js'
import type { ChangeHub, Question } from '../../lib/changes/hub.js'
import { changesExpired } from '../../lib/changes/hub.js'
import type { ChangeTokens, Resume } from '../../lib/changes/position.js'
import { invalidParameter, textParameter } from '../../lib/query/params.js'
import { isProblem } from '../../lib/problems.js'
import { callerKey } from '../../lib/access/resolve.js'
import { changeStream, longPoll, type StreamEnd } from './feed.js'
import { describeChanges } from './openapi.js'
import type { StreamSlots } from './slots.js'

const JSON_TYPE = 'application/json; charset=utf-8'
const MAX_WAIT_SECONDS = 30
/** What a stream may hold for a reader that does not read: then it ends, and the reader resumes. */
const MAX_BUFFERED_BYTES = 1024 * 1024

export interface ChangeFeed {
  readonly hub: ChangeHub
  readonly tokens: ChangeTokens
  readonly slots: StreamSlots
  /** Opens the LISTEN connection, once: at the first request of a feed. */
  readonly startListening: () => void
}

interface ChangesPlan {
  readonly list: ListPlan
  readonly question: Question
  /** The resume token, from `page_token` or `Last-Event-ID`; none: from now. */
  readonly token: { readonly text: string, readonly parameter: string } | undefined
  readonly waitMs: number
  readonly stream: boolean
}

function waitOf (value: unknown): number {
  if (value === undefined) return 0
  const text = typeof value === 'string' ? value : ''
  if (!/^[0-9]{1,2}$/.test(text) || Number(text) > MAX_WAIT_SECONDS) invalidParameter('wait', `wait is a whole number of seconds from 0 to ${MAX_WAIT_SECONDS}.`)
  return Number(text) * 1000
}

function headerOf (value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value
}

/** The token's `exp` (ms since the epoch), read without a second verification: the gate verified it. */
function expiryOf (authorization: string | undefined): number | undefined {
  const payload = /^Bearer +[^.]+\.([^.]+)\./i.exec(authorization ?? '')?.[1]
  if (payload === undefined) return undefined
  try {
    const exp = (JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { exp?: unknown }).exp
    return typeof exp === 'number' ? exp * 1000 : undefined
  } catch {
    return undefined
  }
}

export function changesRoute (runtime: Runtime, feed: ChangeFeed): AnyResourceRoute {
  const { config, db, services, verifier } = runtime
  const { hub, tokens, slots } = feed
  const settings = config.changes

  /** Where the request starts: where its token resumes, or now. */
  const startOf = async (plan: ChangesPlan, resource: string): Promise<Resume> => {
    if (plan.token === undefined) return { position: await hub.now() }
    const opened = tokens.open(resource, plan.token.text, plan.token.parameter)
    if (Date.now() - opened.issuedAt > settings.retentionMs) changesExpired()
    await hub.resumable(opened.resume.within?.from ?? opened.resume.position)
    return opened.resume
  }

  /**
   * The caller as their token now stands: revoked, changed, or as they were (undefined). Read from
   * the revocations every process keeps in memory (refreshed every revocationPollMs), as a request
   * would be; a check that could not be made (the keys unreachable) is made again next time.
   */
  const recheck = async (input: RouteInput): Promise<StreamEnd | undefined> => {
    const authorization = headerOf(input.headers.authorization)
    try {
      const now = await verifier.authenticate(authorization)
      const before = { user: input.ctx.user!, tenant: input.ctx.tenant, org: input.ctx.org }
      return callerKey(now) === callerKey(before) ? undefined : { event: 'revoked', reason: 'access-changed' }
    } catch (err) {
      if (!isProblem(err) || err.slug !== 'unauthenticated') return undefined
      const expires = expiryOf(authorization)
      return expires !== undefined && expires <= Date.now() ? { event: 'reauth' } : { event: 'revoked', reason: 'token-revoked' }
    }
  }

  return resourceRoute<ChangesPlan, Answer>({
    id: 'changes',
    method: 'GET',
    target: 'collection',
    customMethod: 'changes',
    operations: ['read'],
    appliesTo: (model) => model.changes !== undefined,
    parameters: [
      'filter', 'fields',
      { name: 'page_token', in: 'query', schema: { type: 'string' }, description: 'Where to resume: a `next_page_token`, or an event\'s `id`. Without one (and without `Last-Event-ID`) the feed starts now.' },
      { name: 'wait', in: 'query', schema: { type: 'integer', format: 'int32', minimum: 0, maximum: MAX_WAIT_SECONDS, default: 0 }, description: 'JSON only: how many seconds to wait for a change when there is none yet (0: answer at once).' },
      { name: 'Last-Event-ID', in: 'header', schema: { type: 'string' }, description: 'Server-Sent Events: the id of the last event received, to resume after it.' },
    ],
    plan: (input) => {
      const stream = /\btext\/event-stream\b/i.test(headerOf(input.headers.accept) ?? '')
      const list = planList({ filter: input.query.filter, fields: input.query.fields }, {
        access: input.access,
        accessOf: input.ctx.access,
        services,
        rowPermissions: config.rowPermissions.has(input.model.name),
        maxFilterLength: MAX_FILTER_QUERY,
      })
      const pageToken = textParameter('page_token', input.query.page_token)
      const lastEventId = headerOf(input.headers['last-event-id']) ?? ''
      const token = pageToken !== '' ? { text: pageToken, parameter: 'page_token' } : lastEventId !== '' ? { text: lastEventId, parameter: 'Last-Event-ID' } : undefined
      const waitMs = waitOf(input.query.wait)
      if (stream && input.query.wait !== undefined) invalidParameter('wait', 'wait is for JSON long-polls: a Server-Sent Events stream waits as long as it is open.')
      const question: Question = {
        key: questionKey(list),
        resource: input.model.name,
        read: async (window) => await readChanges(db.changes, list, window, tokens, services),
      }
      return { list, question, token, waitMs, stream }
    },
    run: async (plan, input) => {
      feed.startListening()
      const start = await startOf(plan, input.model.name)
      const caller = JSON.stringify([input.ctx.tenant ?? null, input.ctx.user?.id ?? null])
      const request = { hub, question: plan.question, tokens, start, onClose: (listener: () => void) => { input.onClose(listener) } }
      if (!plan.stream) {
        // From now, at once: nothing yet, and the token to read on from (no catch-up to race with).
        if (plan.token === undefined && plan.waitMs === 0) return { status: 200, type: JSON_TYPE, body: JSON.stringify({ changes: [], next_page_token: tokens.encode(input.model.name, start) }) }
        if (plan.waitMs === 0) return { status: 200, type: JSON_TYPE, body: JSON.stringify(await longPoll(request, 0)) }
        const release = slots.take(caller)
        try {
          return { status: 200, type: JSON_TYPE, body: JSON.stringify(await longPoll(request, plan.waitMs)) }
        } finally {
          release()
        }
      }
      const release = slots.take(caller)
      const body = changeStream(request, {
        heartbeatMs: settings.heartbeatMs,
        maxBufferedBytes: MAX_BUFFERED_BYTES,
        recheckMs: config.revocationPollMs,
        recheck: async () => await recheck(input),
        expiresAt: expiryOf(headerOf(input.headers.authorization)),
        onEnd: release,
      })
      // The connection ends with the stream: kept alive past it, it would hold a closing server until its keep-alive timeout.
      return { status: 200, type: 'text/event-stream; charset=utf-8', headers: { 'cache-control': 'no-cache', 'x-accel-buffering': 'no', connection: 'close' }, body }
    },
    respond: (answer) => answer,
    describe: describeChanges,
  })
}

