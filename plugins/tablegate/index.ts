// The root plugin: settles config and databases, decorates `app.tablegate` and `request.ctx`,
// answers every error as problem+json, stamps X-Meta-Version, then registers the built-in plugins.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { resolveConfig } from '../../lib/config/resolve.js'
import { connectDatabases } from '../../lib/db/connect.js'
import { userStoreOf } from '../../lib/auth/users.js'
import { createVerifier } from '../../lib/auth/verifier.js'
import { createMetaVersion } from '../../lib/meta-version.js'
import type { TablegateDecorator } from '../../lib/context.js'
import type { Config } from '../../lib/config/schema.js'
import { problemHandling } from './problems.js'
import auth from '../auth/index.js'
import access from '../access/index.js'
import resources from '../resources/index.js'
import scanGuard from '../scan-guard/index.js'
import { buildModels } from '../../lib/model/build.js'
import { introspectModels } from '../../lib/model/introspect.js'
import { applyMigrations } from '../../lib/db/migrations.js'
import { WriteHooks } from '../../hooks/registry.js'
import type { ResourceModel } from '../../lib/model/types.js'
import type { ListGuard } from '../../lib/read/execute.js'
import { ensureTrigram } from '../../lib/db/extensions.js'

const NO_ROLES: readonly string[] = Object.freeze([])

// Until the access plugin fills it in (after authentication), asking for access is a bug.
function noAccess (): never {
  throw new Error('request.ctx.access() called before authentication')
}

async function tablegate (app: FastifyInstance, options: Config): Promise<void> {
  const config = resolveConfig(options)
  const declared = buildModels(config.resources)
  const db = await connectDatabases(config, { warn: (message) => { app.log.warn(message) } })
  app.addHook('onClose', async () => { await db.close() })

  const users = config.verifier === undefined
    ? userStoreOf(config, db)
    : undefined
  let models: Map<string, ResourceModel>
  let trigram: boolean
  try {
    if (users !== undefined && config.migrateOnStart) await users.migrate()
    if (config.migrations !== undefined && config.migrateOnStart) await applyMigrations(db.app, config.migrations)
    // Fail at startup, not at the first sign-in, when AUTH_SECRET cannot open the stored keys.
    if (users !== undefined) await users.keys.current()
    models = await introspectModels(db.app, declared)
    trigram = await ensureTrigram(db.app, config.migrateOnStart, (message) => { app.log.warn(message) })
  } catch (err) {
    await db.close()
    throw err
  }
  const verifier = users !== undefined
    ? createVerifier({ loadKeys: users.keys.publicJwks, issuer: config.publicUrl, audience: config.publicUrl, algorithms: ['EdDSA'], tenant: config.config.tenant })
    : createVerifier({ ...config.verifier, tenant: config.verifier?.tenant ?? config.config.tenant })

  const hooks = new WriteHooks()
  const listGuards: ListGuard[] = []
  const decorator: TablegateDecorator = {
    config,
    db,
    users,
    verifier,
    models,
    hooks,
    addWriteHook: (hook) => { hooks.add(hook) },
    listGuards,
    addListGuard: (guard) => {
      if (typeof guard !== 'function') throw new TypeError('addListGuard expects a function (plan, db) => Promise<string | undefined>')
      listGuards.push(guard)
    },
    capabilities: { trigram },
    metaVersion: createMetaVersion({ resources: config.resources, roles: config.roles.list, views: config.config.views, pages: config.config.pages, userMenu: config.config.userMenu }),
  }
  app.decorate('tablegate', decorator)
  app.decorateRequest('ctx', null as never)
  app.addHook('onRequest', async (request) => {
    request.ctx = { user: null, tenant: undefined, access: noAccess }
  })
  problemHandling(app, config.onUnhandledError)
  app.addHook('onSend', async (request, reply) => {
    reply.header('x-meta-version', decorator.metaVersion(request.ctx?.user?.roles ?? NO_ROLES))
  })
  await app.register(auth)
  await app.register(access)
  await app.register(scanGuard, config.config.scanGuard ?? {})
  await app.register(resources)
}

export default fp(tablegate, { name: 'tablegate', fastify: '5.x' })
