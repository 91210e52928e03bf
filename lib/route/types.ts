// A resource route is data: where it answers (method, collection or record, custom method), what
// the caller must be allowed (its operations), which parameters it takes, and three stages: plan
// (parse and check, no I/O), run (the database) and respond (the answer). One runner (./run.ts)
// takes every request through the same gate and times the stages; one describer (./describe.ts)
// puts each route in the OpenAPI document of the callers who may call it. No Fastify here: the
// root plugin mounts routes (plugins/tablegate/routes.ts).
import type { Readable } from 'node:stream'
import type { TablegateContext } from '../context.js'
import type { AccessPlan, Operation, OperationAccess } from '../access/types.js'
import type { ResourceModel } from '../model/types.js'
import type { ApiContext, JsonSchema, ResourceApi } from '../openapi/document.js'
import type { RouteParameter } from './parameters.js'
import type { OperationClass } from '../config/rate-limits.js'

export type RouteMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE'

/** A request as the stages see it, once it is through the gate. */
export interface RouteInput {
  readonly ctx: TablegateContext
  readonly model: ResourceModel
  /** The caller's plan of the resource. */
  readonly access: AccessPlan
  /** The route's last operation as the caller may do it (a write's field rules). */
  readonly allowed: OperationAccess & { readonly allowed: true }
  /** The record's key parts, on record routes. */
  readonly key: readonly string[] | undefined
  readonly query: Readonly<Record<string, unknown>>
  readonly body: unknown
  readonly headers: Readonly<Record<string, string | string[] | undefined>>
  /** Calls `listener` once the response is done or the client went away (`finished` says which). */
  onClose (listener: (finished: boolean) => void): void
}

export interface Answer {
  readonly status: number
  readonly headers?: Readonly<Record<string, string>>
  /** The content type of `body`. */
  readonly type?: string
  /** JSON text, a stream, or nothing. */
  readonly body?: string | Readable
}

export interface ResourceRoute<Plan = unknown, Result = unknown> {
  /** The operation's id in OpenAPI (`list` → `list_orders`), unique among the routes. */
  readonly id: string
  readonly method: RouteMethod
  readonly target: 'collection' | 'record'
  /** `search` answers `{collection}:search`; `undelete` on a record route `{record}:undelete`. */
  readonly customMethod?: string
  /** What the caller must be allowed, in order: each refused is 403 access-denied. */
  readonly operations: readonly Operation[]
  /** Query parameters and headers: the query ones are all the route takes, the rest is refused. */
  readonly parameters: readonly RouteParameter[]
  /** Its request limit (default: `export` with the export operation, `read` with only reads, else `write`). */
  readonly operationClass?: OperationClass
  /** Whether the resource has this route at all (default: every resource has it). */
  readonly appliesTo?: (model: ResourceModel) => boolean
  /**
   * Whether the route is there for this caller in the OpenAPI document (default: the gate's
   * operations); `accessOf` is their plan of any resource, for what a relation reaches.
   */
  readonly offered?: (access: AccessPlan, accessOf: (resource: string) => AccessPlan) => boolean
  plan (input: RouteInput): Plan | Promise<Plan>
  run (plan: Plan, input: RouteInput): Promise<Result>
  respond (result: Result, plan: Plan, input: RouteInput): Answer | Promise<Answer>
  /** The OpenAPI operation without operationId, tags and parameters, which come from the declaration. */
  describe (api: ApiContext, resource: ResourceApi): JsonSchema
}

/**
 * A route with its stage types erased, as the runner and the table hold it: each route's stages
 * agree with each other (`resourceRoute` checks that), and the runner only passes one's output to the next.
 */
export type AnyResourceRoute = ResourceRoute<any, any>

/** Declares a route; the identity function that lets TypeScript tie `plan`, `run` and `respond` together. */
export function resourceRoute<Plan, Result> (route: ResourceRoute<Plan, Result>): ResourceRoute<Plan, Result> {
  return route
}

/** The budget a call of a resource route counts against. */
export function resourceRouteClass (route: AnyResourceRoute): OperationClass {
  if (route.operationClass !== undefined) return route.operationClass
  if (route.operations.includes('export')) return 'export'
  return route.operations.every((op) => op === 'read') ? 'read' : 'write'
}
