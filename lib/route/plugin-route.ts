// The route API for plugin authors: a route on every resource (`GET /{resource}:stats`) declared in
// a few lines, which becomes a declaration of the route table like the built-in ones. It gets
// what they get: the 401/404/403 gate and the tenant check, its parameters checked against the
// caller's own fields (a hidden field is refused exactly as an unknown one), problem+json errors,
// its operation in the OpenAPI document of each caller who may call it, Server-Timing and metrics.
// Its handler queries only the caller's rows: `rows` is the condition that keeps them (tenant,
// row rules, soft delete, and the caller's filter where the route takes one).
import type { CallerUser } from '../principal.js'
import { OPERATIONS, type AccessPlan, type Operation } from '../access/types.js'
import type { FieldModel, FieldType, ResourceModel } from '../model/types.js'
import type { Queryable } from '../db/query.js'
import type { JsonSchema } from '../openapi/document.js'
import { sql, type Sql } from '../sql/sql.js'
import { listConditions } from '../sql/read.js'
import { invalidParameter, parseBoolean, parseShowDeleted, textParameter } from '../query/params.js'
import { nearest } from '../text.js'
import { planFilter } from '../plan/filter.js'
import { readScope } from '../plan/read.js'
import type { PlanServices } from '../plan/read.js'
import { MAX_FILTER_QUERY } from '../plan/list.js'
import { INT4_MAX, INT4_MIN } from '../model/values.js'
import type { InlineParameter, RouteParameter } from './parameters.js'
import { resourceRoute, type AnyResourceRoute, type RouteInput } from './types.js'
import { RouteRegistrationError } from './table.js'

/** A query parameter of a plugin's route, and what its value must be. */
export type PluginRouteParameter = {
  readonly name: string
  readonly description: string
  readonly required?: boolean
} & (
  | { readonly kind: 'text', readonly enum?: readonly string[] }
  | { readonly kind: 'integer', readonly minimum?: number, readonly maximum?: number }
  | { readonly kind: 'boolean' }
  /** One of the fields the caller may filter on, of these types (any type when absent). */
  | { readonly kind: 'field', readonly types?: readonly FieldType[] }
)

export type PluginParameterValue = string | number | boolean | FieldModel | undefined

/** What a plugin route's handler gets: the caller, their view of the resource, the checked parameters. */
export interface PluginRouteInput {
  readonly user: CallerUser
  readonly tenant: string | undefined
  readonly model: ResourceModel
  /** The fields the caller may read. */
  readonly readable: readonly FieldModel[]
  /** Each declared parameter, checked: text, a number, true/false, or the field named. */
  readonly params: Readonly<Record<string, PluginParameterValue>>
  /** The rows the caller may see (and their filter keeps, where the route takes `filter`), as a condition for WHERE. */
  readonly rows: Sql
  /** The read-only pool, for the handler's statements (built with `sql`, so values are parameters). */
  readonly db: Queryable
  /** The JSON body of a POST route (undefined without one): the handler checks what it takes from it. */
  readonly body: unknown
}

export interface PluginResourceRoute<Result = unknown> {
  /** The operation's id in OpenAPI (`stats` → `stats_orders`). */
  readonly id: string
  readonly method: 'GET' | 'POST'
  /** `stats` answers `GET {basePath}/{resource}:stats`. */
  readonly customMethod: string
  /** What the caller must be allowed on the resource, e.g. `read`. */
  readonly operation: Operation
  readonly summary: string
  readonly description?: string
  readonly parameters?: readonly PluginRouteParameter[]
  /** Takes `filter` (AIP-160 over the caller's filterable fields) and `show_deleted`, which narrow `rows`. */
  readonly filter?: boolean
  /** The schema of the 200 answer's JSON. */
  readonly response: JsonSchema
  /** Whether the resource has the route (default: every resource has it). */
  readonly appliesTo?: (model: ResourceModel) => boolean
  handle (input: PluginRouteInput): Promise<Result>
}

const JSON_TYPE = 'application/json; charset=utf-8'
/** The largest integer parameter: parseParameter reads at most 15 digits. */
const MAX_INTEGER_PARAMETER = 999_999_999_999_999

function filterableOf (access: AccessPlan, types: readonly FieldType[] | undefined): FieldModel[] {
  return [...access.query.filterable.values()].filter((f) => types === undefined || types.includes(f.type))
}

/** The schema of a parameter for one caller: a field parameter lists the caller's own fields. */
function schemaOf (parameter: PluginRouteParameter, access: AccessPlan): JsonSchema {
  switch (parameter.kind) {
    case 'text': return parameter.enum === undefined ? { type: 'string' } : { type: 'string', enum: [...parameter.enum] }
    case 'integer': {
      // parseParameter takes at most 15 digits: within it, the declared bounds.
      const [minimum, maximum] = [parameter.minimum ?? -MAX_INTEGER_PARAMETER, parameter.maximum ?? MAX_INTEGER_PARAMETER]
      return { type: 'integer', format: minimum >= INT4_MIN && maximum <= INT4_MAX ? 'int32' : 'int64', minimum, maximum }
    }
    case 'boolean': return { type: 'boolean' }
    case 'field': return { type: 'string', enum: filterableOf(access, parameter.types).map((f) => f.name) }
  }
}

function parseParameter (parameter: PluginRouteParameter, value: unknown, access: AccessPlan): PluginParameterValue {
  const { name } = parameter
  if (value === undefined || value === '') {
    if (parameter.required === true) invalidParameter(name, `${name} is required: ${parameter.description}`)
    return undefined
  }
  if (parameter.kind === 'boolean') return parseBoolean(name, value)
  const text = textParameter(name, value)
  switch (parameter.kind) {
    case 'text':
      if (parameter.enum !== undefined && !parameter.enum.includes(text)) invalidParameter(name, `${name} must be one of ${parameter.enum.join(', ')}.`)
      return text
    case 'integer': {
      const number = /^-?[0-9]{1,15}$/.test(text) ? Number(text) : undefined
      if (number === undefined || (parameter.minimum !== undefined && number < parameter.minimum) || (parameter.maximum !== undefined && number > parameter.maximum)) {
        invalidParameter(name, `${name} must be a whole number${parameter.minimum === undefined ? '' : ` from ${parameter.minimum}`}${parameter.maximum === undefined ? '' : ` to ${parameter.maximum}`}.`)
      }
      return number
    }
    case 'field': {
      // Only the caller's own fields are known: a field they may not see reads as no field at all.
      const fields = filterableOf(access, parameter.types)
      const field = fields.find((f) => f.name === text)
      if (field === undefined) {
        const suggestion = nearest(text, fields.map((f) => f.name))
        invalidParameter(name, `There is no field '${text}' for ${name}${suggestion === undefined ? '' : ` (did you mean '${suggestion}'?)`}.`)
      }
      return field
    }
  }
}

function inlineParameter (parameter: PluginRouteParameter): InlineParameter {
  return { name: parameter.name, in: 'query', required: parameter.required, description: parameter.description, schema: (access) => schemaOf(parameter, access) }
}

interface PluginPlan {
  readonly params: Readonly<Record<string, PluginParameterValue>>
  readonly rows: Sql
}

const KINDS = ['text', 'integer', 'boolean', 'field']
const TAKEN_WITH_FILTER = ['filter', 'show_deleted']

function invalid (message: string): never {
  throw new RouteRegistrationError('TG_ERR_ROUTE_INVALID', `addResourceRoute ${message}`)
}

/** What the declaration does not check itself: the plugin's parameters and handler. */
function checkPluginRoute (route: PluginResourceRoute): void {
  if (typeof route !== 'object' || route === null) invalid('expects a route object')
  if (typeof route.handle !== 'function') invalid(`${String(route.id)}: handle must be a function (input) => Promise<answer>`)
  if (!OPERATIONS.includes(route.operation)) invalid(`${String(route.id)}: operation must be one of ${OPERATIONS.join(', ')}`)
  if (typeof route.summary !== 'string' || route.summary === '') invalid(`${String(route.id)}: summary must be a sentence for the OpenAPI document`)
  const names = new Set<string>()
  for (const parameter of route.parameters ?? []) {
    if (typeof parameter?.name !== 'string' || !/^[a-z][a-z0-9_]*$/.test(parameter.name)) invalid(`${String(route.id)}: a parameter name must be snake_case, not ${JSON.stringify(parameter?.name)}`)
    if (!KINDS.includes(parameter.kind)) invalid(`${String(route.id)}: parameter ${parameter.name} has kind ${JSON.stringify(parameter.kind)}; kinds are ${KINDS.join(', ')}`)
    if (names.has(parameter.name) || (route.filter === true && TAKEN_WITH_FILTER.includes(parameter.name))) invalid(`${String(route.id)}: parameter ${parameter.name} is declared twice`)
    names.add(parameter.name)
  }
}

/** The route table's declaration of a plugin's route. */
export function pluginRouteDeclaration (route: PluginResourceRoute, services: PlanServices, db: Queryable): AnyResourceRoute {
  checkPluginRoute(route)
  const parameters = route.parameters ?? []
  const declared: RouteParameter[] = [...parameters.map(inlineParameter), ...(route.filter === true ? ['filter', 'show_deleted'] as const : [])]
  return resourceRoute<PluginPlan, unknown>({
    id: route.id,
    method: route.method,
    target: 'collection',
    customMethod: route.customMethod,
    operations: [route.operation],
    parameters: declared,
    ...(route.appliesTo === undefined ? {} : { appliesTo: route.appliesTo }),
    plan: (input: RouteInput) => {
      const { access, query } = input
      const params = Object.fromEntries(parameters.map((p) => [p.name, parseParameter(p, query[p.name], access)]))
      const showDeleted = route.filter === true && parseShowDeleted(access.model, query.show_deleted)
      const filter = route.filter === true ? planFilter(textParameter('filter', query.filter), access, input.ctx.access, services.checks, MAX_FILTER_QUERY) : undefined
      const conditions = listConditions({ model: access.model, scope: readScope(access, showDeleted), filter })
      return { params, rows: conditions.length === 0 ? sql`true` : sql.join(conditions, sql` AND `) }
    },
    run: async (plan, input) => await route.handle({
      user: input.ctx.user!,
      tenant: input.ctx.tenant,
      model: input.model,
      readable: input.access.readable,
      params: plan.params,
      rows: plan.rows,
      db,
      body: input.body,
    }),
    respond: (result) => ({ status: 200, type: JSON_TYPE, body: JSON.stringify(result) }),
    describe: (api) => ({
      summary: route.summary,
      ...(route.description === undefined ? {} : { description: route.description }),
      responses: { 200: { description: route.summary, ...api.json(route.response) }, ...api.problems(400, 401, 403, 504) },
    }),
  })
}
