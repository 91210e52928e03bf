// One app's state: everything `openTablegate` makes for it, held by the app (the root plugin
// decorates it under a symbol) and by nothing else, so two apps in one process share nothing.
import type { ResolvedConfig } from './config/resolve.js'
import type { Databases } from './db/connect.js'
import type { UserStore } from './auth/users.js'
import type { OrganizationOperations } from './auth/organizations.js'
import type { OrganizationCore } from './auth/organization-core.js'
import type { Verifier } from './auth/verifier.js'
import type { ResourceModel } from './model/types.js'
import type { AccessResolver } from './access/resolve.js'
import type { RuleFilters } from './access/row-filter.js'
import type { PlanServices } from './plan/read.js'
import type { ReadServices } from './read/execute.js'
import type { WriteServices } from './write/pipeline.js'
import type { Extensions } from './extensions.js'
import type { RouteTable } from './route/table.js'
import type { MetaVersion } from './meta-version.js'
import type { ChangeHub } from './changes/hub.js'

/** What plans, reads and writes use of the app: checks, selections, page tokens, ETags, estimates, hooks. */
export type AppServices = PlanServices & ReadServices & WriteServices & { readonly ruleFilters: RuleFilters }

export interface Runtime {
  readonly config: ResolvedConfig
  readonly db: Databases
  /** Host-side user operations; undefined when tokens come from an auth server elsewhere. */
  readonly users: UserStore | undefined
  /** Host-side organization operations; undefined when organizations are off (or tokens come from elsewhere). */
  readonly organizations: OrganizationOperations | undefined
  /** The organization store the login routes act on, under the same rules as the host operations. */
  readonly organizationStore: OrganizationCore | undefined
  readonly verifier: Verifier
  /** Resource models, checked against the database at startup. */
  readonly models: ReadonlyMap<string, ResourceModel>
  /** pg_trgm is installed: similar() can run. */
  readonly trigram: boolean
  readonly access: AccessResolver
  /** Write hooks, list guards and API describers (lib/extensions.ts). */
  readonly extensions: Extensions
  /** The routes every request runs through (lib/route/), built-in and added by plugins. */
  readonly routes: RouteTable
  /** `X-Meta-Version` for a role set. */
  readonly metaVersion: MetaVersion
  readonly services: AppServices
  /** The readers of the change log, where a resource has `changes` (lib/changes/hub.ts). */
  readonly changes: ChangeHub | undefined
  /** Stops the app's timers and closes its pools (and the embedded database it started). */
  close (): Promise<void>
}

// A registered symbol: a plugin loaded through another module instance of tablegate (a
// TypeScript config loaded by tsx gets one) still finds the runtime.
export const kRuntime = Symbol.for('tablegate.runtime')

/** The runtime of an app that registered tablegate. */
export function runtimeOf (app: object): Runtime {
  const runtime = (app as unknown as Record<symbol, Runtime | undefined>)[kRuntime]
  if (runtime === undefined) throw new Error('tablegate is not registered on this app')
  return runtime
}
