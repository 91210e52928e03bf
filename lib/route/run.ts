// The one way a request goes through a resource route: the gate (the resource exists for the
// caller, each of the route's operations is allowed, a tenant-scoped resource has a tenant), then
// the parameters (the query string holds only the route's own; the key parses), then plan → run
// → respond, each timed for Server-Timing here and nowhere else. Every refusal is a Problem,
// which the HTTP edge sends as problem+json.
import type { TablegateContext } from '../context.js'
import type { Stage } from '../timing.js'
import type { ResourceModel } from '../model/types.js'
import { parseKey } from '../model/keys.js'
import { checkKnownParameters } from '../query/params.js'
import { admit } from '../access/require.js'
import type { AnyResourceRoute, Answer, RouteInput } from './types.js'
import type { AnyApiRoute, ApiRouteInput } from './api-route.js'

/** The request as the HTTP edge hands it over. */
export interface RouteRequest {
  readonly ctx: TablegateContext
  readonly query: Readonly<Record<string, unknown>>
  readonly body: unknown
  readonly headers: Readonly<Record<string, string | string[] | undefined>>
  /** The record's key as it was in the URL (still percent-encoded), on record routes. */
  readonly rawKey: string | undefined
  onClose (listener: (finished: boolean) => void): void
}

/** Runs `route` of `model` for one request: the gate, the parameters, then its stages. */
export async function runResourceRoute (route: AnyResourceRoute, queryNames: readonly string[], model: ResourceModel, request: RouteRequest): Promise<Answer> {
  const { ctx } = request
  const access = ctx.access(model.name)
  const allowed = admit(access, model, route.operations, ctx.tenant)
  checkKnownParameters(request.query, queryNames)
  const input: RouteInput = {
    ctx,
    model,
    access,
    allowed,
    key: request.rawKey === undefined ? undefined : parseKey(model, request.rawKey),
    query: request.query,
    body: request.body,
    headers: request.headers,
    onClose: request.onClose,
  }
  return await stages(route, input, ctx)
}

/** Runs an API route (no resource of its own: each of its operations is gated by its engine). */
export async function runApiRoute (route: AnyApiRoute, queryNames: readonly string[], request: RouteRequest): Promise<Answer> {
  checkKnownParameters(request.query, queryNames)
  const input: ApiRouteInput = { ctx: request.ctx, query: request.query, body: request.body, headers: request.headers, onClose: request.onClose }
  return await stages(route, input, request.ctx)
}

interface Stages<Input> {
  plan (input: Input): unknown
  run (plan: unknown, input: Input): Promise<unknown>
  respond (result: unknown, plan: unknown, input: Input): Answer | Promise<Answer>
}

async function stages<Input> (route: Stages<Input>, input: Input, ctx: TablegateContext): Promise<Answer> {
  const times = ctx.timing
  times?.mark()
  // A stage that fails (a record not found, a timeout) still counts the time it took.
  let stage: Stage = 'plan'
  try {
    // A stage that answers at once is not awaited: lists plan and many routes respond synchronously.
    const planned = route.plan(input)
    const plan = planned instanceof Promise ? await planned : planned
    times?.lap(stage)
    stage = 'db'
    const result = await route.run(plan, input)
    times?.lap(stage)
    stage = 'serialize'
    const responded = route.respond(result, plan, input)
    const answer = responded instanceof Promise ? await responded : responded
    times?.lap(stage)
    return answer
  } catch (err) {
    times?.lap(stage)
    throw err
  }
}
