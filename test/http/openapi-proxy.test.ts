// Real traffic through a third-party validating proxy (Stoplight Prism, test/helpers/prism.ts) for
// two callers, each against its own document: an admin, and a clerk who may not write tags nor
// read cost. Every operation of each document answers at least once, and so do the error statuses
// a caller can provoke; any mismatch Prism finds in a response fails, and so does one in a request
// the test means to be valid (the 401 without a token, the 428 without If-Match and the 415 send
// what the document forbids, on purpose).
import { test, type TestContext } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { bearer, caller } from '../helpers/app.js'
import { metadataApp } from '../fixtures/metadata.js'
import { startPrismProxy, violationsOf } from '../helpers/prism.js'

const { app } = await metadataApp()
const upstream = await app.listen({ port: 0, host: '127.0.0.1' })
const seed = caller(app, await bearer(app, 'admin@example.com'))
const TAG = (await seed('POST', '/api/v1/tags', { payload: { label: 'seeded' } })).body.id as number
const SECRET = (await seed('POST', '/api/v1/secrets', { payload: { note: 'seeded' } })).body.id as number
const SEEDED: Record<string, number> = { tags: TAG, secrets: SECRET }
const BODIES: Record<string, Record<string, unknown>> = { orders: { title: 'Through the proxy', total: '9.90', placed_at: '2026-01-02T03:04:05Z' }, tags: { label: 'proxied' }, secrets: { note: 'proxied' } }
const CHANGES: Record<string, Record<string, unknown>> = { orders: { status: 'open' }, tags: { label: 'changed' }, secrets: { note: 'changed' } }

interface Step {
  /** The operation as `method path` of the document. */
  readonly op: string
  readonly url: string
  readonly status: number
  readonly method?: string
  readonly body?: unknown
  readonly headers?: Record<string, string>
  /** The request breaks the document on purpose (to provoke the status). */
  readonly invalid?: true
}

async function run (t: TestContext, who: string): Promise<void> {
  const auth = await bearer(app, `${who}@example.com`)
  const document = (await caller(app, auth)('GET', '/api/openapi.json')).body
  const dir = mkdtempSync(join(tmpdir(), 'tablegate-prism-'))
  t.after(() => { rmSync(dir, { recursive: true, force: true }) })
  writeFileSync(join(dir, 'openapi.json'), JSON.stringify(document))
  const proxy = await startPrismProxy(t, join(dir, 'openapi.json'), upstream)
  const has = (op: string): boolean => {
    const [method, path] = op.split(' ')
    return document.paths[path!]?.[method!.toLowerCase()] !== undefined
  }
  const exercised = new Set<string>()
  // Every mismatch of the run, so a failure lists them all, not only the first.
  const mismatches: string[] = []
  const send = async (step: Step): Promise<{ body: any, headers: Headers }> => {
    const method = step.method ?? step.op.split(' ')[0]!
    const json = step.body !== undefined && typeof step.body !== 'string'
    const response = await fetch(proxy + step.url, {
      method,
      headers: { ...auth, ...(json ? { 'content-type': 'application/json' } : {}), ...step.headers },
      ...(step.body === undefined ? {} : { body: json ? JSON.stringify(step.body) : step.body as string }),
    })
    const text = await response.text()
    const where = `${who}: ${method} ${step.url.slice(0, 80)}`
    if (response.status !== step.status) mismatches.push(`${where}: ${response.status}, not ${step.status}: ${text.slice(0, 200)}`)
    for (const v of violationsOf(response)) {
      if (v.location[0] === 'response' || step.invalid !== true) mismatches.push(`${where}: ${v.location.join('.')}: ${v.message}`)
    }
    if (step.status < 400) exercised.add(step.op)
    return { body: text === '' || !/^application\/(problem\+)?json/.test(response.headers.get('content-type') ?? '') ? text : JSON.parse(text), headers: response.headers }
  }

  const base = '/api/v1'
  const resources = Object.keys(document.paths).map((p) => /^\/api\/v1\/(\w+)$/.exec(p)?.[1]).filter((r): r is string => r !== undefined)
  for (const name of resources) {
    const collection = `${base}/${name}`
    const item = `${collection}/{key}`
    let key = SEEDED[name]!
    if (has(`POST ${collection}`)) {
      key = (await send({ op: `POST ${collection}`, url: collection, body: BODIES[name], status: 201 })).body.id
      await send({ op: `POST ${collection}`, url: collection, body: BODIES[name], headers: { prefer: 'return=minimal' }, status: 201 })
    }
    await send({ op: `GET ${collection}`, url: `${collection}?count=exact&order_by=id%20desc&page_size=2`, status: 200 })
    await send({ op: `POST ${collection}:search`, url: `${collection}:search`, body: { filter: `id = ${key}`, fields: ['id'] }, status: 200 })
    await send({ op: `GET ${collection}:seek`, url: `${collection}:seek?position=0&page_size=1`, status: 200 })
    const got = await send({ op: `GET ${item}`, url: `${collection}/${key}`, status: 200 })
    await send({ op: `GET ${item}`, url: `${collection}/${key}`, headers: { 'if-none-match': got.headers.get('etag')! }, status: 304 })
    if (has(`PATCH ${item}`)) {
      await send({ op: `PATCH ${item}`, url: `${collection}/${key}`, body: CHANGES[name], headers: { 'if-match': got.headers.get('etag')! }, status: 200 })
      await send({ op: `PATCH ${item}`, url: `${collection}/${key}`, body: CHANGES[name], headers: { 'if-match': '*', prefer: 'return=minimal' }, status: 204 })
    }
    for (const [aggregate, query] of [['facets', 'field=id'], ['histogram', 'field=id&buckets=2'], ['series', 'field=placed_at&range=all&time_zone=Europe/Paris']]) {
      if (has(`GET ${collection}:${aggregate}`)) await send({ op: `GET ${collection}:${aggregate}`, url: `${collection}:${aggregate}?${query}`, status: 200 })
    }
    await send({ op: `GET ${collection}:export`, url: `${collection}:export`, status: 200 })
    await send({ op: `GET ${collection}:export`, url: `${collection}:export?format=csv&order_by=id`, status: 200 })
    if (has(`DELETE ${item}`)) {
      await send({ op: `DELETE ${item}`, url: `${collection}/${key}`, headers: { prefer: 'return=representation' }, status: 200 })
      if (has(`POST ${item}:undelete`)) {
        await send({ op: `POST ${item}:undelete`, url: `${collection}/${key}:undelete`, status: 200 })
        await send({ op: `POST ${item}:undelete`, url: `${collection}/${key}:undelete`, status: 409 })
        await send({ op: `DELETE ${item}`, url: `${collection}/${key}`, headers: { 'if-match': '*' }, status: 204 })
      }
    }
  }
  await send({ op: `POST ${base}:batchWrite`, url: `${base}:batchWrite`, body: { ops: [{ op: 'create', resource: 'orders', data: BODIES.orders, ref: 'a' }, { op: 'update', resource: 'orders', key: { $ref: 'a' }, etag: '*', data: CHANGES.orders }] }, status: 200 })
  const meta = await send({ op: 'GET /api/meta', url: '/api/meta', status: 200 })
  await send({ op: 'GET /api/meta', url: '/api/meta', headers: { 'if-none-match': meta.headers.get('etag')! }, status: 304 })
  await send({ op: 'GET /api/openapi.json', url: '/api/openapi.json', status: 200 })

  // The error statuses, on the orders both callers share.
  const orders = `${base}/orders`
  const order = (await send({ op: `POST ${orders}`, url: orders, body: { title: 'errors' }, status: 201 })).body
  const one = `${orders}/${order.id}`
  await send({ op: `GET ${orders}`, url: `${orders}?order_by=nope`, status: 400 })
  await send({ op: `GET ${orders}`, url: `${orders}?filter=${encodeURIComponent('total = abc')}`, status: 400 })
  await send({ op: `GET ${orders}`, url: orders, headers: { authorization: '' }, status: 401, invalid: true })
  await send({ op: `GET ${orders}`, url: orders, headers: { authorization: 'Bearer not.a.token' }, status: 401 })
  await send({ op: `GET ${orders}/{key}`, url: `${orders}/999999`, status: 404 })
  await send({ op: `PATCH ${orders}/{key}`, url: one, body: { status: 'open' }, headers: { 'if-match': '"stale"' }, status: 412 })
  await send({ op: `PATCH ${orders}/{key}`, url: one, body: { status: 'open' }, status: 428, invalid: true })
  await send({ op: `POST ${orders}`, url: orders, body: 'title=x', headers: { 'content-type': 'text/plain' }, status: 415, invalid: true })
  await send({ op: `POST ${orders}:search`, url: `${orders}:search`, body: { filter: 'x'.repeat(1_100_000) }, status: 413, invalid: true })
  await send({ op: `GET ${orders}/{key}`, url: `${orders}/${'9'.repeat(5000)}`, status: 414, invalid: true })
  await send({ op: `GET ${orders}`, url: orders, headers: { 'x-padding': 'x'.repeat(140 * 1024) }, status: 431 })
  if (who === 'admin') {
    // The delete rule refuses a locked order.
    await send({ op: `PATCH ${orders}/{key}`, url: one, body: { status: 'locked' }, headers: { 'if-match': '*' }, status: 200 })
    await send({ op: `DELETE ${orders}/{key}`, url: one, status: 403 })
  } else {
    // An .own create names its caller as the owner.
    await send({ op: `POST ${orders}`, url: orders, body: { title: 'not mine', owner_id: 'someone-else' }, status: 403 })
  }

  const operations = Object.entries<Record<string, unknown>>(document.paths).flatMap(([path, item]) => Object.keys(item).filter((m) => m !== 'parameters').map((m) => `${m.toUpperCase()} ${path}`))
  for (const op of operations.filter((o) => !exercised.has(o))) mismatches.push(`${who}: ${op} never answered`)
  assert.deepEqual(mismatches, [])
}

test('an admin\'s traffic matches the admin\'s document, every operation and error status, as Prism checks it', async (t) => {
  await run(t, 'admin')
})

test('a clerk\'s traffic (no tag writes, cost hidden) matches the clerk\'s document, as Prism checks it', async (t) => {
  await run(t, 'clerk')
})
