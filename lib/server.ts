// createServer(config): a Fastify instance with tablegate and every built-in plugin registered.
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify'
import tablegate from '../plugins/tablegate/index.js'
import type { Config } from './config/schema.js'

export interface ServerOptions {
  /** Fastify logger option; default: off unless the config says otherwise. */
  readonly logger?: FastifyServerOptions['logger']
}

export async function createServer (config: Config = {}, options: ServerOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    logger: options.logger ?? (config.logger as FastifyServerOptions['logger']) ?? false,
    trustProxy: false,
    // Bodies: record writes and :search filters (200,000 characters) fit well inside 1 MiB.
    bodyLimit: 1024 * 1024,
  })
  try {
    // Awaiting the registration surfaces startup errors here, yet leaves the app open for more plugins.
    await app.register(tablegate, config)
    for (const entry of config.plugins ?? []) {
      const [plugin, options] = Array.isArray(entry) ? entry : [entry, {}]
      await app.register(plugin, options)
    }
  } catch (err) {
    await app.close().catch(() => {})
    throw err
  }
  return app
}
