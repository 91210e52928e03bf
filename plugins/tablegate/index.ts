// The root plugin: opens the app's state (lib/bootstrap.ts), decorates `app.tablegate` and
// `request.ctx`, answers every error as problem+json, stamps X-Meta-Version, then registers the
// built-in plugins and the config's own `plugins`, so `createServer(config)` and
// `app.register(tablegate, config)` give the same app.
import fp from 'fastify-plugin'
import type { FastifyInstance, FastifyPluginAsync } from 'fastify'
import type { Config } from '../../lib/config/schema.js'
import { openTablegate, readyForRequests } from '../../lib/bootstrap.js'
import { decoratorOf } from '../../lib/decorator.js'
import { kRuntime } from '../../lib/runtime.js'
import { problem, NO_ROUTE_DETAIL } from '../../lib/problems.js'
import { problemHandling } from './problems.js'
import { StageTimes } from '../../lib/timing.js'
import { forbiddenMember, hasDuplicateKeys, isJson, unreadableJsonBody } from '../../lib/http/json-body.js'
import { malformedQuery, missingHost } from '../../lib/http/server-options.js'
import { corsPolicy, varyOnOrigin } from '../../lib/http/cors.js'
import auth from '../auth/index.js'
import access from '../access/index.js'
import rateLimits from '../rate-limits/index.js'
import resources from '../resources/index.js'
import scanGuard from '../scan-guard/index.js'
import batch from '../batch/index.js'
import exportRoutes from '../export/index.js'
import changes from '../changes/index.js'
import health from '../health/index.js'
import metrics from '../metrics/index.js'
import aggregates from '../aggregates/index.js'
import meta from '../meta/index.js'
import consoleApp from '../console/index.js'
import { mountRoutes } from './routes.js'

const NO_ROLES: readonly string[] = Object.freeze([])

// Until the access plugin fills it in (after authentication), no resource exists for the caller.
function noAccess (): never {
  throw problem('not-found', NO_ROUTE_DETAIL)
}

async function tablegate (app: FastifyInstance, options: Config): Promise<void> {
  const runtime = await openTablegate(options, (message) => { app.log.warn(message) })
  app.addHook('onClose', async () => { await runtime.close() })
  // What the app did to start ran under a start's timeout; requests take theirs (lib/db/connect.ts).
  app.addHook('onReady', async () => { await readyForRequests(runtime) })
  app.decorate(kRuntime as unknown as string, runtime)
  app.decorate('tablegate', decoratorOf(runtime))
  app.decorateRequest('ctx', null as never)
  // Server-Timing (config `serverTiming`): the request's stages ride on its context (lib/timing.ts);
  // made here and sent with X-Meta-Version, so timing adds no hook of its own.
  const { serverTiming } = runtime.config
  // Hooks that never wait are written with callbacks: each async hook costs every request a promise.
  const cors = corsPolicy(runtime.config.pageOrigins)
  app.addHook('onRequest', (request, reply, done) => {
    request.ctx = { user: null, tenant: undefined, org: undefined, access: noAccess, timing: serverTiming ? new StageTimes() : undefined }
    const origin = request.headers.origin
    const crossOrigin = origin === undefined ? undefined : cors(origin, request.method, request.headers['access-control-request-method'] as string | undefined)
    if (crossOrigin !== undefined) {
      reply.headers(crossOrigin.headers)
      // A preflight carries no credentials: it is answered here, before authentication.
      if (crossOrigin.preflight) {
        void reply.code(204).send()
        return
      }
    }
    done(malformedQuery(request.url) ?? missingHost(request.raw))
  })
  // Once the app is closing, answers close their connections: a keep-alive connection left open
  // would hold the server's close until the client drops it. Requests in flight finish first.
  let closing = false
  app.addHook('preClose', async () => { closing = true })
  problemHandling(app, runtime.config.onUnhandledError)
  // Bodies are JSON only (Fastify's text/plain parser would hand a string to every write), read as
  // UTF-8 (lib/http/json-body.ts), parsed by Fastify's own parser (prototype poisoning refused),
  // then names given twice refused; an empty body is no body. Config `bodyLimit` is this parser's own, so it holds in an app
  // tablegate is registered in as in createServer's (a route's own `bodyLimit` still wins, as in Fastify).
  const parseJson = app.getDefaultJsonParser('error', 'error')
  app.removeContentTypeParser(['application/json', 'text/plain'])
  app.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: runtime.config.bodyLimit }, (request, body, done) => {
    // Clients send `Content-Type: application/json` on every request, a DELETE's included: no
    // bytes is no body, so a route that takes none answers and one that needs one says so.
    if ((body as Buffer).length === 0) {
      done(null, undefined)
      return
    }
    const unreadable = unreadableJsonBody(request.headers, body as Buffer)
    if (unreadable !== undefined) {
      done(unreadable, undefined)
      return
    }
    const text = body.toString()
    parseJson(request, text, (err, value) => {
      if (err !== null) done(isJson(text) ? forbiddenMember() : err, undefined)
      else if (hasDuplicateKeys(text)) done(problem('malformed-json', 'The body names a member twice: send each field once.'), undefined)
      else done(null, value)
    })
  })
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header('x-meta-version', runtime.metaVersion(request.ctx?.user?.roles ?? NO_ROLES, request.ctx?.org?.roles))
    if (request.headers.origin !== undefined) reply.header('vary', varyOnOrigin(reply.getHeader('vary') as string | undefined))
    const times = request.ctx?.timing
    if (times !== undefined) reply.header('server-timing', times.header())
    if (closing) reply.header('connection', 'close')
    done(null, payload)
  })
  app.addHook('onReady', async () => {
    runtime.extensions.seal()
    runtime.routes.seal()
  })
  mountRoutes(app, runtime)
  runtime.extensions.addApiDescriber(runtime.routes.describe)
  await app.register(auth)
  await app.register(health)
  await app.register(metrics)
  await app.register(access)
  await app.register(rateLimits)
  await app.register(scanGuard)
  await app.register(resources)
  await app.register(aggregates)
  await app.register(batch)
  await app.register(exportRoutes)
  await app.register(changes)
  await app.register(meta)
  await app.register(consoleApp)
  for (const [i, [plugin, pluginOptions]] of runtime.config.plugins.entries()) {
    try {
      await app.register(plugin as FastifyPluginAsync, pluginOptions as Record<string, unknown>)
    } catch (err) {
      // Said by where the plugin is in the config, as every config mistake is; the error keeps
      // its class and code (a HookRegistrationError's TG_ERR_HOOK_*).
      if (err instanceof Error) err.message = `config.plugins[${i}] (${pluginName(plugin)}): ${err.message}`
      throw err
    }
  }
}

export default fp(tablegate, { name: 'tablegate', fastify: '5.x' })

/** A plugin's name as fastify-plugin records it, else its function's. */
function pluginName (plugin: unknown): string {
  const meta = (plugin as Record<symbol, { name?: string } | undefined>)[Symbol.for('plugin-meta')]
  return meta?.name ?? ((plugin as { name?: string }).name || 'anonymous')
}
