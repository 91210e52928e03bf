// /api/meta and /api/openapi.json of each caller shape (id, roles, tenant, organization roles: all that rules see),
// built once from the caller's access plans and kept with their text and ETag, so a client's
// repeated fetches cost a lookup. The shape decides the caller's plan of every resource, so it
// covers what a document takes from plans of other resources too (which relations it may follow).
import type { AccessPlan } from '../access/types.js'
import type { ResolvedConfig } from '../config/resolve.js'
import { BoundedCache } from '../cache.js'
import { openApiDocument, type JsonSchema, type OperationsDescriber } from '../openapi/document.js'
import { cachedDocument, type CachedDocument } from './cached-document.js'
import { clientMetadata } from './check.js'
import { metaDocument } from './document.js'
import type { MetaVersion } from '../meta-version.js'
import type { OperationClass, RateLimitSettings } from '../config/rate-limits.js'

const NOT_LIMITED: ReadonlySet<OperationClass> = new Set()

/** The classes a caller with these roles is counted in: none without limits or with an exempt role. */
function limitedClasses (settings: RateLimitSettings | undefined, roles: readonly string[]): ReadonlySet<OperationClass> {
  if (settings === undefined || roles.some((role) => settings.exempt.includes(role))) return NOT_LIMITED
  return new Set((['read', 'write', 'export', 'aggregate'] as const).filter((c) => settings.budgets[c] !== undefined))
}

/** What a document is built from: the caller's plan of a resource, and their roles. */
export interface DocumentCaller {
  /** The caller's shape as text (AccessPlan.callerKey). */
  readonly key: string
  readonly roles: readonly string[]
  /** The organization roles in the active organization, when there is one. */
  readonly orgRoles?: readonly string[] | undefined
  readonly access: (resource: string) => AccessPlan
}

export interface CallerDocumentsOptions {
  readonly config: ResolvedConfig
  readonly resources: readonly string[]
  readonly describers: readonly OperationsDescriber[]
  /** X-Meta-Version of a role set (and organization role set): the OpenAPI document's version. */
  readonly metaVersion: MetaVersion
}

export class CallerDocuments {
  readonly #meta = new BoundedCache<CachedDocument>(1000)
  readonly #openapi = new BoundedCache<CachedDocument & { readonly value: JsonSchema }>(1000)

  constructor (private readonly options: CallerDocumentsOptions) {}

  #plans (caller: DocumentCaller): AccessPlan[] {
    return this.options.resources.map((r) => caller.access(r))
  }

  meta (caller: DocumentCaller): CachedDocument {
    const { config } = this.options
    return this.#meta.getOrCreate(caller.key, () => cachedDocument(metaDocument({
      plans: this.#plans(caller),
      roles: caller.roles,
      metadata: clientMetadata(config),
      resources: config.resources,
      allTenants: caller.roles.some((role) => config.allTenants.includes(role)),
    })))
  }

  openapi (caller: DocumentCaller): CachedDocument & { readonly value: JsonSchema } {
    const { config, describers, metaVersion } = this.options
    return this.#openapi.getOrCreate(caller.key, () => {
      const value = openApiDocument({
        plans: this.#plans(caller),
        basePath: config.basePath,
        publicUrl: config.publicUrl,
        rowPermissions: config.rowPermissions,
        describers,
        version: metaVersion(caller.roles, caller.orgRoles),
        limited: limitedClasses(config.rateLimits, caller.roles),
        bodyLimit: config.bodyLimit,
        origins: config.pageOrigins,
        verifier: config.verifier,
      })
      return { ...cachedDocument(value), value }
    })
  }
}
