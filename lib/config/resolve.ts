// Checked config + environment → the resolved settings every other module reads.
// Explicit config wins; the environment fills what the config leaves out; defaults fill the rest.
import { resolve as resolvePath } from 'node:path'
import { ConfigError, validateConfig } from './validate.js'
import type { Config, ResourceConfig, VerifierConfig } from './schema.js'
import type { UnhandledErrorHandler } from './functions.js'
import { roleSetup, RoleError, type RoleSetup } from './roles.js'
import { resolveTrustProxy, type TrustProxy } from './trust-proxy.js'
import { organizationSettings, type OrganizationSettings } from './organizations.js'
import { accountSettings, type AccountSettings } from './accounts.js'
import { changeSettings, type ChangeSettings } from './changes.js'
import { rateLimitSettings, type RateLimitSettings } from './rate-limits.js'
import { contributedResources, type PluginMigration, type RowPresenter } from './plugin-resources.js'

export const DEFAULT_PUBLIC_URL = 'http://localhost:5173'
/** A :search filter of 200,000 characters, and a :batchWrite of 500 operations of up to 2 KB each, fit inside 1 MiB. */
export const DEFAULT_BODY_LIMIT = 1024 * 1024
/** Config `textMaxLength` unless set: 64 Ki characters, 256 KiB of UTF-8 at most, a quarter of the default body limit. */
export const DEFAULT_TEXT_MAX_LENGTH = 65_536
const MIN_SECRET_LENGTH = 16
/** Quick tunnels serve a development API over https on a random subdomain; they are always trusted. */
export const TUNNEL_ORIGIN = 'https://*.trycloudflare.com'
/** The routes at basePath's parent: the login routes, /meta, /openapi.json and /docs. */
const SYSTEM_SEGMENTS = ['auth', 'meta', 'openapi.json', 'docs']

export interface ResolvedConfig {
  readonly config: Config
  readonly databaseUrl: string | undefined
  readonly databaseReadUrl: string | undefined
  readonly adminDatabaseUrl: string | undefined
  readonly authSchema: string | undefined
  readonly authSecret: string | undefined
  readonly dataDir: string
  readonly basePath: string
  /** The parent of the base path, where `/meta`, `/openapi.json`, `/docs` and `/auth/*` live. */
  readonly apiRoot: string
  readonly publicUrl: string
  readonly trustedOrigins: readonly string[]
  /**
   * The trusted origins a page of ours may be on, to send a browser to (callbackURL) or answer
   * cross-origin (CORS): all but the quick-tunnel wildcard, whose subdomains anyone can open.
   */
  readonly pageOrigins: readonly string[]
  readonly signInPerMinute: number
  /** Which peers' `x-forwarded-for` is believed: what `request.ip`, and so the sign-in limiter, sees. */
  readonly trustProxy: TrustProxy
  readonly roles: RoleSetup
  readonly statementTimeoutMs: number
  /** The largest JSON request body, in bytes. */
  readonly bodyLimit: number
  /** The most characters of a string field with no length of its own or of its column. */
  readonly textMaxLength: number
  readonly exportTimeoutMs: number
  /** `:export`s one caller streams at once (per process). */
  readonly exportsPerCaller: number
  /** Requests per caller and operation class; undefined when limits are off. */
  readonly rateLimits: RateLimitSettings | undefined
  /** Undefined when metrics are off. */
  readonly metrics: { readonly role: string } | undefined
  readonly serverTiming: boolean
  /** Where the console is served; undefined when it is off. */
  readonly consolePath: string | undefined
  readonly connectTimeoutMs: number
  /** Connections of each pool of one process: `poolSizes` over `poolSize` (or DATABASE_POOL_SIZE) over the defaults. */
  readonly poolSizes: PoolSizes
  /** Whether the database URLs lead to a transaction pooler rather than to PostgreSQL. */
  readonly databasePooler: 'none' | 'transaction'
  readonly revocationPollMs: number
  /** The change feed's log and streams; the listen URL is undefined with the embedded database until it starts (the app then listens on it). */
  readonly changes: ChangeSettings
  readonly verifier: VerifierConfig | undefined
  /** Undefined when organizations are off. */
  readonly organizations: OrganizationSettings | undefined
  /** Sign-up, email verification, password reset and the password policy. */
  readonly accounts: AccountSettings
  readonly migrateOnStart: boolean
  /** Directory of application `.sql` migrations, applied by `migrate` and on start. */
  readonly migrations: string | undefined
  /** The config's resources and those its plugins bring. */
  readonly resources: Readonly<Record<string, ResourceConfig>>
  /** How callers see the rows of plugins' resources that need it (the audit log's). */
  readonly presenters: ReadonlyMap<string, RowPresenter>
  /** Plugins' migrations, run before the application's (which may index their tables). */
  readonly pluginMigrations: readonly PluginMigration[]
  /** The fixed tenant of every caller (until organizations). */
  readonly tenant: string | undefined
  /** Service roles whose callers without a tenant work across every tenant. */
  readonly allTenants: readonly string[]
  readonly defaultAccess: 'allow' | 'deny' | undefined
  readonly scanGuard: { readonly mode: 'reject' | 'warn' | 'off', readonly seqScanRows: number }
  /** The resources whose records carry `permissions`. */
  readonly rowPermissions: ReadonlySet<string>
  /** Fastify plugins the root plugin registers after the built-in ones, each with its options. */
  readonly plugins: ReadonlyArray<readonly [plugin: unknown, options: unknown]>
  readonly onUnhandledError: UnhandledErrorHandler | undefined
}

export interface PoolSizes {
  readonly write: number
  readonly read: number
  readonly auth: number
}

/** Sized for one process per core: four processes hold 92 connections, inside PostgreSQL's default 100. */
export const DEFAULT_POOL_SIZES: PoolSizes = { write: 10, read: 10, auth: 3 }

function poolSizesOf (config: Config, env: string | undefined): PoolSizes {
  const text = nonEmpty(env)
  let size = config.poolSize
  if (size === undefined && text !== undefined) {
    size = Number(text)
    if (!Number.isInteger(size) || size < 1 || size > 1000) throw new ConfigError(`DATABASE_POOL_SIZE: '${text}' is not a whole number of connections from 1 to 1000`)
  }
  return { ...DEFAULT_POOL_SIZES, ...(size === undefined ? {} : { write: size, read: size }), ...config.poolSizes }
}

function poolerOf (setting: Config['databasePooler'], env: string | undefined): 'none' | 'transaction' {
  if (setting !== undefined) return setting
  const text = nonEmpty(env)
  if (text === undefined || text === 'none' || text === 'transaction') return text ?? 'none'
  throw new ConfigError(`DATABASE_POOLER: '${text}' is not 'transaction' (a transaction pooler such as PgBouncer) or 'none'`)
}

function rowPermissionsOf (setting: Config['rowPermissions'], resources: readonly string[]): ReadonlySet<string> {
  if (setting === false) return new Set()
  const except = setting === undefined || setting === true ? [] : setting.except
  return new Set(resources.filter((name) => !except.includes(name)))
}

function originOf (url: string, key: string): string {
  try {
    const parsed = new URL(url)
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error('not http')
    return parsed.origin
  } catch {
    throw new ConfigError(`${key}: '${url}' is not an http(s) URL`)
  }
}

function nonEmpty (value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim()
}

/** AUTH_SECRET obeys the same minimum length as `authSecret` in the config schema. */
function envSecret (value: string | undefined): string | undefined {
  const secret = nonEmpty(value)
  if (secret !== undefined && secret.length < MIN_SECRET_LENGTH) {
    throw new ConfigError(`AUTH_SECRET: must have at least ${MIN_SECRET_LENGTH} characters`)
  }
  return secret
}

export function resolveConfig (raw: unknown, env: NodeJS.ProcessEnv = process.env): ResolvedConfig {
  const config = validateConfig(raw)
  const publicUrl = (config.publicUrl ?? nonEmpty(env.AUTH_URL) ?? DEFAULT_PUBLIC_URL).replace(/\/+$/, '')
  originOf(publicUrl, config.publicUrl !== undefined ? 'config.publicUrl' : 'AUTH_URL')
  const extraOrigins = [
    ...(config.trustedOrigins ?? []),
    ...(nonEmpty(env.TRUSTED_ORIGINS)?.split(',').map((o) => o.trim()).filter((o) => o !== '') ?? []),
  ]
  const basePath = config.basePath ?? '/api/v1'
  const apiRoot = basePath.slice(0, basePath.lastIndexOf('/'))
  // The login and system routes sit at basePath's parent: a basePath among them would share its paths.
  const last = basePath.slice(apiRoot.length + 1)
  if (SYSTEM_SEGMENTS.includes(last)) {
    throw new ConfigError(`config.basePath: '${basePath}' is where the ${last === 'auth' ? 'login routes' : `${last} route`} of '${apiRoot || '/'}' sits: choose another last segment, such as '${apiRoot}/v1'`)
  }
  let roles: RoleSetup
  try {
    roles = roleSetup(config.roles, config.defaultRole)
  } catch (err) {
    if (err instanceof RoleError) throw new ConfigError(`config.roles: ${err.message}`)
    throw err
  }
  const plugins = (config.plugins ?? []).map((entry) => Array.isArray(entry) ? [entry[0], entry[1] ?? {}] as const : [entry, {}] as const)
  const { resources, presenters, migrations } = contributedResources(config.resources ?? {}, plugins)
  const consolePath = config.console === undefined || config.console === false ? undefined : config.console.path ?? '/'
  if (consolePath !== undefined && apiRoot !== '' && (consolePath === `${apiRoot}/` || consolePath.startsWith(`${apiRoot}/`))) {
    throw new ConfigError(`config.console.path: '${consolePath}' is under the API root '${apiRoot}', whose routes it would shadow: choose a path outside it, such as '/' or '/console/'`)
  }
  return {
    config,
    databaseUrl: config.databaseUrl ?? nonEmpty(env.DATABASE_URL),
    databaseReadUrl: config.databaseReadUrl ?? nonEmpty(env.DATABASE_READ_URL),
    adminDatabaseUrl: config.adminDatabaseUrl ?? nonEmpty(env.ADMIN_DATABASE_URL),
    authSchema: config.authSchema,
    authSecret: config.authSecret ?? envSecret(env.AUTH_SECRET),
    dataDir: resolvePath(config.dataDir ?? '.tablegate'),
    basePath,
    apiRoot,
    publicUrl,
    trustedOrigins: [...new Set([new URL(publicUrl).origin, ...extraOrigins, TUNNEL_ORIGIN])],
    pageOrigins: [...new Set([new URL(publicUrl).origin, ...extraOrigins])].filter((origin) => origin !== TUNNEL_ORIGIN),
    signInPerMinute: config.signInPerMinute ?? 5,
    trustProxy: resolveTrustProxy(config.trustProxy, env.TRUST_PROXY),
    roles,
    statementTimeoutMs: config.statementTimeoutMs ?? 15_000,
    bodyLimit: config.bodyLimit ?? DEFAULT_BODY_LIMIT,
    textMaxLength: config.textMaxLength ?? DEFAULT_TEXT_MAX_LENGTH,
    exportTimeoutMs: config.exportTimeoutMs ?? 600_000,
    exportsPerCaller: config.exportsPerCaller ?? 1,
    rateLimits: rateLimitSettings(config, roles.list),
    metrics: config.metrics === false ? undefined : { role: config.metrics?.role ?? 'admin' },
    serverTiming: config.serverTiming ?? false,
    consolePath,
    connectTimeoutMs: config.connectTimeoutMs ?? 5_000,
    poolSizes: poolSizesOf(config, env.DATABASE_POOL_SIZE),
    databasePooler: poolerOf(config.databasePooler, env.DATABASE_POOLER),
    revocationPollMs: config.revocationPollMs ?? 5_000,
    changes: changeSettings(config, config.databaseUrl ?? nonEmpty(env.DATABASE_URL), poolerOf(config.databasePooler, env.DATABASE_POOLER), env.DATABASE_LISTEN_URL),
    verifier: config.verifier,
    organizations: organizationSettings(config),
    accounts: accountSettings(config, roles),
    migrateOnStart: config.migrateOnStart ?? true,
    migrations: config.migrations === undefined ? undefined : resolvePath(config.migrations),
    resources,
    presenters,
    pluginMigrations: migrations,
    tenant: config.tenant,
    allTenants: config.allTenants ?? [],
    defaultAccess: config.defaultAccess,
    scanGuard: { mode: config.scanGuard?.mode ?? 'reject', seqScanRows: config.scanGuard?.seqScanRows ?? 10_000 },
    rowPermissions: rowPermissionsOf(config.rowPermissions, Object.keys(resources)),
    plugins,
    onUnhandledError: config.onUnhandledError,
  }
}
