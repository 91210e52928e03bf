// The console (docs/console.md): the prebuilt single-page app at config `console.path`. Only
// static files, the same for everyone and without a token; the app then signs in and reads
// /api/meta as the caller, like any other client.
import fp from 'fastify-plugin'
import type { FastifyInstance, FastifyReply } from 'fastify'
import { runtimeOf } from '../../lib/runtime.js'
import { problem, NO_ROUTE_DETAIL } from '../../lib/problems.js'
import { APP_DIR, loadConsoleFiles, type StaticAnswer } from './assets.js'

async function consoleApp (app: FastifyInstance): Promise<void> {
  const { config } = runtimeOf(app)
  const path = config.consolePath
  if (path === undefined) return
  const { accounts } = config
  const files = loadConsoleFiles(APP_DIR, {
    apiRoot: config.apiRoot,
    basePath: config.basePath,
    consolePath: path,
    accounts: {
      passwordReset: accounts.passwordReset !== undefined,
      emailVerification: accounts.emailVerification !== undefined,
      passwordMinLength: accounts.passwordPolicy.minLength,
      passwordMaxLength: accounts.passwordPolicy.maxLength,
    },
  })
  const send = (reply: FastifyReply, answer: StaticAnswer): FastifyReply => reply.headers(answer.headers).send(answer.body)
  const routeConfig = { public: true }
  app.get(path, { config: routeConfig }, async (_request, reply) => send(reply, files.index))
  // '/console' as well as '/console/': the page names its assets by absolute path.
  const { initialConfig } = app
  const trailingSlashIgnored = initialConfig.ignoreTrailingSlash === true || initialConfig.routerOptions?.ignoreTrailingSlash === true
  if (path !== '/' && !trailingSlashIgnored) app.get(path.slice(0, -1), { config: routeConfig }, async (_request, reply) => send(reply, files.index))
  app.get<{ Params: { file: string } }>(`${path}assets/:file`, { config: routeConfig }, async (request, reply) => {
    const answer = files.assets.get(request.params.file)
    if (answer === undefined) throw problem('not-found', NO_ROUTE_DETAIL)
    return send(reply, answer)
  })
}

export default fp(consoleApp, { name: 'tablegate-console', fastify: '5.x', dependencies: ['tablegate'] })
