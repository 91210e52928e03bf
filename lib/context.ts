// The typed request context every stage reads (`request.ctx`). Third-party plugins extend
// TablegateContext by declaration merging; members they add must be optional, since the root
// plugin creates the context before any plugin fills them in.
import type { CallerOrganization, CallerUser } from './principal.js'
import type { AccessPlan } from './access/types.js'
import type { StageTimes } from './timing.js'
import type { RouteClass } from './limits/request-limits.js'

export type { CallerOrganization, CallerUser }

export interface TablegateContext {
  /** The verified caller; null only on public routes (`/api/auth/*`). */
  user: CallerUser | null
  tenant: string | undefined
  /** The active organization (organizations only): `tenant` is its id. */
  org?: CallerOrganization | undefined
  /**
   * The caller's access to a resource, resolved once per request and resource; an unknown
   * resource is a 404 not-found problem.
   */
  access (resource: string): AccessPlan
  /** The request's Server-Timing stages; undefined unless the config turns `serverTiming` on. */
  timing?: StageTimes
}

declare module 'fastify' {
  interface FastifyRequest {
    ctx: TablegateContext
  }
  interface FastifyContextConfig {
    /** Routes reachable without a bearer token: only the login routes set it. */
    public?: boolean
    /** The request limit a call counts against (config `rateLimits`); without it, by method. */
    operationClass?: RouteClass
    /**
     * `false`: no request limit counts the route's calls (the login routes, which have their own,
     * and health checks). `'after-own-caller-check'`, given where the route is declared (its scope
     * checks the caller itself, as the docs' does): they count after every hook of its scope.
     */
    requestLimits?: false | 'after-own-caller-check'
  }
}
