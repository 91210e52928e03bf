import { test } from 'node:test'
import assert from 'node:assert/strict'
import { freshDatabase, runSql } from '../helpers/db.js'
import { tamperedPageToken } from '../helpers/page-tokens.js'
import { buildApp, createUser, bearer, caller } from '../helpers/app.js'
import { SHOP_RESOURCES, SHOP_SCHEMA } from '../fixtures/shop.js'

const databaseUrl = await freshDatabase()
await runSql(databaseUrl, SHOP_SCHEMA)
const app = await buildApp({ databaseUrl, resources: SHOP_RESOURCES })
await createUser(app, 'admin@example.com')
const auth = await bearer(app, 'admin@example.com')

const call = caller(app, auth)

test('create answers 201 with Location, ETag and the record in its JSON representation', async () => {
  const created = await call('POST', '/api/v1/orders', { payload: { title: 'First', total: '12.50', position: 3, placed_at: '2026-01-02T03:04:05.123456Z', due_on: '2026-02-01', meta: { a: [1, 2] } } })
  assert.equal(created.status, 201)
  assert.equal(created.headers.location, `/api/v1/orders/${created.body.id}`)
  assert.equal(created.headers.etag, created.body.etag)
  // A readable integer version: the version, then a hash of resource, key and version.
  assert.match(created.body.etag, /^"1\.[0-9a-f]{16}"$/)
  assert.deepEqual({ ...created.body, id: 'ID', etag: 'ETAG' }, {
    id: 'ID', title: 'First', status: 'draft', total: '12.50', position: 3, placed_at: '2026-01-02T03:04:05.123456Z',
    due_on: '2026-02-01', meta: { a: [1, 2] }, code: null, deleted_at: null, version: 1, etag: 'ETAG',
  })
  assert.equal(typeof created.body.id, 'string')
})

test('Prefer: return=minimal on create gives 201 with no body', async () => {
  const created = await call('POST', '/api/v1/orders', { payload: { title: 'Quiet' }, headers: { prefer: 'return=minimal' } })
  assert.equal(created.status, 201)
  assert.equal(created.body, undefined)
  assert.match(String(created.headers.location), /^\/api\/v1\/orders\/\d+$/)
  assert.match(String(created.headers.etag), /^"1\.[0-9a-f]{16}"$/)
})

test('get returns the record with an ETag equal to its etag; fields keeps etag', async () => {
  const created = await call('POST', '/api/v1/orders', { payload: { title: 'Get me' } })
  const got = await call('GET', `/api/v1/orders/${created.body.id}`)
  assert.equal(got.status, 200)
  assert.equal(got.headers.etag, got.body.etag)
  const { permissions, ...record } = got.body
  assert.deepEqual(record, created.body)
  const edit = { title: 'edit', status: 'edit', total: 'edit', position: 'edit', placed_at: 'edit', due_on: 'edit', meta: 'edit', code: 'edit' }
  assert.deepEqual(permissions, { update: true, delete: true, fields: { id: 'read', ...edit, deleted_at: 'read', version: 'read' } })
  const masked = await call('GET', `/api/v1/orders/${created.body.id}?fields=title`)
  assert.deepEqual(masked.body, { title: 'Get me', etag: created.body.etag, permissions })
  const unknown = await call('GET', `/api/v1/orders/${created.body.id}?fields=titel`)
  assert.equal(unknown.status, 400)
  assert.equal(unknown.body.type, 'urn:service:problem:invalid-parameter')
  assert.deepEqual(unknown.body.errors, [{ parameter: 'fields', message: "fields: 'titel' is not a field (did you mean 'title'?)." }])
})

test('a malformed key is 400 invalid-key; a missing one 404', async () => {
  const bad = await call('GET', '/api/v1/orders/abc')
  assert.equal(bad.status, 400)
  assert.equal(bad.body.type, 'urn:service:problem:invalid-key')
  const missing = await call('GET', '/api/v1/orders/999999')
  assert.equal(missing.status, 404)
  assert.equal(missing.body.type, 'urn:service:problem:not-found')
  const parts = await call('GET', '/api/v1/lines/eu')
  assert.equal(parts.status, 400)
  assert.equal(parts.body.type, 'urn:service:problem:invalid-key')
})

test('update needs If-Match: 428 without, 412 stale, * matches any; the ETag changes', async () => {
  const created = await call('POST', '/api/v1/orders', { payload: { title: 'Patch me' } })
  const url = `/api/v1/orders/${created.body.id}`
  const without = await call('PATCH', url, { payload: { title: 'x' } })
  assert.equal(without.status, 428)
  assert.equal(without.body.type, 'urn:service:problem:precondition-required')
  const updated = await call('PATCH', url, { payload: { title: 'Patched' }, headers: { 'if-match': created.body.etag } })
  assert.equal(updated.status, 200)
  assert.equal(updated.body.title, 'Patched')
  assert.equal(updated.body.version, 2)
  assert.notEqual(updated.body.etag, created.body.etag)
  assert.equal(updated.headers.etag, updated.body.etag)
  const stale = await call('PATCH', url, { payload: { title: 'Again' }, headers: { 'if-match': created.body.etag } })
  assert.equal(stale.status, 412)
  assert.equal(stale.body.type, 'urn:service:problem:precondition-failed')
  const any = await call('PATCH', url, { payload: { title: 'Star' }, headers: { 'if-match': '*' } })
  assert.equal(any.status, 200)
  assert.equal(any.body.version, 3)
  const minimal = await call('PATCH', url, { payload: { title: 'Quiet' }, headers: { 'if-match': any.body.etag, prefer: 'return=minimal' } })
  assert.equal(minimal.status, 204)
  assert.equal(minimal.body, undefined)
  assert.match(String(minimal.headers.etag), /^"4\.[0-9a-f]{16}"$/)
  assert.notEqual(minimal.headers.etag, any.body.etag)
})

test('invalid bodies are 400 invalid-record with errors per field', async () => {
  const response = await call('POST', '/api/v1/orders', { payload: { id: '5', nope: 1, status: 'gone', etag: '"x"', position: 'three' } })
  assert.equal(response.status, 400)
  assert.equal(response.body.type, 'urn:service:problem:invalid-record')
  assert.deepEqual(response.body.errors.map((e: { field: string, code: string }) => [e.field, e.code]), [
    ['id', 'read-only'], ['nope', 'unknown'], ['status', 'invalid'], ['etag', 'not-allowed'], ['position', 'invalid'], ['title', 'required'],
  ])
  const etag = response.body.errors.find((e: { field: string }) => e.field === 'etag')
  assert.match(etag.message, /If-Match/)
  assert.doesNotMatch(response.body.detail + JSON.stringify(response.body.errors), /gone|three/)
})

test('database constraint failures map to 409/400 without names or values', async () => {
  await call('POST', '/api/v1/orders', { payload: { title: 'Unique', code: 'dup-code' } })
  const duplicate = await call('POST', '/api/v1/orders', { payload: { title: 'Unique 2', code: 'dup-code' } })
  assert.equal(duplicate.status, 409)
  assert.equal(duplicate.body.type, 'urn:service:problem:conflict')
  assert.doesNotMatch(JSON.stringify(duplicate.body), /dup-code|orders_code_key|code/)
  const orphan = await call('POST', '/api/v1/tags', { payload: { label: 'x', order_id: '987654' } })
  assert.equal(orphan.status, 409)
  assert.equal(orphan.body.type, 'urn:service:problem:conflict')
  assert.doesNotMatch(JSON.stringify(orphan.body), /987654|tags_order_id_fkey|order_id/)
})

test('soft delete: 204, then 404 for get/update/delete, visible with show_deleted; undelete restores', async () => {
  const created = await call('POST', '/api/v1/orders', { payload: { title: 'Doomed' } })
  const url = `/api/v1/orders/${created.body.id}`
  const stale = await call('DELETE', url, { headers: { 'if-match': '"0000"' } })
  assert.equal(stale.status, 412)
  const deleted = await call('DELETE', url, { headers: { 'if-match': created.body.etag } })
  assert.equal(deleted.status, 204)
  assert.equal(deleted.body, undefined)
  assert.equal((await call('GET', url)).status, 404)
  assert.equal((await call('PATCH', url, { payload: { title: 'x' }, headers: { 'if-match': '*' } })).status, 404)
  assert.equal((await call('DELETE', url)).status, 404)
  const shown = await call('GET', `${url}?show_deleted=true`)
  assert.equal(shown.status, 200)
  assert.match(shown.body.deleted_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/)
  const listed = await call('GET', '/api/v1/orders?show_deleted=true&page_size=500')
  assert.ok(listed.body.items.some((r: { id: string }) => r.id === created.body.id))
  const hidden = await call('GET', '/api/v1/orders?page_size=500')
  assert.ok(!hidden.body.items.some((r: { id: string }) => r.id === created.body.id))
  const restored = await call('POST', `${url}:undelete`)
  assert.equal(restored.status, 200)
  assert.equal(restored.body.deleted_at, null)
  assert.equal(restored.headers.etag, restored.body.etag)
  const again = await call('POST', `${url}:undelete`)
  assert.equal(again.status, 409)
  assert.equal(again.body.type, 'urn:service:problem:conflict')
})

test('delete with Prefer: return=representation returns the record', async () => {
  const created = await call('POST', '/api/v1/orders', { payload: { title: 'Show me' } })
  const deleted = await call('DELETE', `/api/v1/orders/${created.body.id}`, { headers: { prefer: 'return=representation' } })
  assert.equal(deleted.status, 200)
  assert.equal(deleted.body.title, 'Show me')
  assert.notEqual(deleted.body.deleted_at, null)
  assert.equal(deleted.headers.etag, deleted.body.etag)
})

test('hard delete removes the row; undelete and show_deleted are 400 there', async () => {
  const created = await call('POST', '/api/v1/tags', { payload: { label: 'gone' } })
  assert.equal(created.status, 201)
  const url = `/api/v1/tags/${created.body.id}`
  assert.equal((await call('DELETE', url)).status, 204)
  assert.equal((await call('GET', url)).status, 404)
  const undelete = await call('POST', `${url}:undelete`)
  assert.equal(undelete.status, 400)
  assert.equal(undelete.body.type, 'urn:service:problem:invalid-parameter')
  const show = await call('GET', '/api/v1/tags?show_deleted=true')
  assert.equal(show.status, 400)
  assert.equal(show.body.type, 'urn:service:problem:invalid-parameter')
})

test('composite keys: parts joined by a comma, each percent-encoded', async () => {
  const created = await call('POST', '/api/v1/lines', { payload: { region: 'eu,west/1', number: 7, note: 'hi' } })
  assert.equal(created.status, 201)
  assert.equal(created.headers.location, '/api/v1/lines/eu%2Cwest%2F1,7')
  const got = await call('GET', '/api/v1/lines/eu%2Cwest%2F1,7')
  assert.equal(got.status, 200)
  const { permissions: _permissions, ...record } = got.body
  assert.deepEqual(record, created.body)
  assert.match(got.body.updated_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/)
})

test('updated_at versions: two quick updates never share an ETag', async () => {
  const created = await call('POST', '/api/v1/lines', { payload: { region: 'us', number: 1 } })
  let etag = created.body.etag
  const seen = new Set([etag])
  for (let i = 0; i < 5; i++) {
    const updated = await call('PATCH', '/api/v1/lines/us,1', { payload: { note: `n${i}` }, headers: { 'if-match': etag } })
    assert.equal(updated.status, 200)
    etag = updated.body.etag
    assert.ok(!seen.has(etag))
    seen.add(etag)
  }
})

test('list: items, next_page_token, total_size_estimate; keyset pages walk every row once', async () => {
  for (let i = 0; i < 7; i++) await call('POST', '/api/v1/tags', { payload: { label: `t${i}` } })
  const all = await call('GET', '/api/v1/tags?page_size=500')
  assert.equal(all.status, 200)
  assert.deepEqual(Object.keys(all.body), ['items', 'next_page_token', 'total_size_estimate'])
  assert.equal(all.body.next_page_token, '')
  assert.equal(all.body.total_size_estimate, all.body.items.length)
  const walked: string[] = []
  let token = ''
  do {
    const page = await call('GET', `/api/v1/tags?page_size=3${token === '' ? '' : `&page_token=${encodeURIComponent(token)}`}`)
    assert.equal(page.status, 200)
    assert.ok(page.body.items.length <= 3)
    assert.equal(typeof page.body.total_size_estimate, 'number')
    walked.push(...page.body.items.map((r: { id: number }) => String(r.id)))
    token = page.body.next_page_token
  } while (token !== '')
  assert.deepEqual(walked, all.body.items.map((r: { id: number }) => String(r.id)))
})

test('lists are ordered by the key value, not its text (2 before 10)', async () => {
  for (let i = 0; i < 12; i++) await call('POST', '/api/v1/tags', { payload: { label: `order-${i}` } })
  const ids = (await call('GET', '/api/v1/tags?page_size=500')).body.items.map((r: { id: number }) => r.id)
  assert.deepEqual(ids, [...ids].sort((a: number, b: number) => a - b))
  const firstPage = (await call('GET', '/api/v1/orders?page_size=3')).body.items.map((r: { id: string }) => BigInt(r.id))
  assert.deepEqual(firstPage, [...firstPage].sort((a, b) => (a < b ? -1 : 1)))
})

test('a page token reveals nothing of the rows it points after', async () => {
  const page = await call('GET', '/api/v1/orders?page_size=1')
  const lastId = page.body.items[0].id
  const decoded = Buffer.from(page.body.next_page_token.split('.').join(''), 'base64url').toString('latin1')
  assert.ok(!decoded.includes('orders') && !decoded.includes(`"${lastId}"`))
})

test('page_size above 500 is coerced; zero, negative or text is 400; unknown parameters are 400', async () => {
  assert.equal((await call('GET', '/api/v1/tags?page_size=9999')).status, 200)
  for (const size of ['0', '-1', 'ten']) {
    const response = await call('GET', `/api/v1/tags?page_size=${size}`)
    assert.equal(response.status, 400)
    assert.equal(response.body.type, 'urn:service:problem:invalid-parameter')
    assert.equal(response.body.errors[0].parameter, 'page_size')
  }
  const typo = await call('GET', '/api/v1/tags?page_sise=5')
  assert.equal(typo.status, 400)
  assert.match(typo.body.detail, /page_size/)
})

test('a page token is bound to its list and tamper-proof', async () => {
  const page = await call('GET', '/api/v1/orders?page_size=1')
  const token = page.body.next_page_token
  assert.notEqual(token, '')
  const other = await call('GET', `/api/v1/orders?page_size=1&show_deleted=true&page_token=${encodeURIComponent(token)}`)
  assert.equal(other.status, 400)
  assert.equal(other.body.type, 'urn:service:problem:invalid-parameter')
  const tampered = await call('GET', `/api/v1/orders?page_size=1&page_token=${encodeURIComponent(tamperedPageToken(token))}`)
  assert.equal(tampered.status, 400)
  assert.equal(tampered.body.type, 'urn:service:problem:invalid-parameter')
})

test('tenant-scoped resources need a tenant: 403 tenant-required without one', async () => {
  const list = await call('GET', '/api/v1/notes')
  assert.equal(list.status, 403)
  assert.equal(list.body.type, 'urn:service:problem:tenant-required')
  const create = await call('POST', '/api/v1/notes', { payload: { body: 'x' } })
  assert.equal(create.status, 403)
  assert.equal(create.body.type, 'urn:service:problem:tenant-required')
})

