// The OpenAPI 3.1 document of one caller: the shared parts (record and body schemas per resource,
// parameters, problem responses, the bearer scheme) are made here from the caller's access plans;
// the operations come from describers, one per plugin, each describing its own routes.
import type { AccessPlan } from '../access/types.js'
import { createBodySchema, permissionsSchema, PROBLEM_SCHEMA, recordSchema, updateBodySchema, type JsonSchema } from './schemas.js'
import { PARAMETERS, PROBLEM_RESPONSES, type ProblemStatus } from './parameters.js'

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
  /** `$ref` of a shared parameter (PARAMETERS in parameters.ts). */
  parameter (name: keyof typeof PARAMETERS): JsonSchema
  /** The problem responses of these statuses, for an operation's `responses`. */
  problems (...statuses: ProblemStatus[]): Record<string, JsonSchema>
  /** A JSON request body or response content. */
  json (schema: JsonSchema): JsonSchema
}

/** Paths → methods → operation objects. */
export type PathItems = Record<string, Record<string, unknown>>

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

function resourceSchemas (api: ResourceApi, rowPermissions: boolean): Record<string, JsonSchema> {
  const { access, name } = api
  // List items carry { update, delete }, a get adds `fields`, writes answer without permissions.
  const permissions = rowPermissions ? permissionsSchema(access.readable) : undefined
  return {
    [name]: recordSchema(access, permissions),
    [`${name}.create`]: createBodySchema(access),
    [`${name}.update`]: updateBodySchema(access),
    [`${name}.list`]: {
      type: 'object',
      properties: {
        items: { type: 'array', items: api.refs.record },
        next_page_token: { type: 'string', description: 'The next page\'s page_token; "" on the last page.' },
        total_size_estimate: { type: 'integer' },
        total_size: { type: 'integer', description: 'With count=exact.' },
      },
      required: ['items', 'next_page_token', 'total_size_estimate'],
      additionalProperties: false,
    },
  }
}

function merge (into: PathItems, items: PathItems): void {
  for (const [path, methods] of Object.entries(items)) into[path] = { ...into[path], ...methods }
}

export function openApiDocument (input: OpenApiInput): JsonSchema {
  const resources = input.plans.filter((p) => p.visible).map((p) => resourceApi(p, input.basePath))
  const api: ApiContext = {
    basePath: input.basePath,
    resources,
    parameter: (name) => ref('parameters', name),
    problems: (...statuses) => Object.fromEntries(statuses.map((s) => [String(s), ref('responses', PROBLEM_RESPONSES[s].name)])),
    json: (schema) => ({ content: { 'application/json': { schema } } }),
  }
  const paths: PathItems = {}
  for (const describe of input.describers) merge(paths, describe(api))
  return {
    openapi: '3.1.1',
    info: {
      title: 'tablegate API',
      version: input.version,
      description: 'The resources, fields and operations this caller may use. Every response carries X-Meta-Version; when it changes, fetch this document again.',
    },
    servers: [{ url: input.publicUrl }],
    security: [{ bearer: [] }],
    tags: resources.map((r) => ({ name: r.name })),
    paths,
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'An access token from GET /api/auth/token (15 minutes).' } },
      schemas: {
        Problem: PROBLEM_SCHEMA,
        ...Object.fromEntries(resources.flatMap((r) => Object.entries(resourceSchemas(r, input.rowPermissions.has(r.name))))),
      },
      parameters: PARAMETERS,
      responses: Object.fromEntries(Object.values(PROBLEM_RESPONSES).map(({ name, description }) => [name, {
        description,
        ...(name === 'Unauthenticated' ? { headers: { 'WWW-Authenticate': { schema: { type: 'string', const: 'Bearer' } } } } : {}),
        content: { 'application/problem+json': { schema: ref('schemas', 'Problem') } },
      }])),
    },
  }
}
