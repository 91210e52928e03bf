// Adds the resource routes (./routes.ts) to the app's route table, which mounts them for every
// resource and describes them in each caller's OpenAPI document.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { runtimeOf } from '../../lib/runtime.js'
import { resourceRoutes } from './routes.js'

async function resources (app: FastifyInstance): Promise<void> {
  const runtime = runtimeOf(app)
  for (const route of resourceRoutes(runtime)) runtime.routes.addResourceRoute(route)
}

export default fp(resources, { name: 'tablegate-resources', fastify: '5.x', dependencies: ['tablegate', 'tablegate-auth', 'tablegate-access'] })
