import { test } from 'node:test'
import assert from 'node:assert/strict'
import { bearer, caller } from '../helpers/app.js'
import { assertValidOpenApi, responseChecker, schemaChecker } from '../helpers/openapi.js'
import { metadataApp } from '../fixtures/metadata.js'
import { VALUE_PATTERNS } from '../../lib/model/values.js'

const { app } = await metadataApp()
const callers = {
  admin: caller(app, await bearer(app, 'admin@example.com')),
  manager: caller(app, await bearer(app, 'manager@example.com')),
  clerk: caller(app, await bearer(app, 'clerk@example.com')),
}
const documents = Object.fromEntries(await Promise.all(Object.entries(callers).map(async ([name, call]) => {
  const response = await call('GET', '/api/openapi.json')
  assert.equal(response.status, 200)
  return [name, response.body]
}))) as Record<keyof typeof callers, any>

test('the documents of an admin, a capability role and an .own role are valid OpenAPI 3.1', async () => {
  for (const document of Object.values(documents)) {
    assert.equal(document.openapi, '3.1.1')
    await assertValidOpenApi(document)
  }
})

test('only the resources, fields and operations the caller\'s roles allow', () => {
  const methods = (document: any, path: string) => Object.keys(document.paths[path] ?? {}).filter((k) => k !== 'parameters').sort()
  // Each resource's operations together, in the order of the route table; :series only where
  // there is a timestamp or date field to count over.
  assert.deepEqual(Object.keys(documents.admin.paths), [
    '/api/v1/orders', '/api/v1/orders:search', '/api/v1/orders:seek', '/api/v1/orders/{key}', '/api/v1/orders/{key}:undelete',
    '/api/v1/orders:facets', '/api/v1/orders:series', '/api/v1/orders:histogram', '/api/v1/orders:export',
    '/api/v1/secrets', '/api/v1/secrets:search', '/api/v1/secrets:seek', '/api/v1/secrets/{key}',
    '/api/v1/secrets:facets', '/api/v1/secrets:histogram', '/api/v1/secrets:export',
    '/api/v1/tags', '/api/v1/tags:search', '/api/v1/tags:seek', '/api/v1/tags/{key}',
    '/api/v1/tags:facets', '/api/v1/tags:histogram', '/api/v1/tags:export',
    '/api/v1:batchWrite',
    '/api/meta', '/api/openapi.json',
  ])
  assert.deepEqual(methods(documents.clerk, '/api/v1/orders/{key}'), ['get', 'patch'])
  assert.deepEqual(methods(documents.clerk, '/api/v1/orders'), ['get', 'post'])
  assert.equal(documents.clerk.paths['/api/v1/orders/{key}:undelete'], undefined)
  assert.deepEqual(methods(documents.clerk, '/api/v1/tags'), ['get'])
  assert.deepEqual(methods(documents.clerk, '/api/v1/tags/{key}'), ['get'])
  assert.deepEqual(methods(documents.manager, '/api/v1/orders/{key}'), ['delete', 'get', 'patch'])
  for (const name of ['clerk', 'manager'] as const) {
    const text = JSON.stringify(documents[name])
    assert.equal(text.includes('secrets'), false, name)
    assert.equal(documents[name].tags.map((t: { name: string }) => t.name).join(), 'orders,tags')
  }
  assert.equal(JSON.stringify(documents.clerk).includes('cost'), false)
  // The manager reads cost but may not write it: in records (read-only), not in bodies.
  const schemas = documents.manager.components.schemas
  // A body's decimal is at most 100 characters; a record carries it as the column writes it, in full.
  assert.deepEqual(schemas.orders.properties.cost, { anyOf: [{ type: 'string', pattern: VALUE_PATTERNS.decimal, readOnly: true }, { type: 'null' }] })
  assert.equal(schemas['orders.create'].properties.cost, undefined)
  assert.equal(schemas['orders.update'].properties.cost, undefined)
  // The clerk's batch operations name only what it may do: no delete at all, tags never written.
  const ops = documents.clerk.paths['/api/v1:batchWrite'].post.requestBody.content['application/json'].schema.properties.ops.items.oneOf
  assert.deepEqual(ops.map((o: any) => [o.properties.op.const, o.properties.resource.enum]), [['create', ['orders']], ['update', ['orders']], ['reorder', ['orders']]])
})

test('records and bodies: writable fields in bodies, required ones required; int8 and decimal as strings; timestamps as date-time', () => {
  const schemas = documents.admin.components.schemas
  assert.deepEqual(schemas.orders.properties.id, { type: 'string', pattern: VALUE_PATTERNS.integer, maxLength: 20, readOnly: true })
  assert.deepEqual(schemas.orders.properties.placed_at, { anyOf: [{ type: 'string', format: 'date-time' }, { type: 'null' }] })
  assert.deepEqual(schemas.orders.properties.etag, { type: 'string', readOnly: true, description: 'The record\'s ETag, the same as the ETag header: send it as If-Match.' })
  assert.deepEqual(Object.keys(schemas.orders.properties.permissions.properties), ['update', 'delete', 'fields'])
  assert.deepEqual(schemas.orders.required, ['etag'])
  const create = schemas['orders.create']
  assert.deepEqual(Object.keys(create.properties), ['title', 'status', 'total', 'cost', 'placed_at', 'owner_id'])
  assert.deepEqual(create.required, ['title'])
  assert.equal(create.additionalProperties, false)
  assert.equal(schemas['orders.update'].required, undefined)
  // The body schema is the one that validates bodies: int8 and decimal also as JSON numbers.
  assert.deepEqual(create.properties.total.anyOf[0].anyOf.map((s: { type: string }) => s.type), ['string', 'number'])
  assert.deepEqual(create.properties.title, { type: 'string', maxLength: 200 })
})

test('errors are problem+json, the bearer scheme guards everything, AIP parameters and headers are described', () => {
  const document = documents.admin
  assert.deepEqual(document.security, [{ bearer: [] }])
  const { description, ...bearer } = document.components.securitySchemes.bearer
  assert.deepEqual(bearer, { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' })
  assert.match(description, /RFC8725 .*EdDSA \(Ed25519\) only.*the token lives 15 minutes.*iss and aud/)
  assert.deepEqual(Object.keys(document.components.schemas.Problem.properties).slice(0, 5), ['type', 'title', 'status', 'detail', 'instance'])
  for (const [path, item] of Object.entries<any>(document.paths)) {
    for (const [method, op] of Object.entries<any>(item)) {
      if (method === 'parameters') continue
      for (const [status, response] of Object.entries<any>(op.responses)) {
        if (Number(status) < 400) continue
        const target = document.components.responses[response.$ref.split('/').at(-1)]
        assert.deepEqual(Object.keys(target.content), ['application/problem+json'], `${method} ${path} ${status}`)
      }
      assert.ok(op.responses['401'], `${method} ${path}`)
    }
  }
  const list = document.paths['/api/v1/orders'].get
  assert.deepEqual(list.parameters.map((p: { $ref: string }) => document.components.parameters[p.$ref.split('/').at(-1)!].name), ['filter', 'order_by', 'page_size', 'page_token', 'fields', 'count', 'show_deleted'])
  const patch = document.paths['/api/v1/orders/{key}'].patch
  assert.deepEqual(patch.parameters.map((p: { $ref: string }) => document.components.parameters[p.$ref.split('/').at(-1)!]).map((p: any) => [p.name, p.in, p.required ?? false]), [['fields', 'query', false], ['If-Match', 'header', true], ['Prefer', 'header', false]])
  assert.equal(document.paths['/api/v1/tags'].get.parameters.length, 6, 'no show_deleted on a hard-delete resource')
  // The challenge as sent: bare without a token, with RFC 6750's error for a bad one.
  assert.deepEqual(document.components.responses.Unauthenticated.headers['WWW-Authenticate'].schema, { type: 'string', enum: ['Bearer', 'Bearer error="invalid_token"'] })
  // Every status the server answers with is described: 304 on a conditional get, 400 for a
  // malformed key on delete and undelete, 413 and 415 wherever a body is taken.
  const record = document.paths['/api/v1/orders/{key}']
  assert.ok(record.get.responses['304'])
  assert.ok(record.get.parameters.some((p: { $ref: string }) => document.components.parameters[p.$ref.split('/').at(-1)!].name === 'If-None-Match'))
  for (const op of [record.delete, document.paths['/api/v1/orders/{key}:undelete'].post]) assert.ok(op.responses['400'])
  for (const op of [document.paths['/api/v1/orders'].post, record.patch, record.delete, document.paths['/api/v1/orders:search'].post, document.paths['/api/v1:batchWrite'].post]) {
    assert.ok(op.responses['413'] && op.responses['415'], op.operationId)
  }
})

test('every operation lists the statuses any route answers (408, 431, 500, 503), 414 where a key is in the path, 429 on exports', () => {
  for (const document of Object.values(documents)) {
    for (const [path, item] of Object.entries<any>(document.paths)) {
      for (const [method, op] of Object.entries<any>(item)) {
        if (method === 'parameters') continue
        const statuses = Object.keys(op.responses)
        for (const status of ['400', '401', '408', '431', '500', '503']) assert.ok(statuses.includes(status), `${method} ${path} ${status}`)
        assert.equal(statuses.includes('414'), path.includes('{key}'), `${method} ${path} 414`)
        assert.equal(statuses.includes('429'), path.endsWith(':export'), `${method} ${path} 429`)
      }
    }
  }
})

test('create declares its 201 without a JSON body (empty under Prefer: return=minimal); update 204 and delete 200 likewise follow Prefer', () => {
  const { paths } = documents.admin
  const created = paths['/api/v1/orders'].post.responses['201']
  assert.equal(created.content, undefined)
  assert.match(created.description, /Prefer: return=minimal there is no body/)
  assert.deepEqual(Object.keys(created.headers), ['Access-Control-Allow-Origin', 'ETag', 'Location'])
  const record = paths['/api/v1/orders/{key}']
  assert.equal(record.patch.responses['204'].content, undefined)
  assert.ok(record.patch.responses['200'].content['application/json'])
  assert.equal(record.delete.responses['204'].content, undefined)
  assert.ok(record.delete.responses['200'].content['application/json'])
})

test('no component for an operation the caller cannot perform: body schemas, parameters and responses are the ones its paths use', () => {
  const names = (document: any, kind: string) => Object.keys(document.components[kind]).sort()
  // The clerk reads tags but may not write them, and never deletes orders.
  assert.deepEqual(names(documents.clerk, 'schemas'), ['Problem', 'orders', 'orders.create', 'orders.list', 'orders.update', 'tags', 'tags.list'])
  assert.equal(documents.clerk.components.parameters.preferDelete, undefined)
  assert.deepEqual(names(documents.admin, 'schemas'), ['Problem', 'orders', 'orders.create', 'orders.list', 'orders.update', 'secrets', 'secrets.create', 'secrets.list', 'secrets.update', 'tags', 'tags.create', 'tags.list', 'tags.update'])
  for (const document of Object.values(documents)) {
    const text = JSON.stringify(document.paths)
    for (const kind of ['schemas', 'parameters', 'responses']) {
      for (const name of Object.keys(document.components[kind])) {
        const used = text.includes(`"#/components/${kind}/${name}"`) || JSON.stringify(document.components).includes(`"#/components/${kind}/${name}"`)
        assert.ok(used, `${kind}/${name} is used`)
      }
    }
  }
})

test('records returned by list, get, create and update validate against each caller\'s schemas', async () => {
  for (const [name, call] of Object.entries(callers)) {
    const check = schemaChecker(documents[name as keyof typeof callers])
    const created = await call('POST', '/api/v1/orders', { payload: { title: `By ${name}`, total: '12.50', placed_at: '2026-01-02T03:04:05Z', ...(name === 'admin' ? { cost: 3 } : {}) } })
    assert.equal(created.status, 201, JSON.stringify(created.body))
    check('orders', created.body)
    const got = await call('GET', `/api/v1/orders/${created.body.id}`)
    check('orders', got.body)
    const updated = await call('PATCH', `/api/v1/orders/${created.body.id}`, { payload: { status: 'open' }, headers: { 'if-match': created.body.etag } })
    assert.equal(updated.status, 200)
    check('orders', updated.body)
    const list = await call('GET', '/api/v1/orders?count=exact')
    assert.ok(list.body.items.length > 0)
    check('orders.list', list.body)
    check('orders.create', { title: 'x', total: 1.5, placed_at: '2026-01-02T03:04:05Z' })
  }
})

test('answers of :seek, :facets, :series and :histogram validate against the caller\'s document; fields they refuse are not offered', async () => {
  for (const [name, call] of Object.entries(callers)) {
    const document = documents[name as keyof typeof callers]
    const check = responseChecker(document)
    const answers: Array<[string, string]> = [
      ['/api/v1/orders:seek', '?position=0&page_size=2'],
      ['/api/v1/orders:facets', '?field=status'],
      ['/api/v1/orders:series', '?field=placed_at&range=all'],
      ['/api/v1/orders:histogram', '?field=total&buckets=3'],
    ]
    for (const [path, query] of answers) {
      const answer = await call('GET', path + query)
      assert.equal(answer.status, 200, `${name} ${path}: ${JSON.stringify(answer.body)}`)
      check(path, 'get', answer.body)
    }
    const offered = document.paths['/api/v1/orders:histogram'].get.parameters[0].schema.enum
    assert.equal(offered.includes('cost'), name !== 'clerk', name)
  }
})

test('the document is cached per caller shape and answers If-None-Match with 304', async () => {
  const first = await callers.clerk('GET', '/api/openapi.json')
  const again = await callers.clerk('GET', '/api/openapi.json', { headers: { 'if-none-match': String(first.headers.etag) } })
  assert.equal(again.status, 304)
  assert.equal(documents.clerk.info.version, first.headers['x-meta-version'])
  assert.notEqual((await callers.manager('GET', '/api/openapi.json')).headers.etag, first.headers.etag)
})
