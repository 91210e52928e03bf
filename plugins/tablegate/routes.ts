// Mounts the route table's routes on the app: each resource route once per resource, each API
// route once, all answered by the one runner (lib/route/run.ts). Record routes of one method share
// a router entry, which picks the route from the custom method at the end of the path (if any).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Runtime } from '../../lib/runtime.js'
import type { ResourceModel } from '../../lib/model/types.js'
import { runApiRoute, runResourceRoute, type RouteRequest } from '../../lib/route/run.js'
import type { Answer } from '../../lib/route/types.js'
import { resourceRouteClass, type AnyResourceRoute } from '../../lib/route/types.js'
import type { OperationClass } from '../../lib/config/rate-limits.js'
import { apiRouteClass } from '../../lib/route/api-route.js'
import type { MountedRoute } from '../../lib/route/table.js'
import { pathOf, rawKeyOf, routerPath } from '../../lib/route/paths.js'
import { NO_ROUTE_DETAIL, problem } from '../../lib/problems.js'

type Query = Record<string, unknown>

function routeRequest (request: FastifyRequest, reply: FastifyReply, rawKey: string | undefined): RouteRequest {
  return {
    ctx: request.ctx,
    query: request.query as Query,
    body: request.body,
    headers: request.headers,
    rawKey,
    onClose: (listener) => { reply.raw.once('close', () => { listener(reply.raw.writableFinished) }) },
  }
}

function send (reply: FastifyReply, answer: Answer): FastifyReply {
  reply.code(answer.status)
  if (answer.headers !== undefined) reply.headers(answer.headers)
  if (answer.type !== undefined) reply.type(answer.type)
  return reply.send(answer.body)
}

export function mountRoutes (app: FastifyInstance, runtime: Runtime): void {
  const { basePath } = runtime.config
  // Per resource and method, the record routes: a plain one (`/orders/7`) and custom methods.
  const recordRoutes = new Map<string, Array<MountedRoute<AnyResourceRoute>>>()

  const mountRecord = (model: ResourceModel, collectionPath: string, mounted: MountedRoute<AnyResourceRoute>): void => {
    const slot = `${model.name}\0${mounted.route.method}`
    const routes = recordRoutes.get(slot)
    if (routes !== undefined) {
      routes.push(mounted)
      return
    }
    const mine = [mounted]
    recordRoutes.set(slot, mine)
    const choose = (path: string): { chosen: MountedRoute<AnyResourceRoute> | undefined, custom: boolean } => {
      const custom = mine.find(({ route }) => route.customMethod !== undefined && path.endsWith(`:${route.customMethod}`))
      return { chosen: custom ?? mine.find(({ route }) => route.customMethod === undefined), custom: custom !== undefined }
    }
    // Each route's budget class once: request limits ask it of every request.
    const classes = new Map<AnyResourceRoute, OperationClass>()
    const classOf = (route: AnyResourceRoute): OperationClass => {
      let found = classes.get(route)
      if (found === undefined) classes.set(route, found = resourceRouteClass(route))
      return found
    }
    app.route({
      method: mounted.route.method,
      url: `${routerPath(collectionPath)}/:key`,
      config: { operationClass: (url: string) => { const { chosen } = choose(pathOf(url)); return chosen === undefined ? undefined : classOf(chosen.route) } },
      handler: async (request, reply) => {
        const path = pathOf(request.raw.url!)
        const { chosen, custom } = choose(path)
        if (chosen === undefined) throw problem('not-found', NO_ROUTE_DETAIL)
        const suffix = !custom ? 0 : chosen.route.customMethod!.length + 1
        const answer = await runResourceRoute(chosen.route, chosen.queryNames, model, routeRequest(request, reply, rawKeyOf(path, collectionPath, suffix)))
        return send(reply, answer)
      },
    })
  }

  runtime.routes.mountWith({
    resource: (mounted) => {
      for (const model of runtime.models.values()) {
        if (mounted.route.appliesTo?.(model) === false) continue
        const collectionPath = `${basePath}/${model.name}`
        if (mounted.route.target === 'record') {
          mountRecord(model, collectionPath, mounted)
          continue
        }
        const { route, queryNames } = mounted
        app.route({
          method: route.method,
          url: routerPath(route.customMethod === undefined ? collectionPath : `${collectionPath}:${route.customMethod}`),
          config: { operationClass: resourceRouteClass(route) },
          handler: async (request, reply) => send(reply, await runResourceRoute(route, queryNames, model, routeRequest(request, reply, undefined))),
        })
      }
    },
    api: ({ route, queryNames }) => {
      app.route({
        method: route.method,
        url: routerPath(`${basePath}:${route.customMethod}`),
        config: { operationClass: apiRouteClass(route) },
        handler: async (request, reply) => send(reply, await runApiRoute(route, queryNames, routeRequest(request, reply, undefined))),
      })
    },
  })
}
