// The resource routes, as declarations the one runner takes every request through (lib/route/):
// list, :search, :seek, get, create, update, delete and :undelete. Each says what it reads, plans,
// runs and answers; the gate, the parameter check and the timing are the runner's.
import type { Runtime } from '../../lib/runtime.js'
import { noneMatch, parseIfMatch, parsePrefer, checkKnownParameters } from '../../lib/query/params.js'
import { readPage, readRecord, type PageRead } from '../../lib/read/execute.js'
import { pageJson, recordAnswer } from '../../lib/read/answer.js'
import { MAX_FILTER_BODY, MAX_FILTER_QUERY, planList, type ListContext, type ListInput } from '../../lib/plan/list.js'
import { planSeek } from '../../lib/plan/seek.js'
import { planGet } from '../../lib/plan/read.js'
import { problem } from '../../lib/problems.js'
import { withTransaction } from '../../lib/db/transaction.js'
import { commitWrite, prepareWrite, type WriteContext, type WriteOutcome, type WriteRequest } from '../../lib/write/pipeline.js'
import type { ListPlan, WritePlan } from '../../lib/plan/types.js'
import { writeInOneStatement } from '../../lib/write/single-statement.js'
import { withEmbeds, writtenJson } from '../../lib/write/embeds.js'
import { headerText } from '../../lib/text.js'
import { resourceRoute, type Answer, type AnyResourceRoute, type RouteInput } from '../../lib/route/types.js'
import type { SharedParameter } from '../../lib/route/parameters.js'
import { describeCreate, describeDelete, describeGet, describeList, describeSearch, describeSeek, describeUndelete, describeUpdate } from './openapi.js'

const LIST_PARAMETERS: readonly SharedParameter[] = ['filter', 'order_by', 'page_size', 'page_token', 'fields', 'count', 'show_deleted']
const JSON_TYPE = 'application/json; charset=utf-8'

const json = (status: number, body: string, headers?: Record<string, string>): Answer => ({ status, type: JSON_TYPE, body, ...(headers === undefined ? {} : { headers }) })

export function resourceRoutes (runtime: Runtime): AnyResourceRoute[] {
  const { config, db, services, extensions } = runtime

  const listContext = (input: RouteInput, maxFilterLength: number): ListContext => ({
    access: input.access,
    accessOf: input.ctx.access,
    services,
    rowPermissions: config.rowPermissions.has(input.model.name),
    maxFilterLength,
    // A filter too long for the query string fits in a :search body.
    searchPath: maxFilterLength === MAX_FILTER_QUERY ? `${config.basePath}/${input.model.name}:search` : undefined,
  })
  // A page's database work, then its answer: the runner times the two as db and serialize.
  const readListPage = async (plan: ListPlan): Promise<PageRead> => await readPage(db.read, plan, services, extensions.listGuards)
  const page = async (read: PageRead, plan: ListPlan): Promise<Answer> =>
    json(200, await pageJson(plan, read, services), read.warnings.length > 0 ? { 'x-service-warning': headerText(read.warnings.join(' ')) } : undefined)

  const writeContext = (input: RouteInput): WriteContext => ({ ctx: input.ctx, access: input.access, services })
  // The runner admitted the write (lib/access/require.ts admit): the plan takes its access as given.
  const planWrite = async (input: RouteInput, request: Omit<WriteRequest, 'admitted'>): Promise<WritePlan> =>
    await prepareWrite({ ...request, admitted: input.allowed }, writeContext(input))
  // Create, update and :undelete answer with the record as `fields` asks for it, embeds included.
  const answered = (input: RouteInput): Pick<WriteRequest, 'fields' | 'minimal'> =>
    ({ fields: input.query.fields, minimal: parsePrefer(input.headers.prefer) === 'minimal' })
  // One statement where it is atomic on its own; otherwise the pipeline in a transaction. A
  // write's db stage is all of its database work: statements, transaction and write hooks.
  // Embeds are read after the write on its transaction (lib/write/embeds.ts); a write without
  // a path sends what it always did.
  const write = async (plan: WritePlan, input: RouteInput): Promise<WriteOutcome> => {
    const outcome = await writeOnce(plan, input)
    if (plan.capture) runtime.changes?.written()
    return outcome
  }
  const writeOnce = async (plan: WritePlan, input: RouteInput): Promise<WriteOutcome> => {
    const context = writeContext(input)
    if (plan.embeds.length > 0) {
      return await withTransaction(db.app, {}, async (tx) =>
        await withEmbeds(plan, await writeInOneStatement(plan, context, tx) ?? await commitWrite(plan, context, tx), tx))
    }
    return await writeInOneStatement(plan, context, db.app) ??
      await withTransaction(db.app, {}, async (tx) => await commitWrite(plan, context, tx))
  }
  // The ETag is the record's own, whatever it embeds.
  const record = (status: number, outcome: WriteOutcome, plan: WritePlan, headers: Record<string, string> = {}): Answer =>
    json(status, writtenJson(plan, outcome, services.etags, services.pageTokens), { ...headers, etag: outcome.etag })
  const written = (status: number, outcome: WriteOutcome, plan: WritePlan, input: RouteInput, headers: Record<string, string> = {}): Answer =>
    parsePrefer(input.headers.prefer) === 'minimal'
      ? { status: status === 201 ? 201 : 204, headers: { ...headers, etag: outcome.etag } }
      : record(status, outcome, plan, headers)

  return [
    resourceRoute({
      id: 'list',
      method: 'GET',
      target: 'collection',
      operations: ['read'],
      parameters: LIST_PARAMETERS,
      plan: (input) => planList(input.query, listContext(input, MAX_FILTER_QUERY)),
      run: readListPage,
      respond: page,
      describe: describeList,
    }),
    // The same parameters in a JSON body: long filters, and `fields` as an array.
    resourceRoute({
      id: 'search',
      method: 'POST',
      target: 'collection',
      customMethod: 'search',
      operations: ['read'],
      parameters: [],
      plan: (input) => {
        const body = input.body ?? {}
        if (typeof body !== 'object' || Array.isArray(body)) {
          throw problem('invalid-parameter', 'The body of :search is a JSON object of list parameters.', { errors: [{ parameter: 'body', message: 'must be a JSON object' }] })
        }
        checkKnownParameters(body as Record<string, unknown>, LIST_PARAMETERS)
        return planList(body as ListInput, listContext(input, MAX_FILTER_BODY))
      },
      run: readListPage,
      respond: page,
      describe: describeSearch,
    }),
    // The page at a row position of the filtered, ordered rows, or the page of a seek's token.
    resourceRoute({
      id: 'seek',
      method: 'GET',
      target: 'collection',
      customMethod: 'seek',
      operations: ['read'],
      parameters: [{ name: 'position', in: 'query', schema: { type: 'integer', format: 'int64', minimum: 0, maximum: Number.MAX_SAFE_INTEGER }, description: 'The 0-based row of the filtered, ordered rows the page starts at; or send page_token.' }, 'filter', 'order_by', 'page_size', 'page_token', 'fields', 'show_deleted'],
      plan: (input) => planSeek(input.query, listContext(input, MAX_FILTER_QUERY)),
      run: readListPage,
      respond: page,
      describe: describeSeek,
    }),
    resourceRoute({
      id: 'get',
      method: 'GET',
      target: 'record',
      operations: ['read'],
      parameters: ['fields', 'show_deleted', 'ifNoneMatch'],
      plan: (input) => planGet(input.key!, input.query, input.access, services, config.rowPermissions.has(input.model.name), input.ctx.access),
      run: async (plan) => await readRecord(db.read, plan),
      respond: async (row, plan, input) => {
        const { json: body, etag } = await recordAnswer(plan, row, services)
        return noneMatch(input.headers['if-none-match'], etag) ? { status: 304, headers: { etag } } : json(200, body, { etag })
      },
      describe: describeGet,
    }),
    resourceRoute({
      id: 'create',
      method: 'POST',
      target: 'collection',
      operations: ['create'],
      parameters: ['fields', 'preferWrite'],
      offered: (access) => access.operations.create.allowed && access.writableOnCreate.length > 0,
      plan: async (input) => await planWrite(input, { operation: 'create', body: input.body, ...answered(input) }),
      run: write,
      respond: (outcome, plan, input) => written(201, outcome, plan, input, { location: `${config.basePath}/${input.model.name}/${outcome.key}` }),
      describe: describeCreate,
    }),
    resourceRoute({
      id: 'update',
      method: 'PATCH',
      target: 'record',
      operations: ['update'],
      parameters: ['fields', 'ifMatchRequired', 'preferWrite'],
      offered: (access) => access.operations.update.allowed && access.writable.length > 0,
      plan: async (input) => await planWrite(input, { operation: 'update', key: input.key, body: input.body, ifMatch: parseIfMatch(input.headers['if-match']), ...answered(input) }),
      run: write,
      respond: (outcome, plan, input) => written(200, outcome, plan, input),
      describe: describeUpdate,
    }),
    resourceRoute({
      id: 'delete',
      method: 'DELETE',
      target: 'record',
      operations: ['delete'],
      parameters: ['ifMatch', 'preferDelete'],
      plan: async (input) => await planWrite(input, { operation: 'delete', key: input.key, ifMatch: parseIfMatch(input.headers['if-match']) }),
      run: write,
      // The record in the body carries the ETag header its `etag` equals, as every record does.
      respond: (outcome, plan, input) => parsePrefer(input.headers.prefer) === 'representation' ? record(200, outcome, plan) : { status: 204 },
      describe: describeDelete,
    }),
    resourceRoute({
      id: 'undelete',
      method: 'POST',
      target: 'record',
      customMethod: 'undelete',
      operations: ['undelete'],
      parameters: ['fields', 'ifMatch'],
      offered: (access) => access.model.softDelete !== undefined && access.operations.undelete.allowed,
      plan: async (input) => await planWrite(input, { operation: 'undelete', key: input.key, ifMatch: parseIfMatch(input.headers['if-match']), ...answered(input) }),
      run: write,
      respond: (outcome, plan) => record(200, outcome, plan),
      describe: describeUndelete,
    }),
  ]
}
