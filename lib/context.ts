// The typed request context every stage reads (`request.ctx`), and the `app.tablegate` decorator.
// Third-party plugins extend TablegateContext by declaration merging.
import type { ResolvedConfig } from './config/resolve.js'
import type { Databases } from './db/connect.js'
import type { UserStore } from './auth/users.js'
import type { Verifier } from './auth/verifier.js'
import type { ResourceModel } from './model/types.js'
import type { ListGuard } from './read/execute.js'
import type { AccessPlan } from './access/types.js'
import type { WriteHook } from '../hooks/types.js'
import type { WriteHooks } from '../hooks/registry.js'

export interface CallerUser {
  readonly id: string
  readonly roles: readonly string[]
}

export interface TablegateContext {
  /** The verified caller; null only on public routes (`/api/auth/*`). */
  user: CallerUser | null
  tenant: string | undefined
  /** The caller's access to a resource, resolved once per request and resource. */
  access (resource: string): AccessPlan
}

export interface TablegateDecorator {
  readonly config: ResolvedConfig
  readonly db: Databases
  /** Host-side user operations; undefined when tokens come from an auth server elsewhere. */
  readonly users: UserStore | undefined
  readonly verifier: Verifier
  /** `X-Meta-Version` for a role set. */
  readonly metaVersion: (roles: readonly string[]) => string
  /** Resource models, checked against the database at startup. */
  readonly models: ReadonlyMap<string, ResourceModel>
  readonly hooks: WriteHooks
  /** Adds a hook that runs inside every write transaction, after the write. */
  addWriteHook (hook: WriteHook): void
  readonly listGuards: readonly ListGuard[]
  /** Adds a check that runs before every list's queries (the scan guard is one). */
  addListGuard (guard: ListGuard): void
  /** What the database offers: pg_trgm for similar(). */
  readonly capabilities: { readonly trigram: boolean }
}

declare module 'fastify' {
  interface FastifyRequest {
    ctx: TablegateContext
  }
  interface FastifyInstance {
    tablegate: TablegateDecorator
  }
  interface FastifyContextConfig {
    /** Routes reachable without a bearer token: only the login routes set it. */
    public?: boolean
  }
}
