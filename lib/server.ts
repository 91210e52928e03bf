// createServer(config): a Fastify instance with tablegate registered: the built-in plugins and
// the config's own `plugins`, exactly as `app.register(tablegate, config)` gives them.
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyServerOptions } from 'fastify'
import tablegate from '../plugins/tablegate/index.js'
import type { Config } from './config/schema.js'
import { serverOptions } from './http/server-options.js'
import { resolveTrustProxy } from './config/trust-proxy.js'
import { validateConfig } from './config/validate.js'

export interface ServerOptions {
  /** Fastify logger option; default: off unless the config says otherwise. */
  readonly logger?: FastifyServerOptions['logger']
  /** A logger of your own (pino's interface) instead of `logger`. */
  readonly loggerInstance?: FastifyBaseLogger
}

export async function createServer (config: Config = {}, options: ServerOptions = {}): Promise<FastifyInstance> {
  const checked = validateConfig(config)
  const app = Fastify({
    ...serverOptions({ bodyLimit: checked.bodyLimit }),
    ...(options.loggerInstance !== undefined
      ? { loggerInstance: options.loggerInstance }
      : { logger: options.logger ?? (config.logger as FastifyServerOptions['logger']) ?? false }),
    // The setting the config resolves to (request.ip, and so the sign-in limiter, follows it).
    trustProxy: resolveTrustProxy(checked.trustProxy, process.env.TRUST_PROXY) as FastifyServerOptions['trustProxy'],
  })
  try {
    // Awaiting the registration surfaces startup errors here, yet leaves the app open for more plugins.
    await app.register(tablegate, config)
  } catch (err) {
    await app.close().catch(() => {})
    throw err
  }
  return app
}
