// GET {apiRoot}/docs: Scalar's interactive reference over the caller's own OpenAPI document. Its
// bundle is served from the package (no network at run time), loaded on the first request
// (reference.ts). A browser holds a session cookie, not a bearer token, so this scope accepts
// either (docs/meta.md, "The docs in a browser") and checks them itself; the document it hands the
// page carries a bearer token for the page's "try it" calls.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import cookie from '@fastify/cookie'
import { callerAccess } from '../../lib/access/resolve.js'
import { bearerCaller, sessionCaller, type BrowserCaller } from '../../lib/auth/browser-caller.js'
import { cookieSecret, sessionCookieName } from '../../lib/auth/session-cookie.js'
import type { CallerDocuments } from '../../lib/meta/caller-documents.js'
import type { Runtime } from '../../lib/runtime.js'
import { documentCaller } from './routes.js'
import { lazyReference, pageHeaders } from './reference.js'

export interface DocsRouteOptions {
  readonly runtime: Runtime
  readonly documents: CallerDocuments
}

export async function docsRoutes (app: FastifyInstance, options: DocsRouteOptions): Promise<void> {
  const { runtime, documents } = options
  const { config, verifier, users, db } = runtime
  const prefix = `${config.apiRoot}/docs`
  const cookieName = sessionCookieName(config.publicUrl)
  const callers = new WeakMap<FastifyRequest, BrowserCaller>()

  const browserCaller = async (request: FastifyRequest): Promise<BrowserCaller> => {
    if (request.headers.authorization !== undefined) return await bearerCaller(verifier, request.headers.authorization)
    const raw = users === undefined ? undefined : request.cookies[cookieName]
    const unsigned = raw === undefined ? undefined : request.unsignCookie(raw)
    const session = unsigned?.valid === true && unsigned.value !== null ? await sessionCaller(users!, unsigned.value, config.tenant, config.publicUrl, config.organizations !== undefined) : undefined
    // Neither: the verifier's own 401, the same problem every route gives without a token.
    return session ?? await bearerCaller(verifier, undefined)
  }

  if (users !== undefined) await app.register(cookie, { secret: cookieSecret(db.authSecret) })
  // The global bearer check passes these routes by; the hook below verifies their callers instead,
  // and request limits count them after it, against the caller it finds.
  const own = { config: { public: true, requestLimits: 'after-own-caller-check' } } as const
  app.addHook('onRequest', async (request) => {
    const caller = await browserCaller(request)
    const { user, tenant, org } = caller.principal
    request.ctx.user = user
    request.ctx.tenant = tenant
    request.ctx.org = org
    request.ctx.access = callerAccess(runtime.access, caller.principal)
    callers.set(request, caller)
  })

  // The page names its bundle and its document by absolute path, so one page serves at
  // {prefix} and at {prefix}/ alike: no redirect between the two, for anyone.
  const reference = lazyReference({
    routePrefix: prefix as `/${string}`,
    configuration: {
      url: `${prefix}/openapi.json`,
      cdn: `${prefix}/js/scalar.js`,
      pageTitle: 'API reference',
      withDefaultFonts: false,
      hideClientButton: true,
      authentication: { preferredSecurityScheme: 'bearer' },
    },
  })
  app.addHook('onClose', async () => { await reference.close() })
  // Scalar's own answers, asked at the address its routes have (a query changes neither).
  const serve = (inner: string) => async (_request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    const answer = await reference.get(inner)
    return reply.code(answer.statusCode).headers(pageHeaders(answer)).send(answer.rawPayload)
  }
  const { initialConfig } = app
  const trailingSlashIgnored = initialConfig.ignoreTrailingSlash === true || initialConfig.routerOptions?.ignoreTrailingSlash === true
  for (const url of trailingSlashIgnored ? [prefix] : [prefix, `${prefix}/`]) app.get(url, own, serve(`${prefix}/`))
  app.get(`${prefix}/js/scalar.js`, own, serve(`${prefix}/js/scalar.js`))

  // The page's copy of the caller's document, with their token filled in for "try it".
  app.get(`${prefix}/openapi.json`, own, async (request, reply) => {
    const { value } = documents.openapi(documentCaller(request))
    const components = value.components as { securitySchemes: { bearer: Record<string, unknown> } }
    const token = await callers.get(request)!.token()
    const document = { ...value, components: { ...components, securitySchemes: { bearer: { ...components.securitySchemes.bearer, 'x-scalar-secret-token': token } } } }
    return reply.header('cache-control', 'no-store').type('application/json; charset=utf-8').send(JSON.stringify(document))
  })
}
