// Resource routes under the base path: list, get, create, update, delete, undelete. Handlers only
// glue HTTP to the stages: params → plan → (read | write pipeline) → envelope.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { FieldModel, ResourceModel } from '../../lib/model/types.js'
import { parseKey } from '../../lib/model/keys.js'
import { checkKnownParameters, parseFieldMask, parseIfMatch, parsePrefer, parseShowDeleted } from '../../lib/query/params.js'
import { readList, readOne } from '../../lib/read/execute.js'
import { MAX_FILTER_BODY, MAX_FILTER_QUERY, planList, type ListContext, type ListInput } from '../../lib/plan/list.js'
import { readRows } from '../../lib/access/row-filter.js'
import { permissionPlans } from '../../lib/plan/permissions.js'
import { requireOperation, requireTenant } from '../../lib/access/require.js'
import { recordJson } from '../../lib/serialize/json.js'
import type { AccessPlan, Operation } from '../../lib/access/types.js'
import type { QueryModel } from '../../lib/query/filter/checked.js'
import { NO_ROUTE_DETAIL } from '../../lib/problems.js'
import { withTransaction } from '../../lib/db/transaction.js'
import { commitWrite, prepareWrite, type WriteOutcome, type WriteRequest } from '../../lib/write/pipeline.js'
import { writeInOneStatement } from '../../lib/write/single-statement.js'
import { problem } from '../../lib/problems.js'

type Query = Record<string, unknown>

export interface ResourceRouteOptions {
  readonly model: ResourceModel
  /** The list context without the per-caller and per-route parts. */
  readonly list: Omit<ListContext, 'access' | 'query' | 'maxFilterLength'>
  /** The caller's restricted query model, given their readable fields (made once per set). */
  readonly queryModel: (readable: readonly FieldModel[]) => QueryModel
}

const LIST_PARAMETERS = ['filter', 'order_by', 'page_size', 'page_token', 'fields', 'show_deleted', 'count']
const GET_PARAMETERS = ['fields', 'show_deleted']
const UNDELETE_SUFFIX = ':undelete'
const JSON_TYPE = 'application/json; charset=utf-8'

export async function resourceRoutes (app: FastifyInstance, options: ResourceRouteOptions): Promise<void> {
  const { model } = options
  const { config, db, hooks, listGuards } = app.tablegate
  const collectionPath = `${config.basePath}/${model.name}`

  // The key's raw URL text: the router would decode `%2C` into a `,` and break composite keys.
  const rawKey = (request: FastifyRequest, suffix = ''): string => {
    const path = request.raw.url!.split('?')[0]!
    const raw = path.slice(collectionPath.length + 1)
    return suffix === '' ? raw : raw.slice(0, -suffix.length)
  }

  // A resource the caller can do nothing with does not exist for them: the unknown-route 404.
  const accessFor = (request: FastifyRequest, operation?: Operation): AccessPlan => {
    const access = request.ctx.access(model.name)
    if (!access.visible) throw problem('not-found', NO_ROUTE_DETAIL)
    if (operation !== undefined) requireOperation(access, model, operation)
    return access
  }

  // One statement where it is atomic on its own; otherwise the pipeline in a transaction.
  const write = async (request: FastifyRequest, access: AccessPlan, write: WriteRequest) => {
    const context = { ctx: request.ctx, access, hooks }
    const prepared = await prepareWrite(write, context)
    return await writeInOneStatement(prepared, context, db.app) ??
      await withTransaction(db.app, {}, async (tx) => await commitWrite(prepared, context, tx))
  }

  // Bodies are JSON text already (lib/serialize/json.ts): Fastify sends JSON text as it is.
  const sendJson = (reply: FastifyReply, status: number, json: string) => reply.code(status).type(JSON_TYPE).send(json)

  const respond = (reply: FastifyReply, status: number, access: AccessPlan, outcome: WriteOutcome, prefer: ReturnType<typeof parsePrefer>) => {
    reply.header('etag', outcome.etag)
    if (prefer === 'minimal') return reply.code(status === 201 ? 201 : 204).send()
    return sendJson(reply, status, recordJson(access.readable, outcome.record, outcome.etag))
  }

  const list = async (request: FastifyRequest, reply: FastifyReply, access: AccessPlan, input: ListInput, maxFilterLength: number) => {
    requireTenant(model, request.ctx.tenant)
    const plan = planList(input, { ...options.list, access, query: options.queryModel(access.readable), maxFilterLength })
    const { json, warnings } = await readList(db.read, plan, options.list.tokens, listGuards)
    if (warnings.length > 0) reply.header('x-service-warning', warnings.join(' '))
    return sendJson(reply, 200, json)
  }

  app.get(collectionPath, async (request, reply) => {
    const access = accessFor(request, 'read')
    const query = request.query as Query
    checkKnownParameters(query, LIST_PARAMETERS)
    return await list(request, reply, access, query, MAX_FILTER_QUERY)
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
    return await list(request, reply, access, body as ListInput, MAX_FILTER_BODY)
  })

  app.get(`${collectionPath}/:key`, async (request, reply) => {
    const access = accessFor(request, 'read')
    const query = request.query as Query
    checkKnownParameters(query, GET_PARAMETERS)
    requireTenant(model, request.ctx.tenant)
    const { json, etag } = await readOne(db.read, {
      kind: 'get',
      model,
      readable: access.readable,
      select: parseFieldMask(access.readable, query.fields),
      scope: { tenant: request.ctx.tenant, rows: readRows(access), showDeleted: parseShowDeleted(model, query.show_deleted) },
      key: parseKey(model, rawKey(request)),
      permissions: options.list.rowPermissions ? permissionPlans(access).get : undefined,
    })
    reply.header('etag', etag)
    return sendJson(reply, 200, json)
  })

  app.post(collectionPath, async (request, reply) => {
    const access = accessFor(request)
    checkKnownParameters(request.query as Query, [])
    const outcome = await write(request, access, { operation: 'create', model, body: request.body })
    reply.header('location', `${collectionPath}/${outcome.key}`)
    return respond(reply, 201, access, outcome, parsePrefer(request.headers.prefer))
  })

  app.patch(`${collectionPath}/:key`, async (request, reply) => {
    const access = accessFor(request)
    checkKnownParameters(request.query as Query, [])
    const outcome = await write(request, access, { operation: 'update', model, key: parseKey(model, rawKey(request)), body: request.body, ifMatch: parseIfMatch(request.headers['if-match']) })
    return respond(reply, 200, access, outcome, parsePrefer(request.headers.prefer))
  })

  app.delete(`${collectionPath}/:key`, async (request, reply) => {
    const access = accessFor(request)
    checkKnownParameters(request.query as Query, [])
    const outcome = await write(request, access, { operation: 'delete', model, key: parseKey(model, rawKey(request)), ifMatch: parseIfMatch(request.headers['if-match']) })
    if (parsePrefer(request.headers.prefer) !== 'representation') return reply.code(204).send()
    return sendJson(reply, 200, recordJson(access.readable, outcome.record, outcome.etag))
  })

  app.post(`${collectionPath}/:key`, async (request, reply) => {
    if (!rawKey(request).endsWith(UNDELETE_SUFFIX)) throw problem('not-found', NO_ROUTE_DETAIL)
    const access = accessFor(request)
    checkKnownParameters(request.query as Query, [])
    const outcome = await write(request, access, { operation: 'undelete', model, key: parseKey(model, rawKey(request, UNDELETE_SUFFIX)), ifMatch: parseIfMatch(request.headers['if-match']) })
    reply.header('etag', outcome.etag)
    return sendJson(reply, 200, recordJson(access.readable, outcome.record, outcome.etag))
  })
}
