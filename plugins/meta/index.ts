// Metadata for clients at the parent of the base path: GET /api/meta, /api/openapi.json and the
// interactive reference at /api/docs, all per caller and all from the caller's access plans.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { CallerDocuments } from '../../lib/meta/caller-documents.js'
import { runtimeOf } from '../../lib/runtime.js'
import { metaRoutes } from './routes.js'
import { docsRoutes } from './docs.js'
import { describeMetaRoutes } from './openapi.js'

async function meta (app: FastifyInstance): Promise<void> {
  const runtime = runtimeOf(app)
  const { config, models, extensions, metaVersion } = runtime
  app.tablegate.addApiDescriber(describeMetaRoutes(config.apiRoot))
  const documents = new CallerDocuments({ config, resources: [...models.keys()], describers: extensions.apiDescribers, metaVersion })
  await app.register(metaRoutes, { apiRoot: config.apiRoot, documents })
  await app.register(docsRoutes, { runtime, documents })
}

export default fp(meta, { name: 'tablegate-meta', fastify: '5.x', dependencies: ['tablegate', 'tablegate-auth', 'tablegate-access'] })
