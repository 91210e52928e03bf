// The OpenAPI 3.1 document of one caller: the shared parts (record and body schemas per resource,
// parameters, problem responses, the bearer scheme) are made here from the caller's access plans;
// the operations come from describers, one per plugin, each describing its own routes.
import type { AccessPlan } from '../access/types.js'
import { followable } from '../access/relations.js'
import { COUNT_SCHEMA, createBodySchema, permissionsSchema, PROBLEM_SCHEMA, recordSchema, updateBodySchema, type JsonSchema } from './schemas.js'
import { CHALLENGES, PARAMETERS, PROBLEM_RESPONSES, type ProblemStatus } from './parameters.js'
import type { OperationClass } from '../config/rate-limits.js'
import { bearerScheme, boundParameter, bounded, CORS_HEADER, serverEntry } from './bounds.js'
import type { VerifierConfig } from '../config/schema.js'

export type { JsonSchema }

/** One resource the caller can see, with the names of its component schemas. */
export interface ResourceApi {
  readonly name: string
  readonly access: AccessPlan
  /** `/api/v1/orders` */
  readonly collectionPath: string
  /** `/api/v1/orders/{key}` */
  readonly recordPath: string
  readonly refs: {
    readonly record: JsonSchema
    readonly create: JsonSchema
    readonly update: JsonSchema
    readonly list: JsonSchema
  }
}

/** What a describer gets: the caller's resources and references to the shared components. */
export interface ApiContext {
  readonly basePath: string
  readonly resources: readonly ResourceApi[]
  /** The caller's plan of any resource of the app, seen or not: what relations lead to. */
  accessOf (resource: string): AccessPlan
  /** `$ref` of a shared parameter (PARAMETERS in parameters.ts). */
  parameter (name: keyof typeof PARAMETERS): JsonSchema
  /** The problem responses of these statuses, for an operation's `responses`. */
  problems (...statuses: ProblemStatus[]): Record<string, JsonSchema>
  /** A JSON request body or response content. */
  json (schema: JsonSchema): JsonSchema
}

/** Paths → methods → operation objects. */
export type PathItems = Record<string, Record<string, unknown>>

/**
 * The request limit an operation counts against, set on the operation by the route table under a
 * symbol (so no JSON of the document shows it); an operation without it counts by its method.
 */
export const OPERATION_CLASS = Symbol('operation class')

/** A plugin's operations for one caller; it adds nothing for operations the caller may not do. */
export type OperationsDescriber = (api: ApiContext) => PathItems

export interface OpenApiInput {
  /** The caller's plan of every resource of the app. */
  readonly plans: readonly AccessPlan[]
  readonly basePath: string
  readonly publicUrl: string
  readonly rowPermissions: ReadonlySet<string>
  readonly describers: readonly OperationsDescriber[]
  readonly version: string
  /** The classes of operation whose calls count against a budget of this caller (config `rateLimits`); none when limits are off or the caller is exempt. */
  readonly limited: ReadonlySet<OperationClass>
  /** The largest JSON body, in bytes (config `bodyLimit`): what bounds a body's strings and arrays without a bound of their own. */
  readonly bodyLimit: number
  /** The origins a browser may call the API from (config `trustedOrigins` and the public URL's): CORS. */
  readonly origins: readonly string[]
  /** Another issuer's tokens (config `verifier`); undefined with the built-in login. */
  readonly verifier: VerifierConfig | undefined
}

const ref = (kind: string, name: string): JsonSchema => ({ $ref: `#/components/${kind}/${name}` })

function resourceApi (access: AccessPlan, basePath: string): ResourceApi {
  const name = access.resource
  return {
    name,
    access,
    collectionPath: `${basePath}/${name}`,
    recordPath: `${basePath}/${name}/{key}`,
    refs: { record: ref('schemas', name), create: ref('schemas', `${name}.create`), update: ref('schemas', `${name}.update`), list: ref('schemas', `${name}.list`) },
  }
}

function resourceSchemas (api: ResourceApi, rowPermissions: boolean, accessOf: (resource: string) => AccessPlan): Record<string, JsonSchema> {
  const { access, name } = api
  // List items carry { update, delete }, a get adds `fields`, writes answer without permissions.
  const permissions = rowPermissions ? permissionsSchema(access.readable) : undefined
  // Only the relations the caller may follow: their targets are resources the caller reads, so
  // each `$ref` names a record schema of this document (and keeps it through usedComponents).
  return {
    [name]: recordSchema(access, permissions, followable(access, accessOf)),
    [`${name}.create`]: createBodySchema(access),
    [`${name}.update`]: updateBodySchema(access),
    [`${name}.list`]: {
      type: 'object',
      properties: {
        items: { type: 'array', items: api.refs.record },
        next_page_token: { type: 'string', description: 'The next page\'s page_token; "" on the last page.' },
        total_size_estimate: COUNT_SCHEMA,
        total_size: { ...COUNT_SCHEMA, description: 'With count=exact.' },
      },
      required: ['items', 'next_page_token', 'total_size_estimate'],
      additionalProperties: false,
    },
  }
}

function merge (into: PathItems, items: PathItems): void {
  for (const [path, methods] of Object.entries(items)) into[path] = { ...into[path], ...methods }
}

// What the HTTP layer may answer on any route, whatever the operation: a URL that does not decode
// (400), no or a bad token (401), a request too slow to arrive (408) or with too large a header
// block (431), an unexpected failure (500), the database or the signing keys out of reach (503).
const ANY_ROUTE: readonly ProblemStatus[] = [400, 401, 408, 431, 500, 503]
// Fastify reads a body on these methods whatever the route: too large is 413, not JSON is 415.
const BODY_METHODS = new Set(['post', 'put', 'patch', 'delete'])

const RATE_LIMIT_HEADERS = { 'RateLimit-Policy': ref('headers', 'RateLimit-Policy'), RateLimit: ref('headers', 'RateLimit') }

/** The limit fields on an operation's own responses; the shared problem responses carry them already. */
function withLimitFields (responses: Record<string, JsonSchema>): Record<string, JsonSchema> {
  return Object.fromEntries(Object.entries(responses).map(([status, response]) => [status, response.$ref !== undefined
    ? response
    : { ...response, headers: { ...(response.headers as JsonSchema | undefined), ...RATE_LIMIT_HEADERS } }]))
}

const CORS_HEADERS = { 'Access-Control-Allow-Origin': ref('headers', 'Access-Control-Allow-Origin') }

/** The CORS field on an operation's own responses (the shared problem responses carry it already). */
function withCors (responses: Record<string, JsonSchema>): Record<string, JsonSchema> {
  return Object.fromEntries(Object.entries(responses).map(([status, response]) => [status, response.$ref !== undefined
    ? response
    : { ...response, headers: { ...CORS_HEADERS, ...(response.headers as JsonSchema | undefined) } }]))
}

/**
 * Adds to each operation the statuses every route of its kind can answer, and where its calls
 * count against a budget of the caller's, the 429 and the limit fields.
 */
function withRouteStatuses (paths: PathItems, problems: ApiContext['problems'], limited: ReadonlySet<OperationClass>): PathItems {
  return Object.fromEntries(Object.entries(paths).map(([path, item]) => [path, Object.fromEntries(Object.entries(item).map(([method, operation]) => {
    if (method === 'parameters') return [method, operation]
    const { [OPERATION_CLASS]: declared, ...op } = operation as { responses: Record<string, JsonSchema>, [OPERATION_CLASS]?: OperationClass }
    const counted = limited.has(declared ?? (method === 'get' ? 'read' : 'write'))
    const statuses = [...ANY_ROUTE, ...(BODY_METHODS.has(method) ? [413, 415] as const : []), ...(path.includes('{') ? [414] as const : []), ...(counted ? [429] as const : [])]
    const responses = withCors({ ...op.responses, ...problems(...statuses.filter((s) => op.responses[String(s)] === undefined)) })
    return [method, { ...op, responses: counted ? withLimitFields(responses) : responses }]
  }))]))
}

/** The `$ref`s in a value, deep. */
function refsIn (value: unknown, into: Set<string>): Set<string> {
  if (Array.isArray(value)) for (const v of value) refsIn(v, into)
  else if (typeof value === 'object' && value !== null) {
    for (const [k, v] of Object.entries(value)) {
      if (k === '$ref' && typeof v === 'string') into.add(v)
      else refsIn(v, into)
    }
  }
  return into
}

/**
 * Only the components the paths use, directly or through other components: no body schema of an
 * operation the caller cannot perform, no parameter or response of one.
 */
function usedComponents (paths: PathItems, components: Record<string, Record<string, unknown>>): Record<string, Record<string, unknown>> {
  const used = new Set<string>()
  let pending = [...refsIn(paths, new Set())]
  while (pending.length > 0) {
    const next: string[] = []
    for (const ref of pending) {
      if (used.has(ref)) continue
      used.add(ref)
      const [, , kind, name] = ref.split('/')
      const component = components[kind!]?.[name!]
      if (component !== undefined) next.push(...refsIn(component, new Set()))
    }
    pending = next
  }
  return Object.fromEntries(Object.entries(components).map(([kind, members]) => [kind, Object.fromEntries(Object.entries(members).filter(([name]) => kind === 'securitySchemes' || used.has(`#/components/${kind}/${name}`)))]))
}

const RETRY_AFTER = { 'Retry-After': { schema: { type: 'string', pattern: '^[0-9]{1,10}$', maxLength: 10 }, description: 'Seconds to wait before trying again.' } }

// draft-ietf-httpapi-ratelimit-headers-09: structured field lists, one item per policy (here the operation's class).
const RATE_LIMIT_FIELDS: Record<string, JsonSchema> = {
  'RateLimit-Policy': {
    schema: { type: 'string' },
    description: 'The budget this request counted against (config rateLimits): q requests per w seconds, for the caller (user and organization) and this class of operation. Sent on every counted answer; not for exempt roles.',
    example: '"read";q=600;w=60',
  },
  RateLimit: {
    schema: { type: 'string' },
    description: 'What is left of that budget: r requests until the window ends, in t seconds.',
    example: '"read";r=597;t=42',
  },
}

function problemResponse (status: ProblemStatus, description: string, limited: boolean): JsonSchema {
  // A 401 is answered before any budget is counted.
  const fields = limited && status !== 401 ? RATE_LIMIT_HEADERS : {}
  const headers = status === 401
    ? { 'WWW-Authenticate': { required: true, schema: { type: 'string', enum: [...CHALLENGES] }, description: 'Bearer without a token; Bearer error="invalid_token" for an expired, revoked or invalid one (RFC 6750).' } }
    : status === 429 || status === 503 ? { ...RETRY_AFTER, ...fields } : limited ? fields : {}
  return { description, headers: { ...CORS_HEADERS, ...headers }, content: { 'application/problem+json': { schema: ref('schemas', 'Problem') } } }
}

export function openApiDocument (input: OpenApiInput): JsonSchema {
  const resources = input.plans.filter((p) => p.visible).map((p) => resourceApi(p, input.basePath))
  const planOf = new Map(input.plans.map((p) => [p.resource, p]))
  const accessOf = (resource: string): AccessPlan => planOf.get(resource)!
  const api: ApiContext = {
    basePath: input.basePath,
    resources,
    accessOf,
    parameter: (name) => ref('parameters', name),
    problems: (...statuses) => Object.fromEntries(statuses.map((s) => [String(s), ref('responses', PROBLEM_RESPONSES[s].name)])),
    json: (schema) => ({ content: { 'application/json': { schema } } }),
  }
  const described: PathItems = {}
  for (const describe of input.describers) merge(described, describe(api))
  const paths = bounded(withRouteStatuses(described, api.problems, input.limited), input.bodyLimit)
  const limited = input.limited.size > 0
  const components = usedComponents(paths, {
    securitySchemes: { bearer: bearerScheme(input.verifier) },
    schemas: {
      Problem: PROBLEM_SCHEMA,
      ...Object.fromEntries(resources.flatMap((r) => Object.entries(resourceSchemas(r, input.rowPermissions.has(r.name), accessOf)))),
    },
    parameters: Object.fromEntries(Object.entries(PARAMETERS).map(([name, parameter]) => [name, boundParameter(parameter)])),
    responses: Object.fromEntries(Object.entries(PROBLEM_RESPONSES).map(([status, { name, description }]) => [name, problemResponse(Number(status) as ProblemStatus, description, limited)])),
    headers: { ...CORS_HEADER(input.origins), ...(limited ? RATE_LIMIT_FIELDS : {}) },
  })
  return {
    openapi: '3.1.1',
    info: {
      title: 'tablegate API',
      version: input.version,
      description: 'The resources, fields and operations this caller may use. Every response carries X-Meta-Version; when it changes, fetch this document again.',
    },
    servers: [serverEntry(input.publicUrl)],
    security: [{ bearer: [] }],
    tags: resources.map((r) => ({ name: r.name })),
    paths,
    components,
  }
}
