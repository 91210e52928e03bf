// An API route: one path under the base path that is no resource's (`:batchWrite`). It has no
// gate of its own beyond the verified caller: the engine behind it gates each resource it touches,
// with the same function resource routes use. Its stages run and are timed as a resource route's.
import type { TablegateContext } from '../context.js'
import type { ApiContext, JsonSchema } from '../openapi/document.js'
import type { Answer, RouteMethod } from './types.js'
import type { OperationClass } from '../config/rate-limits.js'
import type { RouteParameter } from './parameters.js'

export interface ApiRouteInput {
  readonly ctx: TablegateContext
  readonly query: Readonly<Record<string, unknown>>
  readonly body: unknown
  readonly headers: Readonly<Record<string, string | string[] | undefined>>
  onClose (listener: (finished: boolean) => void): void
}

export interface ApiRoute<Plan = unknown, Result = unknown> {
  /** The operation's id in OpenAPI. */
  readonly id: string
  readonly method: RouteMethod
  /** `batchWrite` answers `{basePath}:batchWrite`. */
  readonly customMethod: string
  /** Query parameters and headers: the query ones are all the route takes. */
  readonly parameters: readonly RouteParameter[]
  /** Its request limit (default: `read` for GET, else `write`). */
  readonly operationClass?: OperationClass
  plan (input: ApiRouteInput): Plan | Promise<Plan>
  run (plan: Plan, input: ApiRouteInput): Promise<Result>
  respond (result: Result, plan: Plan, input: ApiRouteInput): Answer | Promise<Answer>
  /** The OpenAPI operation for this caller without operationId and parameters; undefined where they can do nothing with it. */
  describe (api: ApiContext): JsonSchema | undefined
}

/** See AnyResourceRoute. */
export type AnyApiRoute = ApiRoute<any, any>

export function apiRoute<Plan, Result> (route: ApiRoute<Plan, Result>): ApiRoute<Plan, Result> {
  return route
}

/** The budget a call of an API route counts against. */
export function apiRouteClass (route: AnyApiRoute): OperationClass {
  return route.operationClass ?? (route.method === 'GET' ? 'read' : 'write')
}
