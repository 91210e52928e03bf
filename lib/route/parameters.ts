// A route's parameters, declared once: the names the runner accepts in the query string are the
// ones the OpenAPI document describes. Parameters many routes share are components
// (lib/openapi/parameters.ts), referred to by name; a route's own are written inline.
import type { AccessPlan } from '../access/types.js'
import { PARAMETERS } from '../openapi/parameters.js'
import type { ApiContext, JsonSchema } from '../openapi/document.js'

export type SharedParameter = keyof typeof PARAMETERS

export interface InlineParameter {
  readonly name: string
  readonly in: 'query' | 'header'
  readonly required?: boolean
  readonly description: string
  /** Its schema for this caller (`api.accessOf` gives their plans of other resources); undefined leaves it out of the caller's document (it is still taken). */
  readonly schema: JsonSchema | ((access: AccessPlan, api: ApiContext) => JsonSchema | undefined)
}

export type RouteParameter = SharedParameter | InlineParameter

/** Shared parameters described only to the callers they apply to. */
const OFFERED: Partial<Record<SharedParameter, (access: AccessPlan) => boolean>> = {
  show_deleted: (access) => access.showDeleted,
}

function placeOf (parameter: RouteParameter): { readonly name: string, readonly in: string } {
  return typeof parameter === 'string' ? PARAMETERS[parameter] : parameter
}

/** The query parameters a route takes, in their declared order. */
export function queryParameterNames (parameters: readonly RouteParameter[]): readonly string[] {
  return parameters.map(placeOf).filter((p) => p.in === 'query').map((p) => p.name)
}

/** The parameters as one caller's OpenAPI document describes them (`access`: their plan of the route's resource). */
export function describeParameters (parameters: readonly RouteParameter[], api: ApiContext, access: AccessPlan | undefined): JsonSchema[] {
  return parameters.flatMap((parameter) => {
    if (typeof parameter === 'string') {
      const offered = OFFERED[parameter]
      return offered === undefined || (access !== undefined && offered(access)) ? [api.parameter(parameter)] : []
    }
    // A schema made per caller needs the caller's plan of a resource, which an API route has not.
    const schema = typeof parameter.schema !== 'function' ? parameter.schema : access === undefined ? undefined : parameter.schema(access, api)
    if (schema === undefined) return []
    return [{ name: parameter.name, in: parameter.in, ...(parameter.required === true ? { required: true } : {}), schema, description: parameter.description }]
  })
}
