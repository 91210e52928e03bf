// One app's routes: the built-in resource routes and any a plugin adds, each checked when added
// and mounted at once by the HTTP edge (the root plugin gives the table its mount). Sealed once
// the app is ready, like the other extension points. The table is also the describer of its
// routes in each caller's OpenAPI document.
import type { AccessPlan } from '../access/types.js'
import { OPERATIONS } from '../access/types.js'
import { OPERATION_CLASS, type ApiContext, type PathItems } from '../openapi/document.js'
import { describeParameters, queryParameterNames } from './parameters.js'
import { resourceRouteClass, type AnyResourceRoute, type RouteMethod } from './types.js'
import { apiRouteClass, type AnyApiRoute } from './api-route.js'

export type RouteRegistrationCode = 'TG_ERR_ROUTE_INVALID' | 'TG_ERR_ROUTE_TAKEN' | 'TG_ERR_ROUTE_AFTER_READY'

export class RouteRegistrationError extends Error {
  constructor (readonly code: RouteRegistrationCode, message: string) {
    super(message)
    this.name = 'RouteRegistrationError'
  }
}

/** A route as the table keeps it: with the query parameter names worked out once. */
export interface MountedRoute<R> {
  readonly route: R
  readonly queryNames: readonly string[]
}

export interface RouteMount {
  resource (route: MountedRoute<AnyResourceRoute>): void
  api (route: MountedRoute<AnyApiRoute>): void
}

const METHODS: readonly RouteMethod[] = ['GET', 'POST', 'PATCH', 'DELETE']
const CUSTOM_METHOD = /^[a-z][A-Za-z0-9]*$/
const ID = /^[a-z][A-Za-z0-9_]*$/

function invalid (message: string): never {
  throw new RouteRegistrationError('TG_ERR_ROUTE_INVALID', message)
}

function checkShape (route: AnyResourceRoute | AnyApiRoute, kind: string): void {
  if (typeof route !== 'object' || route === null) invalid(`${kind} expects a route declaration object`)
  if (typeof route.id !== 'string' || !ID.test(route.id)) invalid(`${kind}: id must be a name like "stats" (letters, digits, _), not ${JSON.stringify(route.id)}`)
  if (!METHODS.includes(route.method)) invalid(`${kind} ${route.id}: method must be one of ${METHODS.join(', ')}`)
  if (route.customMethod !== undefined && (typeof route.customMethod !== 'string' || !CUSTOM_METHOD.test(route.customMethod))) {
    invalid(`${kind} ${route.id}: customMethod must be a lowerCamelCase name like "stats", not ${JSON.stringify(route.customMethod)}`)
  }
  for (const stage of ['plan', 'run', 'respond', 'describe'] as const) {
    if (typeof route[stage] !== 'function') invalid(`${kind} ${route.id}: ${stage} must be a function`)
  }
  if (!Array.isArray(route.parameters)) invalid(`${kind} ${route.id}: parameters must be a list`)
}

function where (route: AnyResourceRoute | AnyApiRoute): string {
  const target = 'target' in route ? route.target : 'api'
  return `${route.method} ${target}${route.customMethod === undefined ? '' : `:${route.customMethod}`}`
}

export class RouteTable {
  readonly #resourceRoutes: Array<MountedRoute<AnyResourceRoute>> = []
  readonly #apiRoutes: Array<MountedRoute<AnyApiRoute>> = []
  readonly #places = new Set<string>()
  readonly #ids = new Set<string>()
  #mount: RouteMount | undefined
  #sealed = false

  /** Routes added before the mount is given are mounted then; later ones at once. */
  mountWith (mount: RouteMount): void {
    this.#mount = mount
    for (const route of this.#resourceRoutes) mount.resource(route)
    for (const route of this.#apiRoutes) mount.api(route)
  }

  addResourceRoute (route: AnyResourceRoute): void {
    this.#open('addResourceRoute')
    checkShape(route, 'addResourceRoute')
    if (route.target !== 'collection' && route.target !== 'record') invalid(`addResourceRoute ${route.id}: target must be "collection" or "record"`)
    if (!Array.isArray(route.operations) || route.operations.length === 0 || route.operations.some((op) => !OPERATIONS.includes(op))) {
      invalid(`addResourceRoute ${route.id}: operations must name one or more of ${OPERATIONS.join(', ')}`)
    }
    this.#claim(route)
    const mounted = { route, queryNames: queryParameterNames(route.parameters) }
    this.#resourceRoutes.push(mounted)
    this.#mount?.resource(mounted)
  }

  addApiRoute (route: AnyApiRoute): void {
    this.#open('addApiRoute')
    checkShape(route, 'addApiRoute')
    if (route.customMethod === undefined) invalid(`addApiRoute ${route.id}: customMethod is required (the route answers {basePath}:<customMethod>)`)
    this.#claim(route)
    const mounted = { route, queryNames: queryParameterNames(route.parameters) }
    this.#apiRoutes.push(mounted)
    this.#mount?.api(mounted)
  }

  seal (): void {
    this.#sealed = true
  }

  /** The routes' operations in one caller's OpenAPI document: each where the caller may call it. */
  readonly describe = (api: ApiContext): PathItems => {
    const paths: PathItems = {}
    for (const resource of api.resources) {
      for (const { route } of this.#resourceRoutes) {
        if (route.appliesTo?.(resource.access.model) === false || !offered(route, resource.access, api.accessOf)) continue
        const base = route.target === 'collection' ? resource.collectionPath : resource.recordPath
        const path = route.customMethod === undefined ? base : `${base}:${route.customMethod}`
        const { summary, description, ...rest } = route.describe(api, resource)
        const parameters = describeParameters(route.parameters, api, resource.access)
        const item = paths[path] ?? (route.target === 'record' ? { parameters: [api.parameter('key')] } : {})
        item[route.method.toLowerCase()] = {
          operationId: `${route.id}_${resource.name}`,
          tags: [resource.name],
          summary,
          ...(description === undefined ? {} : { description }),
          ...(parameters.length === 0 ? {} : { parameters }),
          ...rest,
          [OPERATION_CLASS]: resourceRouteClass(route),
        }
        paths[path] = item
      }
    }
    for (const { route } of this.#apiRoutes) {
      const described = route.describe(api)
      if (described === undefined) continue
      const { summary, description, ...rest } = described
      const path = `${api.basePath}:${route.customMethod}`
      const parameters = describeParameters(route.parameters, api, undefined)
      paths[path] = {
        ...paths[path],
        [route.method.toLowerCase()]: { operationId: route.id, summary, ...(description === undefined ? {} : { description }), ...(parameters.length === 0 ? {} : { parameters }), ...rest, [OPERATION_CLASS]: apiRouteClass(route) },
      }
    }
    return paths
  }

  #open (kind: string): void {
    if (this.#sealed) throw new RouteRegistrationError('TG_ERR_ROUTE_AFTER_READY', `${kind} after the app is ready: add routes while plugins register`)
  }

  #claim (route: AnyResourceRoute | AnyApiRoute): void {
    const place = where(route)
    if (this.#places.has(place)) throw new RouteRegistrationError('TG_ERR_ROUTE_TAKEN', `${place} is already a route`)
    if (this.#ids.has(route.id)) throw new RouteRegistrationError('TG_ERR_ROUTE_TAKEN', `a route with id "${route.id}" already exists`)
    this.#places.add(place)
    this.#ids.add(route.id)
  }
}

function offered (route: AnyResourceRoute, access: AccessPlan, accessOf: (resource: string) => AccessPlan): boolean {
  return route.offered !== undefined ? route.offered(access, accessOf) : route.operations.every((op) => access.operations[op].allowed)
}
