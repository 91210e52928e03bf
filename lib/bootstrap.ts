// Config → a running app's state: resolve the config, build the models, connect, migrate (when
// the config says so), open the signing keys, check the models against the tables, make the
// verifier and the app's services. The root plugin and the CLI use the same steps.
import { resolveConfig, type ResolvedConfig } from './config/resolve.js'
import type { Config } from './config/schema.js'
import { armStatementTimeouts, connectDatabases, type Databases } from './db/connect.js'
import type { Queryable } from './db/query.js'
import { applyMigrations, type Migrations } from './db/migrations.js'
import { ensureTrigram } from './db/extensions.js'
import { returnsOldRows } from './db/server-version.js'
import { USERS_RESOURCE, userStoreOf } from './auth/users.js'
import { MEMBERS_RESOURCE, ORGANIZATIONS_RESOURCE, organizationOperations } from './auth/organizations.js'
import { organizationCore } from './auth/organization-core.js'
import { createVerifier } from './auth/verifier.js'
import { revocationList } from './auth/revocations.js'
import { buildModels } from './model/build.js'
import { migrateChangeLog } from './changes/log.js'
import { ChangeHub } from './changes/hub.js'
import { migrateRequestCounters } from './limits/request-limits.js'
import { tableNameParts } from './model/table-name.js'
import { AUTH_STORE_TABLES, AUTH_STORE_TABLE_WHY } from './auth/store/migrate.js'
import { ConfigError } from './config/validate.js'
import { introspectModels } from './model/introspect.js'
import { Selections } from './model/selection.js'
import { AccessResolver } from './access/resolve.js'
import { RuleFilters } from './access/row-filter.js'
import { checkAccessConfig } from './access/check-config.js'
import { shadowedCapabilities } from './access/shadowed.js'
import { BoundedCache } from './cache.js'
import { RowSamples } from './read/estimate/samples.js'
import { EstimateSettling } from './read/estimate/settling.js'
import { TraversalSides } from './read/sides.js'
import { deriveKey } from './crypto.js'
import { pageTokens } from './query/page-token.js'
import { etags } from './serialize/etag.js'
import { createMetaVersion } from './meta-version.js'
import { checkClientMetadata, clientMetadata } from './meta/check.js'
import type { WriteHooks } from '../hooks/registry.js'
import { Extensions } from './extensions.js'
import type { Runtime, AppServices } from './runtime.js'
import type { ResourceModel } from './model/types.js'
import { RouteTable } from './route/table.js'

export type Warn = (message: string) => void

/**
 * `tablegate migrate`, and startup with `migrateOnStart`: the auth store (with the built-in
 * login), pg_trgm where this role may create it, then in one transaction the plugins' tables and
 * the application's migrations (which may use pg_trgm, and index or refer to the plugins'
 * tables). Returns the migration files applied.
 */
export async function migrateDatabase (config: ResolvedConfig, db: Databases, warn: Warn): Promise<string[]> {
  if (config.verifier === undefined) await userStoreOf(config, db).migrate()
  await ensureTrigram(db.app, true, warn)
  return await applyMigrations(db.app, migrationsOf(config))
}

/** What `migrateDatabase` (and `check`, in a transaction it rolls back) applies to the application database. */
export function migrationsOf (config: ResolvedConfig): Migrations {
  const followed = [...buildModels(config.resources, config.presenters).values()].filter((m) => m.changes !== undefined)
  // The change log, where a resource has one, before the application's files (which may index it).
  const changeLog = followed.length === 0 ? [] : [async (db: Queryable) => { await migrateChangeLog(db, followed) }]
  const counters = config.rateLimits === undefined ? [] : [migrateRequestCounters]
  return { plugins: [...config.pluginMigrations, ...changeLog, ...counters], directory: config.migrations }
}

/**
 * The models the config declares, with every name the access config gives checked (and a warning
 * for each capability an explicit rule leaves granting nothing): no database needed.
 */
export function declaredModels (config: ResolvedConfig, warn: Warn): Map<string, ResourceModel> {
  const models = buildModels(config.resources, config.presenters)
  // By name, in any schema: the store's is `authSchema` or the search path's, and a copy of it
  // elsewhere (one left behind when `authSchema` was set) holds the same hashes.
  for (const model of models.values()) {
    if (AUTH_STORE_TABLES.has(tableNameParts(model.tableText).at(-1)!)) {
      throw new ConfigError(`config.resources.${model.name}: table '${model.tableText}' is never a resource: ${AUTH_STORE_TABLE_WHY}`)
    }
  }
  // A throwaway cache: checked filters point at these models, which introspection replaces.
  checkAccessConfig(config.config, models, config.roles, new RuleFilters(models))
  for (const message of shadowedCapabilities(models, config.roles, config.defaultAccess)) warn(message)
  return models
}

/** `tablegate check`, and `migrate` after migrating: the config's models against the database, as a start checks them. */
/** The config's models against the database `db` reaches (a pool, or a transaction of pending migrations). */
export async function checkModels (config: ResolvedConfig, db: Queryable, warn: Warn): Promise<ReadonlyMap<string, ResourceModel>> {
  return await introspectModels(db, declaredModels(config, warn), warn, config.textMaxLength)
}

function appServices (config: ResolvedConfig, db: Databases, hooks: WriteHooks, models: ReadonlyMap<string, ResourceModel>): AppServices {
  return {
    selections: new Selections(),
    // Caches of request texts hold the last `max` keys and at most twice as many (lib/cache.ts).
    checks: { filters: new BoundedCache(1000, { admitOnReuse: true }), orders: new BoundedCache(1000), graphs: new BoundedCache(10_000) },
    readMasks: new BoundedCache(1000),
    pageTokens: pageTokens(deriveKey(db.authSecret, 'page-token')),
    etags: etags(deriveKey(db.authSecret, 'etag')),
    estimates: new BoundedCache(5_000),
    samples: new RowSamples(),
    settling: new EstimateSettling(),
    sides: new TraversalSides(),
    ruleFilters: new RuleFilters(models),
    hooks,
    returnsOldRows: returnsOldRows(db.serverVersion),
  }
}

/** The app is ready for requests: its statements take `statementTimeoutMs` from now on, not a start's (lib/db/connect.ts). */
export async function readyForRequests (runtime: Runtime): Promise<void> {
  await armStatementTimeouts(runtime.db)
}

export async function openTablegate (options: Config, warn: Warn): Promise<Runtime> {
  const config = resolveConfig(options)
  const declared = declaredModels(config, warn)
  const db = await connectDatabases(config, { warn })
  try {
    if (config.migrateOnStart) await migrateDatabase(config, db, warn)
    // Hooks hear of the resources' writes, and of user-store changes when this app keeps the users
    // (and of organization changes when it keeps organizations: never with another issuer's tokens).
    const builtInLogin = config.verifier === undefined
    const storeResources = builtInLogin ? [USERS_RESOURCE, ...(config.organizations === undefined ? [] : [ORGANIZATIONS_RESOURCE, MEMBERS_RESOURCE])] : []
    const extensions = new Extensions([...Object.keys(config.resources), ...storeResources])
    const hooks = extensions.writeHooks
    const users = builtInLogin ? userStoreOf(config, db, hooks) : undefined
    const organizationStore = users === undefined || config.organizations === undefined
      ? undefined
      : organizationCore({ pool: users.pool, schema: db.authSchema, settings: config.organizations, events: hooks })
    const organizations = organizationStore === undefined ? undefined : organizationOperations(organizationStore)
    // Fail at startup, not at the first sign-in, when AUTH_SECRET cannot open the stored keys.
    if (users !== undefined) await users.keys.current()
    checkClientMetadata(clientMetadata(config), declared, config.roles.list)
    const models = await introspectModels(db.app, declared, warn, config.textMaxLength)
    const trigram = await ensureTrigram(db.app, false, warn)
    const revocations = users === undefined ? undefined : revocationList(users.pool, users.tables)
    await revocations?.refresh()
    const verifier = users !== undefined
      ? createVerifier({ loadKeys: users.keys.publicJwks, issuer: config.publicUrl, audience: config.publicUrl, algorithms: ['EdDSA'], tenant: config.tenant, revocations, organizations: config.organizations !== undefined })
      : createVerifier({ ...config.verifier, tenant: config.verifier?.tenant ?? config.tenant })
    revocations?.start(config.revocationPollMs)
    const services = appServices(config, db, hooks, models)
    const changes = [...models.values()].some((m) => m.changes !== undefined)
      ? new ChangeHub(db.changes, { pollMs: config.changes.pollMs, onError: (err) => { warn(`change feed: reading the change log failed (tried again at the next wake): ${(err as Error).message}`) } })
      : undefined
    return {
      config,
      db,
      users,
      organizations,
      organizationStore,
      verifier,
      models,
      trigram,
      access: new AccessResolver(models, { bundles: config.roles.bundles, organizationBundles: config.organizations?.roleCapabilities, defaultAccess: config.defaultAccess, trigram, ruleFilters: services.ruleFilters, allTenants: config.allTenants }),
      extensions,
      routes: new RouteTable(),
      metaVersion: createMetaVersion({ resources: config.resources, roles: config.roles.list, views: config.config.views, pages: config.config.pages, userMenu: config.config.userMenu }),
      services,
      changes,
      close: async () => {
        changes?.close()
        revocations?.stop()
        await db.close()
      },
    }
  } catch (err) {
    await db.close()
    throw err
  }
}
