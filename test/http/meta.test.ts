import { test } from 'node:test'
import assert from 'node:assert/strict'
import { freshDatabase, runSql } from '../helpers/db.js'
import { buildApp, createUser, bearer, caller, sessionCookie, signIn, usersOf } from '../helpers/app.js'
import { METADATA_CONFIG, METADATA_SCHEMA, metadataApp } from '../fixtures/metadata.js'
import type { Config } from '../../lib/config/schema.js'

const { databaseUrl, app } = await metadataApp()
await createUser(app, 'clerk2@example.com', 'clerk')
const admin = caller(app, await bearer(app, 'admin@example.com'))
const manager = caller(app, await bearer(app, 'manager@example.com'))
const clerk = caller(app, await bearer(app, 'clerk@example.com'))

test('every system endpoint is a 401 problem with WWW-Authenticate: Bearer without a token', async () => {
  for (const url of ['/api/meta', '/api/openapi.json', '/api/docs', '/api/docs/', '/api/docs/js/scalar.js', '/api/docs/openapi.json']) {
    const response = await app.inject({ method: 'GET', url })
    assert.equal(response.statusCode, 401, url)
    assert.equal(response.headers['www-authenticate'], 'Bearer', url)
    assert.match(String(response.headers['content-type']), /^application\/problem\+json/, url)
    assert.equal(JSON.parse(response.body).type, 'urn:service:problem:unauthenticated', url)
    assert.ok(response.headers['x-meta-version'], url)
  }
  const forged = await app.inject({ method: 'GET', url: '/api/meta', headers: { authorization: 'Bearer not.a.token' } })
  assert.equal(forged.statusCode, 401)
})

test('the docs answer every credential directly, no redirect: page at /api/docs and /api/docs/, bundle, document; a 401 without one', async () => {
  const cookie = sessionCookie(await signIn(app, 'clerk@example.com'))
  const credentials = { bearer: await bearer(app, 'clerk@example.com'), cookie: { cookie } }
  for (const [name, headers] of Object.entries(credentials)) {
    const answers = Object.fromEntries(await Promise.all(['/api/docs', '/api/docs/', '/api/docs/js/scalar.js', '/api/docs/openapi.json'].map(async (url) => {
      const response = await app.inject({ method: 'GET', url, headers })
      assert.equal(response.statusCode, 200, `${name} ${url}: ${response.headers.location ?? ''}`)
      assert.equal(response.headers.location, undefined)
      return [url, response] as const
    })))
    assert.match(String(answers['/api/docs']!.headers['content-type']), /^text\/html/)
    assert.equal(answers['/api/docs']!.body, answers['/api/docs/']!.body)
    assert.match(String(answers['/api/docs/js/scalar.js']!.headers['content-type']), /^application\/javascript/)
    assert.equal(JSON.parse(answers['/api/docs/openapi.json']!.body).openapi, '3.1.1')
  }
  // Any other path under /api/docs is an unknown route as anywhere: 404 to a bearer token, else 401.
  assert.equal((await app.inject({ method: 'GET', url: '/api/docs/openapi.yaml', headers: credentials.bearer })).statusCode, 404)
  for (const headers of [credentials.cookie, {}]) assert.equal((await app.inject({ method: 'GET', url: '/api/docs/openapi.yaml', headers })).statusCode, 401)
  const stale = await app.inject({ method: 'GET', url: '/api/docs', headers: { cookie: 'better-auth.session_token=forged' } })
  assert.equal(stale.statusCode, 401)
})

test('a clerk gets its restricted model: hidden fields absent, readOnly unless writable, defaults', async () => {
  const { status, body } = await clerk('GET', '/api/meta')
  assert.equal(status, 200)
  assert.deepEqual(Object.keys(body), ['resources', 'views', 'permissions', 'userMenu', 'pages'])
  assert.deepEqual(Object.keys(body.resources), ['orders', 'tags'])
  const orders = body.resources.orders
  assert.deepEqual(orders.key, ['id'])
  assert.equal(orders.softDelete, true)
  assert.equal(orders.softDeleteField, 'deleted_at')
  assert.equal('softDeleteField' in body.resources.tags, false)
  assert.equal(orders.version, true)
  assert.deepEqual(Object.keys(orders.fields), ['id', 'title', 'status', 'total', 'placed_at', 'owner_id', 'version', 'deleted_at'])
  // NOT NULL columns are not nullable, whatever the config's default (id, status); total is.
  assert.deepEqual(orders.fields.id, { type: 'bigint', readOnly: true, required: false, nullable: false, filterable: true, sortable: true, searchable: false, default: { db: true } })
  assert.deepEqual(orders.fields.title, { type: 'string', readOnly: false, required: true, nullable: false, filterable: true, sortable: true, searchable: true, maxLength: 200 })
  assert.deepEqual(orders.fields.status, { type: 'string', readOnly: false, required: false, nullable: false, filterable: true, sortable: true, searchable: false, enum: ['draft', 'open', 'locked'], default: { value: 'draft' } })
  assert.equal(orders.fields.total.nullable, true)
  assert.equal(orders.fields.deleted_at.readOnly, true)
  assert.equal(orders.fields.version.type, 'integer')
  assert.equal(orders.fields.version.readOnly, true)
  assert.equal(JSON.stringify(body).includes('cost'), false)
  assert.equal(JSON.stringify(body).includes('secrets'), false)
})

test('a manager reads cost but may not write it: readOnly', async () => {
  const { body } = await manager('GET', '/api/meta')
  assert.deepEqual(Object.keys(body.resources), ['orders', 'tags'])
  assert.equal(body.resources.orders.fields.cost.readOnly, true)
  assert.equal(body.resources.orders.fields.total.readOnly, false)
  const adminMeta = (await admin('GET', '/api/meta')).body
  assert.equal(adminMeta.resources.orders.fields.cost.readOnly, false)
  assert.deepEqual(Object.keys(adminMeta.resources), ['orders', 'secrets', 'tags'])
})

test('permissions: conditional names operations a row filter or a record rule decides', async () => {
  assert.deepEqual((await clerk('GET', '/api/meta')).body.permissions, {
    // The clerk's update is narrowed by exactly its read filter: it holds for every order it sees.
    // Export follows read: narrowed by the read filter alone, it too holds for every order the clerk sees.
    orders: { read: true, create: true, update: true, delete: false, export: true, conditional: ['read', 'create'], showDeleted: true },
    tags: { read: true, create: false, update: false, delete: false, export: true, conditional: [], showDeleted: false },
  })
  assert.deepEqual((await manager('GET', '/api/meta')).body.permissions.orders, { read: true, create: true, update: true, delete: true, export: true, conditional: ['delete'], showDeleted: true })
  assert.deepEqual((await admin('GET', '/api/meta')).body.permissions.secrets, { read: true, create: true, update: true, delete: true, export: true, conditional: [], showDeleted: false })
})

test('views: the first view meeting the roles, every reference to a hidden field removed', async () => {
  assert.deepEqual((await admin('GET', '/api/meta')).body.views, {
    orders: { columns: ['id', 'title', 'cost', 'owner_id'] },
    secrets: { columns: ['note'] },
  })
  const full = METADATA_CONFIG.views.orders[1]
  assert.deepEqual((await manager('GET', '/api/meta')).body.views, { orders: full })
  // Cost is hidden from the clerk: gone from columns, sort, filters and layout (its row with it);
  // the chart, the title and the recent-items group that use it are dropped whole.
  assert.deepEqual((await clerk('GET', '/api/meta')).body.views, {
    orders: {
      columns: ['title', 'status', 'total'],
      sort: 'placed_at desc',
      search: ['title'],
      filters: ['status'],
      layout: [['title', 'status'], ['total', 'placed_at']],
    },
  })
})

test('pages and the menu lose what the caller cannot see or do', async () => {
  const clerkMeta = (await clerk('GET', '/api/meta')).body
  assert.deepEqual(clerkMeta.pages, [{
    name: 'overview',
    title: 'Overview',
    elements: [
      { type: 'table', resource: 'orders', columns: ['title'] },
      { type: 'button', resource: 'orders', action: 'create', label: 'New order' },
      { type: 'text', text: 'Welcome' },
    ],
  }])
  assert.deepEqual(clerkMeta.userMenu, [{ resource: 'orders' }, { page: 'overview', label: 'Home' }])
  const adminMeta = (await admin('GET', '/api/meta')).body
  assert.deepEqual(adminMeta.pages.map((p: { name: string }) => p.name), ['overview', 'admin-tools'])
  assert.equal(adminMeta.pages[0].elements.length, 6)
  assert.deepEqual(adminMeta.userMenu, METADATA_CONFIG.userMenu)
  const managerMeta = (await manager('GET', '/api/meta')).body
  assert.deepEqual(managerMeta.pages[0].elements.map((e: { type: string, action?: string }) => e.action ?? e.type), ['table', 'delete', 'create', 'chart', 'text'])
})

test('without userMenu, each caller\'s menu is every resource they may read, in the config\'s order', async () => {
  const { userMenu: _menu, ...withoutMenu } = METADATA_CONFIG
  const unmenued = await buildApp({ databaseUrl, ...withoutMenu, roles: { ...METADATA_CONFIG.roles, writer: ['tags.create'] } })
  await createUser(unmenued, 'writer@example.com', 'writer')
  const menuOf = async (email: string): Promise<unknown> => (await caller(unmenued, await bearer(unmenued, email))('GET', '/api/meta')).body.userMenu
  assert.deepEqual(await menuOf('admin@example.com'), [{ resource: 'orders' }, { resource: 'secrets' }, { resource: 'tags' }])
  assert.deepEqual(await menuOf('clerk@example.com'), [{ resource: 'orders' }, { resource: 'tags' }])
  // A resource the caller may only create is in their models, not in their menu.
  const writer = (await caller(unmenued, await bearer(unmenued, 'writer@example.com'))('GET', '/api/meta')).body
  assert.deepEqual(Object.keys(writer.resources), ['tags'])
  assert.deepEqual(writer.userMenu, [])
})

test('the ETag hashes the whole response: equal for equal content, 304 on If-None-Match, differs per role', async () => {
  const first = await clerk('GET', '/api/meta')
  const other = await caller(app, await bearer(app, 'clerk2@example.com'))('GET', '/api/meta')
  assert.match(String(first.headers.etag), /^"[A-Za-z0-9_-]{43}"$/)
  assert.equal(other.headers.etag, first.headers.etag)
  assert.notEqual((await manager('GET', '/api/meta')).headers.etag, first.headers.etag)
  const cached = await clerk('GET', '/api/meta', { headers: { 'if-none-match': String(first.headers.etag) } })
  assert.equal(cached.status, 304)
  assert.equal(cached.body, undefined)
  assert.equal(cached.headers.etag, first.headers.etag)
  assert.equal(cached.headers['x-meta-version'], first.headers['x-meta-version'])
  const weak = await clerk('GET', '/api/meta', { headers: { 'if-none-match': `"x", W/${String(first.headers.etag)}` } })
  assert.equal(weak.status, 304)
  const stale = await clerk('GET', '/api/meta', { headers: { 'if-none-match': '"stale"' } })
  assert.equal(stale.status, 200)
  const unknown = await clerk('GET', '/api/meta?fresh=1')
  assert.equal(unknown.status, 400)
  assert.equal(unknown.body.type, 'urn:service:problem:invalid-parameter')
  assert.ok(unknown.headers['x-meta-version'])
})

test('X-Meta-Version changes exactly when the caller\'s roles change', async () => {
  await createUser(app, 'mover@example.com', 'clerk')
  const before = await caller(app, await bearer(app, 'mover@example.com'))('GET', '/api/meta')
  const clerkVersion = (await clerk('GET', '/api/meta')).headers['x-meta-version']
  assert.equal(before.headers['x-meta-version'], clerkVersion)
  await usersOf(app).setRole('mover@example.com', 'manager')
  const after = await caller(app, await bearer(app, 'mover@example.com'))('GET', '/api/meta')
  assert.notEqual(after.headers['x-meta-version'], before.headers['x-meta-version'])
  assert.equal(after.headers['x-meta-version'], (await manager('GET', '/api/meta')).headers['x-meta-version'])
  assert.notEqual(after.headers.etag, before.headers.etag)
  assert.equal(after.body.resources.orders.fields.cost.readOnly, true)
  // Errors carry the caller's version too.
  const missing = await manager('GET', '/api/v1/nothing')
  assert.equal(missing.status, 404)
  assert.equal(missing.headers['x-meta-version'], after.headers['x-meta-version'])
})

test('X-Meta-Version changes when the models change, for the same roles', async () => {
  const changedUrl = await freshDatabase()
  await runSql(changedUrl, METADATA_SCHEMA)
  const changed = await buildApp({
    databaseUrl: changedUrl,
    ...METADATA_CONFIG,
    resources: { ...METADATA_CONFIG.resources, tags: { fields: { ...METADATA_CONFIG.resources.tags.fields, label: { type: 'string', required: true, maxLength: 40 } } } },
  })
  await createUser(changed, 'admin@example.com')
  await createUser(changed, 'clerk@example.com', 'clerk')
  const there = await caller(changed, await bearer(changed, 'clerk@example.com'))('GET', '/api/meta')
  const here = await clerk('GET', '/api/meta')
  assert.notEqual(there.headers['x-meta-version'], here.headers['x-meta-version'])
  assert.equal(there.body.resources.tags.fields.label.maxLength, 40)
})

test('views, pages and the menu are checked against the models at startup, errors naming the path', async () => {
  const cases: Array<[Pick<Config, 'views' | 'pages' | 'userMenu'>, RegExp]> = [
    [{ views: { orders: { columns: ['title', 'titel'] } } }, /config\.views\.orders\.columns\[1\]: 'titel' is not a field of orders \(did you mean 'title'\?\)/],
    [{ views: { order: { columns: ['title'] } } }, /config\.views\.order: 'order' is not a resource \(did you mean 'orders'\?\)/],
    [{ views: { orders: { sort: 'placed desc' } } }, /config\.views\.orders\.sort: 'placed' is not a field of orders/],
    [{ views: { orders: { title: '{name}' } } }, /config\.views\.orders\.title: 'name' is not a field of orders/],
    [{ views: { orders: { roles: ['boss'] } } }, /config\.views\.orders\.roles\[0\]: 'boss' is not a configured role/],
    [{ pages: [{ name: 'p', elements: [{ type: 'table', resource: 'tags', columns: ['lable'] }] }] }, /config\.pages\[0\]\.elements\[0\]\.columns\[0\]: 'lable' is not a field of tags \(did you mean 'label'\?\)/],
    [{ userMenu: [{ page: 'overveiw' }] }, /config\.userMenu\[0\]\.page: 'overveiw' is not a page \(did you mean 'overview'\?\)/],
  ]
  for (const [change, message] of cases) {
    await assert.rejects(buildApp({ databaseUrl, ...METADATA_CONFIG, ...change }), message)
  }
})
