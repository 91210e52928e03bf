// The route API for plugin authors, proven on the example plugin (examples/stats-plugin): its route
// is gated (401, 404, 403, tenant), its parameters are checked against the caller's own fields (a
// hidden field is refused exactly as an unknown one), its errors are problem+json, its operation
// is in the OpenAPI document only of callers who may call it, and it is timed and counted.
import { test } from 'node:test'
import { readFileSync } from 'node:fs'
import assert from 'node:assert/strict'
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { bearer, caller, createUser } from '../helpers/app.js'
import { runSql } from '../helpers/db.js'
import { responseChecker } from '../helpers/openapi.js'
import { metadataApp, METADATA_CONFIG } from '../fixtures/metadata.js'
import stats from '../../examples/stats-plugin/index.js'
import { RouteRegistrationError } from '../../lib/index.js'

let lateAdd: (() => void) | undefined
const late = fp(async (app: FastifyInstance) => {
  lateAdd = () => { app.tablegate.addResourceRoute({ id: 'late', method: 'GET', customMethod: 'late', operation: 'read', summary: 'Late', response: {}, handle: async () => ({}) }) }
}, { name: 'late-route', fastify: '5.x', dependencies: ['tablegate'] })

// A POST route reads its JSON body; its query parameters are checked as a GET's are.
const tally = fp(async (app: FastifyInstance) => {
  app.tablegate.addResourceRoute({
    id: 'tally',
    method: 'POST',
    customMethod: 'tally',
    operation: 'read',
    summary: 'Echo a body',
    response: { type: 'object' },
    handle: async ({ body, model }) => ({ resource: model.name, body }),
  })
}, { name: 'tally-route', fastify: '5.x', dependencies: ['tablegate'] })

const { app, databaseUrl } = await metadataApp({
  // A writer may create orders but not read them: orders exist for it, :stats is refused.
  roles: { ...METADATA_CONFIG.roles, writer: ['orders.create'] },
  serverTiming: true,
  plugins: [stats, late, tally],
})
await createUser(app, 'writer@example.com', 'writer')
await runSql(databaseUrl, `
  INSERT INTO orders (title, total, cost, owner_id, deleted_at) VALUES
    ('a', 10, 1, 'clerk', NULL), ('b', 30, 2, 'clerk', NULL), ('c', 1000, 3, 'someone', NULL), ('d', 5000, 4, 'clerk', now());
`)
const clerkId = (await app.tablegate.users!.findByEmail('clerk@example.com'))!.id
await runSql(databaseUrl, `UPDATE orders SET owner_id = '${clerkId}' WHERE owner_id = 'clerk'`)
const admin = caller(app, await bearer(app, 'admin@example.com'))
const manager = caller(app, await bearer(app, 'manager@example.com'))
const clerk = caller(app, await bearer(app, 'clerk@example.com'))
const writer = caller(app, await bearer(app, 'writer@example.com'))
const anonymous = caller(app, {})

function assertProblem (response: { status: number, headers: Record<string, unknown>, body: any }, status: number, slug: string): void {
  assert.equal(response.status, status, JSON.stringify(response.body))
  assert.match(String(response.headers['content-type']), /^application\/problem\+json/)
  assert.equal(response.body.type, `urn:service:problem:${slug}`)
  assert.equal(response.body.status, status)
}

test('the plugin\'s route answers over the caller\'s rows only: their own, live, and what their filter keeps', async () => {
  const all = await manager('GET', '/api/v1/orders:stats?field=total')
  assert.equal(all.status, 200)
  assert.deepEqual(all.body, { field: 'total', count: 3, min: '10.00', max: '1000.00', mean: '346.6666666666666667' })
  // The clerk reads only its own orders (rows rule .own); the deleted one is not counted.
  assert.deepEqual((await clerk('GET', '/api/v1/orders:stats?field=total')).body, { field: 'total', count: 2, min: '10.00', max: '30.00', mean: '20.0000000000000000' })
  assert.deepEqual((await clerk('GET', '/api/v1/orders:stats?field=total&filter=total > 20')).body, { field: 'total', count: 1, min: '30.00', max: '30.00', mean: '30.0000000000000000' })
  assert.equal((await manager('GET', '/api/v1/orders:stats?field=total&show_deleted=true')).body.count, 4)
})

test('the gate: 401 without a token, 404 where the resource does not exist for the caller, 403 without the operation', async () => {
  const none = await anonymous('GET', '/api/v1/orders:stats?field=total')
  assertProblem(none, 401, 'unauthenticated')
  assert.equal(none.headers['www-authenticate'], 'Bearer')
  // secrets exist for the admin alone: to the clerk the route is as unknown as a made-up one.
  const hidden = await clerk('GET', '/api/v1/secrets:stats?field=id')
  const unknown = await clerk('GET', '/api/v1/nothing:stats?field=id')
  assertProblem(hidden, 404, 'not-found')
  assert.deepEqual(hidden.body, { ...unknown.body, instance: hidden.body.instance })
  assert.equal((await admin('GET', '/api/v1/secrets:stats?field=id')).status, 200)
  const denied = await writer('GET', '/api/v1/orders:stats?field=total')
  assertProblem(denied, 403, 'access-denied')
  assert.equal(denied.body.detail, 'You may not read orders records.')
})

test('parameters are checked against the caller\'s own fields: a hidden field is refused exactly as an unknown one', async () => {
  // The manager may read cost; to the clerk it does not exist, whatever it is named.
  assert.equal((await manager('GET', '/api/v1/orders:stats?field=cost')).status, 200)
  const hidden = await clerk('GET', '/api/v1/orders:stats?field=cost')
  const unknown = await clerk('GET', '/api/v1/orders:stats?field=cots')
  assertProblem(hidden, 400, 'invalid-parameter')
  assertProblem(unknown, 400, 'invalid-parameter')
  const shape = (body: any) => ({ ...body, instance: undefined, detail: body.detail.replace(/'(cost|cots)'/, "'…'"), errors: body.errors.map((e: any) => ({ ...e, message: e.message.replace(/'(cost|cots)'/, "'…'") })) })
  assert.deepEqual(shape(hidden.body), shape(unknown.body))
  assert.doesNotMatch(JSON.stringify(hidden.body), /did you mean 'cost'/)
  // A filter on the hidden field reads the same as one on a missing field.
  const filtered = await clerk('GET', '/api/v1/orders:stats?field=total&filter=cost > 1')
  assertProblem(filtered, 400, 'invalid-filter')
  // Required, typed, and nothing else taken.
  assert.deepEqual((await clerk('GET', '/api/v1/orders:stats')).body.errors, [{ parameter: 'field', message: 'field is required: The numeric field.' }])
  assertProblem(await clerk('GET', '/api/v1/orders:stats?field=title'), 400, 'invalid-parameter')
  const extra = await clerk('GET', '/api/v1/orders:stats?field=total&fields=id')
  assertProblem(extra, 400, 'invalid-parameter')
  assert.match(extra.body.detail, /^Unknown parameter 'fields'.*Known: field, filter, show_deleted\.$/)
})

test('the operation is in the OpenAPI document of each caller who may call it, with the caller\'s own fields', async () => {
  const documents = {
    admin: (await admin('GET', '/api/openapi.json')).body,
    manager: (await manager('GET', '/api/openapi.json')).body,
    clerk: (await clerk('GET', '/api/openapi.json')).body,
    writer: (await writer('GET', '/api/openapi.json')).body,
  }
  const operation = (document: any, path: string) => document.paths[path]?.get
  assert.equal(operation(documents.admin, '/api/v1/secrets:stats').operationId, 'stats_secrets')
  assert.equal(operation(documents.clerk, '/api/v1/secrets:stats'), undefined)
  assert.equal(operation(documents.writer, '/api/v1/orders:stats'), undefined)
  const fieldsOf = (document: any) => operation(document, '/api/v1/orders:stats').parameters.find((p: any) => p.name === 'field').schema.enum
  assert.deepEqual(fieldsOf(documents.manager), ['id', 'total', 'cost', 'version'])
  assert.deepEqual(fieldsOf(documents.clerk), ['id', 'total', 'version'])
  const answer = await clerk('GET', '/api/v1/orders:stats?field=total')
  responseChecker(documents.clerk)('/api/v1/orders:stats', 'get', answer.body)
})

test('the route is timed (Server-Timing) and counted (metrics) like the built-in ones', async () => {
  const answered = await clerk('GET', '/api/v1/orders:stats?field=total')
  const times = Object.fromEntries(String(answered.headers['server-timing']).split(', ').map((s) => { const [name, dur] = s.split(';dur='); return [name, Number(dur)] }))
  assert.deepEqual(Object.keys(times), ['auth', 'access', 'plan', 'db', 'serialize'])
  assert.ok(times.db! > 0, JSON.stringify(times))
  const metrics = await app.inject({ method: 'GET', url: '/api/metrics', headers: await bearer(app, 'admin@example.com') })
  assert.match(metrics.body, /^tablegate_http_request_duration_seconds_count\{route="\/api\/v1\/orders::stats",method="GET",status="200"\} [1-9]/m)
})

test('a route is added only while plugins register, and a malformed one is refused with a code', () => {
  assert.throws(() => lateAdd!(), (err: unknown) => err instanceof RouteRegistrationError && err.code === 'TG_ERR_ROUTE_AFTER_READY')
  assert.throws(() => { app.tablegate.addResourceRoute({ id: 'x', method: 'GET', customMethod: 'x', operation: 'read', summary: 'X', response: {}, handle: 'no' as never }) },
    (err: unknown) => err instanceof RouteRegistrationError && err.code === 'TG_ERR_ROUTE_INVALID' && /handle must be a function/.test(err.message))
})

test('docs/plugins.md shows the example plugin this test runs, as it is', () => {
  const root = new URL('../../../', import.meta.url)
  const source = readFileSync(new URL('examples/stats-plugin/index.ts', root), 'utf8')
  assert.ok(readFileSync(new URL('docs/plugins.md', root), 'utf8').includes('```ts\n' + source + '```\n'))
})

test('a POST route gets the JSON body, after the same gate', async () => {
  const echoed = await clerk('POST', '/api/v1/orders:tally', { payload: { ids: [1, 2] } })
  assert.equal(echoed.status, 200)
  assert.deepEqual(echoed.body, { resource: 'orders', body: { ids: [1, 2] } })
  assertProblem(await writer('POST', '/api/v1/orders:tally', { payload: {} }), 403, 'access-denied')
  assertProblem(await clerk('POST', '/api/v1/orders:tally?x=1', { payload: {} }), 400, 'invalid-parameter')
})
