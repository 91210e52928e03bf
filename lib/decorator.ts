// `app.tablegate`: what a plugin author gets of tablegate. Narrow on purpose: the listed settings,
// read-only (no secrets, no connection strings), the models, the app's database and the login
// store's for the plugin's own statements, the host-side user and organization operations, the page-token codec,
// and the three extension points. The user store's tables and signing keys, AUTH_SECRET and the hook runner
// stay inside.
import type { ResolvedConfig } from './config/resolve.js'
import type { Queryable } from './db/query.js'
import { userOperations, type UserOperations } from './auth/users.js'
import type { OrganizationOperations } from './auth/organizations.js'
import type { ResourceModel } from './model/types.js'
import type { PageTokens } from './query/page-token.js'
import type { ListGuard } from './read/guard-view.js'
import type { OperationsDescriber } from './openapi/document.js'
import type { Runtime } from './runtime.js'
import { pluginRouteDeclaration, type PluginResourceRoute } from './route/plugin-route.js'
import type { WriteHook, WriteHookOptions } from '../hooks/types.js'
import type { MetaVersion } from './meta-version.js'

/**
 * The resolved settings a plugin may read, each named: a setting added to the resolved config
 * reaches plugins only once it is listed here. Left out: secrets and connection strings, the
 * config's functions and resources (plugins read `models`), and the login store's and the pools'
 * internals (`dataDir` holds the generated AUTH_SECRET).
 */
const PLUGIN_SETTINGS = [
  'basePath', 'apiRoot', 'publicUrl', 'pageOrigins',
  'roles', 'tenant', 'defaultAccess',
  'statementTimeoutMs', 'bodyLimit', 'textMaxLength', 'exportTimeoutMs', 'exportsPerCaller', 'scanGuard',
  'serverTiming', 'metrics', 'migrateOnStart', 'databasePooler',
] as const satisfies ReadonlyArray<keyof ResolvedConfig>

/** The resolved settings a plugin may read: every default filled in, frozen through. */
export type TablegateSettings = Pick<ResolvedConfig, typeof PLUGIN_SETTINGS[number]>

export interface TablegateDecorator {
  readonly config: TablegateSettings
  /** Resource models, checked against the database at startup. */
  readonly models: ReadonlyMap<string, ResourceModel>
  /** The application database (writes' pool), for a plugin's own statements. */
  readonly db: Queryable
  /**
   * The login store's database (the application's, unless `adminDatabaseUrl` is set), for a
   * plugin's own tables beside the users (the audit log keeps user changes there); undefined when
   * tokens come from an auth server elsewhere.
   */
  readonly authDb: Queryable | undefined
  /** Host-side user operations; undefined when tokens come from an auth server elsewhere. */
  readonly users: UserOperations | undefined
  /**
   * Host-side organization operations (docs/organizations.md); undefined when `organizations` is
   * not configured or tokens come from an auth server elsewhere.
   */
  readonly organizations: OrganizationOperations | undefined
  /** Page tokens of this app, for plugins that page through results of their own. */
  readonly pageTokens: PageTokens
  /** `X-Meta-Version` for a role set. */
  readonly metaVersion: MetaVersion
  /**
   * Adds a hook that runs inside the write transaction of the writes it subscribes to (default:
   * every write), after the write, with the stored rows. Only before the app is ready.
   */
  addWriteHook (hook: WriteHook, options?: WriteHookOptions): void
  /** Adds a check that runs before every list's queries (the scan guard is one). Only before the app is ready. */
  addListGuard (guard: ListGuard): void
  /** Adds a description of a plugin's routes to each caller's OpenAPI document. Only before the app is ready. */
  addApiDescriber (describer: OperationsDescriber): void
  /**
   * Adds a route on every resource (`GET /{resource}:stats`), gated, checked, documented per
   * caller and timed like the built-in ones (docs/plugins.md). Only before the app is ready.
   */
  addResourceRoute<Result> (route: PluginResourceRoute<Result>): void
}

export function decoratorOf (runtime: Runtime): TablegateDecorator {
  return Object.freeze({
    config: settingsOf(runtime.config),
    models: readOnly(runtime.models),
    db: runtime.db.app,
    authDb: runtime.users?.pool,
    users: runtime.users === undefined ? undefined : userOperations(runtime.users),
    organizations: runtime.organizations,
    pageTokens: runtime.services.pageTokens,
    metaVersion: runtime.metaVersion,
    addWriteHook: (hook: WriteHook, options?: WriteHookOptions) => { runtime.extensions.addWriteHook(hook, options) },
    addListGuard: (guard: ListGuard) => { runtime.extensions.addListGuard(guard) },
    addApiDescriber: (describer: OperationsDescriber) => { runtime.extensions.addApiDescriber(describer) },
    addResourceRoute: (route: PluginResourceRoute) => { runtime.routes.addResourceRoute(pluginRouteDeclaration(route, runtime.services, runtime.db.read)) },
  })
}

/** A copy of the listed settings, frozen through, so a plugin can change neither it nor the app's own. */
function settingsOf (config: ResolvedConfig): TablegateSettings {
  return frozen(structuredClone(Object.fromEntries(PLUGIN_SETTINGS.map((key) => [key, config[key]])))) as TablegateSettings
}

function frozen<T> (value: T): T {
  if (typeof value === 'object' && value !== null) for (const member of Object.values(value)) frozen(member)
  return Object.freeze(value)
}

/** A view of a map that has no set, delete or clear: the models are the app's, not a plugin's to change. */
function readOnly<K, V> (map: ReadonlyMap<K, V>): ReadonlyMap<K, V> {
  const view: ReadonlyMap<K, V> = Object.freeze({
    get: (key: K) => map.get(key),
    has: (key: K) => map.has(key),
    get size () { return map.size },
    keys: () => map.keys(),
    values: () => map.values(),
    entries: () => map.entries(),
    forEach: (each: (value: V, key: K, map: ReadonlyMap<K, V>) => void, thisArg?: unknown) => { map.forEach((value, key) => { each.call(thisArg, value, key, view) }) },
    [Symbol.iterator]: () => map[Symbol.iterator](),
  })
  return view
}

declare module 'fastify' {
  interface FastifyInstance {
    tablegate: TablegateDecorator
  }
}
