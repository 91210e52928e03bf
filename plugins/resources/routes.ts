// Resource routes under the base path: list, :search, :seek, get, create, update, delete, undelete. Handlers only
// glue HTTP to the stages: access → params → plan → (read | write pipeline) → JSON.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { ResourceModel } from '../../lib/model/types.js'
import type { Runtime } from '../../lib/runtime.js'
import { parseKey } from '../../lib/model/keys.js'
import { checkKnownParameters, noneMatch, parseIfMatch, parsePrefer } from '../../lib/query/params.js'
import { readList, readOne } from '../../lib/read/execute.js'
import { MAX_FILTER_BODY, MAX_FILTER_QUERY, planList, type ListContext, type ListInput } from '../../lib/plan/list.js'
import { planSeek } from '../../lib/plan/seek.js'
import type { ListPlan } from '../../lib/plan/types.js'
import { planGet } from '../../lib/plan/read.js'
import { requireOperation, requireTenant, requireVisible } from '../../lib/access/require.js'
import { recordJson } from '../../lib/serialize/json.js'
import type { AccessPlan, Operation } from '../../lib/access/types.js'
import { NO_ROUTE_DETAIL, problem } from '../../lib/problems.js'
import { withTransaction } from '../../lib/db/transaction.js'
import { commitWrite, prepareWrite, type WriteOutcome, type WriteRequest } from '../../lib/write/pipeline.js'
import { writeInOneStatement } from '../../lib/write/single-statement.js'
import { isUndelete, rawKeyOf, UNDELETE } from './paths.js'
import { headerText } from '../../lib/text.js'

type Query = Record<string, unknown>

export interface ResourceRouteOptions {
  readonly model: ResourceModel
  readonly runtime: Runtime
}

const LIST_PARAMETERS = ['filter', 'order_by', 'page_size', 'page_token', 'fields', 'show_deleted', 'count']
const SEEK_PARAMETERS = ['position', 'filter', 'order_by', 'page_size', 'page_token', 'fields', 'show_deleted']
const GET_PARAMETERS = ['fields', 'show_deleted']
const JSON_TYPE = 'application/json; charset=utf-8'

export async function resourceRoutes (app: FastifyInstance, options: ResourceRouteOptions): Promise<void> {
  const { model, runtime } = options
  const { config, db, services, extensions } = runtime
  const collectionPath = `${config.basePath}/${model.name}`
  const rowPermissions = config.rowPermissions.has(model.name)
  const keyOf = (request: FastifyRequest, suffix = ''): string[] => parseKey(model, rawKeyOf(request.raw.url!, collectionPath, suffix))

  const accessFor = (request: FastifyRequest, operation?: Operation): AccessPlan => {
    const access = requireVisible(request.ctx.access(model.name))
    if (operation !== undefined) requireOperation(access, model, operation)
    return access
  }

  // One statement where it is atomic on its own; otherwise the pipeline in a transaction.
  const write = async (request: FastifyRequest, access: AccessPlan, write: WriteRequest): Promise<WriteOutcome> => {
    const context = { ctx: request.ctx, access, services }
    const times = request.ctx.timing
    times?.mark()
    const plan = await prepareWrite(write, context)
    times?.lap('plan')
    const outcome = await writeInOneStatement(plan, context, db.app) ??
      await withTransaction(db.app, {}, async (tx) => await commitWrite(plan, context, tx))
    // A write's db stage is all of its database work: statements, transaction and write hooks.
    times?.lap('db')
    return outcome
  }

  // Bodies are JSON text already (lib/serialize/json.ts): Fastify sends JSON text as it is.
  const sendJson = (reply: FastifyReply, status: number, json: string) => reply.code(status).type(JSON_TYPE).send(json)
  const recordOf = (request: FastifyRequest, access: AccessPlan, outcome: WriteOutcome): string => {
    request.ctx.timing?.mark()
    const json = recordJson(services.selections.of(model, access.readable), outcome.row, outcome.etag)
    request.ctx.timing?.lap('serialize')
    return json
  }

  const respond = (request: FastifyRequest, reply: FastifyReply, status: number, access: AccessPlan, outcome: WriteOutcome, prefer: ReturnType<typeof parsePrefer>) => {
    reply.header('etag', outcome.etag)
    if (prefer === 'minimal') return reply.code(status === 201 ? 201 : 204).send()
    return sendJson(reply, status, recordOf(request, access, outcome))
  }

  const list = async (request: FastifyRequest, reply: FastifyReply, access: AccessPlan, plan: (context: ListContext) => ListPlan, maxFilterLength: number) => {
    requireTenant(model, request.ctx.tenant)
    request.ctx.timing?.mark()
    const searchPath = maxFilterLength === MAX_FILTER_QUERY ? `${collectionPath}:search` : undefined
    const planned = plan({ access, services, rowPermissions, maxFilterLength, searchPath })
    request.ctx.timing?.lap('plan')
    const { json, warnings } = await readList(db.read, planned, services, extensions.listGuards, request.ctx.timing)
    if (warnings.length > 0) reply.header('x-service-warning', headerText(warnings.join(' ')))
    return sendJson(reply, 200, json)
  }

  app.get(collectionPath, async (request, reply) => {
    const access = accessFor(request, 'read')
    const query = request.query as Query
    checkKnownParameters(query, LIST_PARAMETERS)
    return await list(request, reply, access, (context) => planList(query, context), MAX_FILTER_QUERY)
  })

  // The page at a row position of the filtered, ordered rows, or the page of a seek's token.
  app.get(`${collectionPath.replace(/:/g, '::')}::seek`, async (request, reply) => {
    const access = accessFor(request, 'read')
    const query = request.query as Query
    checkKnownParameters(query, SEEK_PARAMETERS)
    return await list(request, reply, access, (context) => planSeek(query, context), MAX_FILTER_QUERY)
  })

  // The same parameters in a JSON body: long filters, and `fields` as an array.
  app.post(`${collectionPath.replace(/:/g, '::')}::search`, async (request, reply) => {
    const access = accessFor(request, 'read')
    checkKnownParameters(request.query as Query, [])
    const body = request.body ?? {}
    if (typeof body !== 'object' || Array.isArray(body)) {
      throw problem('invalid-parameter', 'The body of :search is a JSON object of list parameters.', { errors: [{ parameter: 'body', message: 'must be a JSON object' }] })
    }
    checkKnownParameters(body as Query, LIST_PARAMETERS)
    return await list(request, reply, access, (context) => planList(body as ListInput, context), MAX_FILTER_BODY)
  })

  app.get(`${collectionPath}/:key`, async (request, reply) => {
    const access = accessFor(request, 'read')
    const query = request.query as Query
    checkKnownParameters(query, GET_PARAMETERS)
    requireTenant(model, request.ctx.tenant)
    request.ctx.timing?.mark()
    const plan = planGet(keyOf(request), query, access, services, rowPermissions)
    request.ctx.timing?.lap('plan')
    const { json, etag } = await readOne(db.read, plan, services, request.ctx.timing)
    reply.header('etag', etag)
    if (noneMatch(request.headers['if-none-match'], etag)) return reply.code(304).send()
    return sendJson(reply, 200, json)
  })

  app.post(collectionPath, async (request, reply) => {
    const access = accessFor(request)
    checkKnownParameters(request.query as Query, [])
    const outcome = await write(request, access, { operation: 'create', body: request.body })
    reply.header('location', `${collectionPath}/${outcome.key}`)
    return respond(request, reply, 201, access, outcome, parsePrefer(request.headers.prefer))
  })

  app.patch(`${collectionPath}/:key`, async (request, reply) => {
    const access = accessFor(request)
    checkKnownParameters(request.query as Query, [])
    const outcome = await write(request, access, { operation: 'update', key: keyOf(request), body: request.body, ifMatch: parseIfMatch(request.headers['if-match']) })
    return respond(request, reply, 200, access, outcome, parsePrefer(request.headers.prefer))
  })

  app.delete(`${collectionPath}/:key`, async (request, reply) => {
    const access = accessFor(request)
    checkKnownParameters(request.query as Query, [])
    const outcome = await write(request, access, { operation: 'delete', key: keyOf(request), ifMatch: parseIfMatch(request.headers['if-match']) })
    if (parsePrefer(request.headers.prefer) !== 'representation') return reply.code(204).send()
    // The record in the body carries the ETag header its `etag` equals, as every record does.
    reply.header('etag', outcome.etag)
    return sendJson(reply, 200, recordOf(request, access, outcome))
  })

  app.post(`${collectionPath}/:key`, async (request, reply) => {
    if (!isUndelete(request.raw.url!)) throw problem('not-found', NO_ROUTE_DETAIL)
    const access = accessFor(request)
    checkKnownParameters(request.query as Query, [])
    const outcome = await write(request, access, { operation: 'undelete', key: keyOf(request, UNDELETE), ifMatch: parseIfMatch(request.headers['if-match']) })
    reply.header('etag', outcome.etag)
    return sendJson(reply, 200, recordOf(request, access, outcome))
  })
}
