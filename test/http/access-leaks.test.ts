// A hidden field's value reaches no caller who cannot read it: not in a body, a header, an error or
// a page token, across list, get, :search, create, update, delete, undelete and refused queries.
// A hidden field is refused exactly like an unknown one (checked against a twin app whose model
// does not have it), and the caller's ETag does not move when only the hidden field changes.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import type { FastifyInstance } from 'fastify'
import { freshDatabase, runSql } from '../helpers/db.js'
import { buildApp, createUser, bearer } from '../helpers/app.js'
import type { Config } from '../../lib/config/schema.js'

const SECRET_COST = '987654.321'
const SECRET_MEMO = 'TOPSECRET-q7x9z2'
/** What must never appear: the values, and fragments of them. Requests never contain these. */
const NEEDLES = ['987654', '654.32', 'TOPSECRET', 'q7x9z2']

const SCHEMA = `
CREATE TABLE deals (
  id serial PRIMARY KEY,
  title text NOT NULL,
  status text NOT NULL DEFAULT 'open',
  cost numeric(12, 3),
  memo text,
  deleted_at timestamptz,
  -- A rule whose violation makes PostgreSQL print the failing row, hidden values included.
  CONSTRAINT deals_void_has_no_cost CHECK (status <> 'void' OR cost IS NULL)
);
`

type Fields = NonNullable<Config['resources']>[string]['fields']

const VISIBLE_FIELDS: Fields = {
  id: { type: 'integer', readOnly: true, dbDefault: true },
  title: { type: 'string', required: true, searchable: true },
  status: { type: 'string', enum: ['open', 'won', 'void'], default: 'open' },
}

const RESOURCES: NonNullable<Config['resources']> = {
  deals: {
    softDelete: 'deleted_at',
    fields: { ...VISIBLE_FIELDS, cost: { type: 'decimal' }, memo: { type: 'string', searchable: true } },
    access: { fields: { cost: { read: ['admin'], write: ['admin'] }, memo: { read: ['admin'], write: ['admin'] } } },
  },
}
/** The same resource for a model that has no cost and no memo at all. */
const TWIN_RESOURCES: NonNullable<Config['resources']> = {
  deals: { softDelete: 'deleted_at', fields: { ...VISIBLE_FIELDS } },
}

const SEED = `
INSERT INTO deals (title, status, cost, memo)
SELECT 'deal ' || i, CASE WHEN i % 2 = 0 THEN 'open' ELSE 'won' END, ${SECRET_COST}, '${SECRET_MEMO}'
FROM generate_series(1, 7) AS i;
`

async function appOn (resources: NonNullable<Config['resources']>): Promise<FastifyInstance> {
  const databaseUrl = await freshDatabase()
  await runSql(databaseUrl, SCHEMA + SEED)
  const app = await buildApp({ databaseUrl, roles: ['admin', 'user'], resources })
  await createUser(app, 'admin@example.com', 'admin')
  await createUser(app, 'user@example.com', 'user')
  return app
}

const app = await appOn(RESOURCES)
const twin = await appOn(TWIN_RESOURCES)
const userAuth = await bearer(app, 'user@example.com')
const adminAuth = await bearer(app, 'admin@example.com')
const twinAuth = await bearer(twin, 'user@example.com')

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE'
interface Seen {
  readonly what: string
  readonly status: number
  readonly headers: Record<string, unknown>
  readonly text: string
  readonly body: any
}
const seen: Seen[] = []

async function send (target: FastifyInstance, auth: Record<string, string>, method: Method, url: string, payload?: unknown, headers: Record<string, string> = {}): Promise<Seen> {
  const response = await target.inject({ method, url, headers: { ...auth, ...headers }, ...(payload === undefined ? {} : { payload: payload as object }) })
  const text = response.body
  return { what: `${method} ${url}`, status: response.statusCode, headers: response.headers, text, body: text === '' ? undefined : JSON.parse(text) }
}

/** Every string in a JSON value, recursively (page tokens, etags, messages, values). */
function strings (value: unknown): string[] {
  if (typeof value === 'string') return [value]
  if (Array.isArray(value)) return value.flatMap(strings)
  if (typeof value === 'object' && value !== null) return Object.entries(value).flatMap(([k, v]) => [k, ...strings(v)])
  return []
}

/** A token-like text decoded every way a client might try: base64 and base64url, whole and per dot-separated part. */
function decodings (text: string): string[] {
  if (!/^[A-Za-z0-9_\-+/=.]{8,}$/.test(text)) return []
  const parts = [text, ...text.split('.'), text.split('.').join('')]
  return parts.flatMap((p) => [Buffer.from(p, 'base64url'), Buffer.from(p, 'base64')]).flatMap((b) => [b.toString('latin1'), b.toString('utf8')])
}

function assertClean (entry: Seen): void {
  const headerValues = Object.entries(entry.headers).map(([k, v]) => `${k}: ${Array.isArray(v) ? v.join(', ') : String(v)}`)
  const texts = [entry.text, ...headerValues, ...strings(entry.body).flatMap(decodings), ...headerValues.flatMap((h) => decodings(h.slice(h.indexOf(': ') + 2)))]
  for (const needle of NEEDLES) {
    for (const text of texts) assert.ok(!text.includes(needle), `${entry.what} (${entry.status}) shows '${needle}': ${text.slice(0, 300)}`)
  }
}

/** A request as the user who cannot read cost and memo; the response is checked for the secrets. */
async function asUser (method: Method, url: string, payload?: unknown, headers: Record<string, string> = {}): Promise<Seen> {
  const entry = await send(app, userAuth, method, url, payload, headers)
  seen.push(entry)
  assertClean(entry)
  return entry
}

async function asAdmin (method: Method, url: string, payload?: unknown, headers: Record<string, string> = {}): Promise<Seen> {
  return await send(app, adminAuth, method, url, payload, headers)
}

const USER_FIELDS = ['id', 'title', 'status', 'deleted_at']

function assertUserRecord (record: Record<string, unknown>, withPermissions: boolean): void {
  assert.deepEqual(Object.keys(record).sort(), [...USER_FIELDS, 'etag', ...(withPermissions ? ['permissions'] : [])].sort())
}

async function newDeal (title: string): Promise<{ id: string, url: string }> {
  const created = await asAdmin('POST', '/api/v1/deals', { title, cost: SECRET_COST, memo: SECRET_MEMO })
  assert.equal(created.status, 201)
  return { id: String(created.body.id), url: `/api/v1/deals/${created.body.id}` }
}

test('the admin does see the secrets (so their absence below means something)', async () => {
  const listed = await asAdmin('GET', '/api/v1/deals?page_size=1')
  assert.equal(listed.body.items[0].cost, SECRET_COST)
  assert.equal(listed.body.items[0].memo, SECRET_MEMO)
  const found = await asAdmin('POST', '/api/v1/deals:search', { filter: 'search("TOPSEC")' })
  assert.equal(found.status, 200)
  assert.ok(found.body.items.length >= 7)
})

test('aggregates and seek over the user\'s rows show no hidden value', async () => {
  for (const url of ['/api/v1/deals:facets?field=status', '/api/v1/deals:histogram?field=id', '/api/v1/deals:seek?position=1&page_size=2', '/api/v1/deals:seek?position=0&order_by=title&show_deleted=true']) {
    assert.equal((await asUser('GET', url)).status, 200, url)
  }
})

test('list: default, fields, order_by, filters on visible fields, count, show_deleted, and every page token', async () => {
  const urls = [
    '/api/v1/deals',
    '/api/v1/deals?fields=title,status',
    '/api/v1/deals?order_by=title%20desc',
    `/api/v1/deals?filter=${encodeURIComponent('status = "open"')}`,
    `/api/v1/deals?filter=${encodeURIComponent('title:"deal" AND status != "void"')}&count=exact`,
    '/api/v1/deals?show_deleted=true',
  ]
  for (const url of urls) {
    const listed = await asUser('GET', url)
    assert.equal(listed.status, 200, listed.text)
    assert.ok(listed.body.items.length > 0)
    for (const item of listed.body.items) {
      if (url.includes('fields=')) assert.deepEqual(Object.keys(item).sort(), ['etag', 'permissions', 'status', 'title'])
      else assertUserRecord(item, true)
      assert.deepEqual(Object.keys(item.permissions).sort(), ['delete', 'update'])
    }
  }
  // Walk pages of one row, ordered by a visible field and by the key: each token is opaque.
  for (const order of ['', '&order_by=status%20desc,title']) {
    let token = ''
    let pages = 0
    do {
      const page = await asUser('GET', `/api/v1/deals?page_size=1${order}${token === '' ? '' : `&page_token=${encodeURIComponent(token)}`}`)
      assert.equal(page.status, 200, page.text)
      token = page.body.next_page_token
      pages += 1
    } while (token !== '')
    assert.ok(pages >= 7)
  }
})

test('get and :search (with fields, order_by and page tokens in the body) show readable fields only', async () => {
  const { url } = await newDeal('for get')
  const got = await asUser('GET', url)
  assert.equal(got.status, 200)
  assertUserRecord(got.body, true)
  assert.deepEqual(got.body.permissions, { update: true, delete: true, fields: { id: 'read', title: 'edit', status: 'edit', deleted_at: 'read' } })
  const masked = await asUser('GET', `${url}?fields=title`)
  assert.deepEqual(Object.keys(masked.body).sort(), ['etag', 'permissions', 'title'])

  let token = ''
  let pages = 0
  do {
    const page = await asUser('POST', '/api/v1/deals:search', { filter: 'status = "open" OR status = "won"', order_by: 'title', page_size: 2, fields: ['title', 'status'], ...(token === '' ? {} : { page_token: token }) })
    assert.equal(page.status, 200, page.text)
    token = page.body.next_page_token
    pages += 1
  } while (token !== '')
  assert.ok(pages >= 4)
})

test('search() and bare words do not look into hidden fields', async () => {
  for (const filter of ['search("TOPSEC")', 'TOPSEC', 'search("7654")']) {
    const found = await asUser('POST', '/api/v1/deals:search', { filter })
    assert.equal(found.status, 200, found.text)
    assert.deepEqual(found.body.items, [], filter)
    assert.equal(found.body.total_size_estimate, 0)
  }
})

test('create, update (including 412, 428 and refused bodies), delete and undelete answer without the secrets', async () => {
  const created = await asUser('POST', '/api/v1/deals', { title: 'made by user' })
  assert.equal(created.status, 201)
  assertUserRecord(created.body, false)
  const representation = await asUser('POST', '/api/v1/deals', { title: 'made again' }, { prefer: 'return=representation' })
  assert.equal(representation.status, 201)
  const minimal = await asUser('POST', '/api/v1/deals', { title: 'made quietly' }, { prefer: 'return=minimal' })
  assert.equal(minimal.status, 201)
  assert.equal(minimal.body, undefined)

  const { url } = await newDeal('to update')
  const current = await asUser('GET', url)
  const updated = await asUser('PATCH', url, { title: 'updated by user' }, { 'if-match': current.body.etag })
  assert.equal(updated.status, 200, updated.text)
  assertUserRecord(updated.body, false)
  const stale = await asUser('PATCH', url, { title: 'stale' }, { 'if-match': current.body.etag })
  assert.equal(stale.status, 412)
  const missing = await asUser('PATCH', url, { title: 'no precondition' })
  assert.equal(missing.status, 428)
  for (const body of [{ cost: 1 }, { memo: 'x' }, { cost: null, title: 'x' }]) {
    const refused = await asUser('PATCH', url, body, { 'if-match': '*' })
    assert.equal(refused.status, 400)
    assert.equal(refused.body.type, 'urn:service:problem:invalid-record')
  }
  // PostgreSQL's own message would print the failing row with cost and memo.
  const constraint = await asUser('PATCH', url, { status: 'void' }, { 'if-match': '*' })
  assert.equal(constraint.status, 400)
  assert.deepEqual(constraint.body, { type: 'urn:service:problem:invalid-record', title: 'Invalid record', status: 400, detail: 'A value breaks a rule of the table.', instance: url })
  assert.ok(!constraint.text.includes('deals_void_has_no_cost') && !constraint.text.includes('cost'))
  const createdVoid = await asUser('POST', '/api/v1/deals', { title: 'void', status: 'void' })
  assert.equal(createdVoid.status, 201)

  const staleDelete = await asUser('DELETE', url, undefined, { 'if-match': current.body.etag })
  assert.equal(staleDelete.status, 412)
  const deleted = await asUser('DELETE', url, undefined, { prefer: 'return=representation' })
  assert.equal(deleted.status, 200)
  assertUserRecord(deleted.body, false)
  const gone = await asUser('GET', url)
  assert.equal(gone.status, 404)
  const shown = await asUser('GET', `${url}?show_deleted=true`)
  assert.equal(shown.status, 200)
  const staleUndelete = await asUser('POST', `${url}:undelete`, undefined, { 'if-match': current.body.etag })
  assert.equal(staleUndelete.status, 412)
  const undeleted = await asUser('POST', `${url}:undelete`)
  assert.equal(undeleted.status, 200)
  assertUserRecord(undeleted.body, false)
  const again = await asUser('POST', `${url}:undelete`)
  assert.equal(again.status, 409)
  const plainDelete = await asUser('DELETE', url)
  assert.equal(plainDelete.status, 204)
  assert.equal((await asAdmin('GET', `${url}?show_deleted=true`)).body.cost, SECRET_COST)
})

test('a hidden field is refused exactly like a field the model does not have, in queries and bodies', async () => {
  const probes: Array<[Method, string, unknown, Record<string, string>]> = [
    ['GET', `/api/v1/deals?filter=${encodeURIComponent('cost > 1')}`, undefined, {}],
    ['GET', `/api/v1/deals?filter=${encodeURIComponent('memo = "x"')}`, undefined, {}],
    ['GET', `/api/v1/deals?filter=${encodeURIComponent('status = "open" AND cost < 5')}`, undefined, {}],
    ['GET', `/api/v1/deals?filter=${encodeURIComponent('isNull(cost)')}`, undefined, {}],
    ['GET', `/api/v1/deals?filter=${encodeURIComponent('regex(memo, "^T")')}`, undefined, {}],
    ['GET', `/api/v1/deals?filter=${encodeURIComponent('in(cost, 1, 2)')}`, undefined, {}],
    ['GET', `/api/v1/deals?filter=${encodeURIComponent('memo:"x"')}`, undefined, {}],
    ['GET', '/api/v1/deals?order_by=cost', undefined, {}],
    ['GET', '/api/v1/deals?order_by=title,memo%20desc', undefined, {}],
    ['GET', '/api/v1/deals?fields=cost', undefined, {}],
    ['GET', '/api/v1/deals?fields=title,memo', undefined, {}],
    ['GET', '/api/v1/deals/1?fields=cost', undefined, {}],
    ['GET', '/api/v1/deals:facets?field=cost', undefined, {}],
    ['GET', '/api/v1/deals:histogram?field=cost', undefined, {}],
    ['GET', '/api/v1/deals:series?field=memo', undefined, {}],
    ['GET', `/api/v1/deals:facets?field=status&filter=${encodeURIComponent('cost > 1')}`, undefined, {}],
    ['GET', '/api/v1/deals:seek?position=0&order_by=cost', undefined, {}],
    ['GET', '/api/v1/deals:seek?position=0&order_by=title%20sideways,cost', undefined, {}],
    ['GET', '/api/v1/deals:export?order_by=memo', undefined, {}],
    ['GET', '/api/v1/deals:export?order_by=cost,title,title', undefined, {}],
    ['GET', '/api/v1/deals:seek?position=0&fields=memo', undefined, {}],
    ['POST', '/api/v1/deals:search', { filter: 'cost > 1' }, {}],
    ['POST', '/api/v1/deals:search', { order_by: 'memo' }, {}],
    ['POST', '/api/v1/deals:search', { order_by: 'title desc, cost desc' }, {}],
    ['POST', '/api/v1/deals:search', { fields: ['title', 'cost'] }, {}],
    ['POST', '/api/v1/deals', { title: 'x', cost: 1 }, {}],
    ['POST', '/api/v1/deals', { title: 'x', memo: 'y', cost: null }, {}],
    ['PATCH', '/api/v1/deals/1', { cost: '1.5' }, { 'if-match': '*' }],
    ['PATCH', '/api/v1/deals/1', { memo: 'y' }, { 'if-match': '*' }],
  ]
  for (const [method, url, payload, headers] of probes) {
    const hidden = await asUser(method, url, payload, headers)
    const unknown = await send(twin, twinAuth, method, url, payload, headers)
    assert.ok(hidden.status === 400, `${method} ${url}: ${hidden.status} ${hidden.text}`)
    assert.deepEqual(hidden.body, unknown.body, `${method} ${url}`)
    assert.equal(hidden.headers['content-type'], unknown.headers['content-type'])
  }
  assert.equal((await asAdmin('GET', '/api/v1/deals/1')).body.cost, SECRET_COST)
})

test('the caller\'s ETag does not change when only a hidden field changes; the admin\'s does', async () => {
  const { url } = await newDeal('etag probe')
  const userBefore = await asUser('GET', url)
  const adminBefore = await asAdmin('GET', url)
  const listedBefore = await asUser('POST', '/api/v1/deals:search', { filter: 'title = "etag probe"' })
  assert.equal(listedBefore.body.items[0].etag, userBefore.body.etag)

  const changed = await asAdmin('PATCH', url, { cost: '1.000', memo: 'changed' }, { 'if-match': adminBefore.body.etag })
  assert.equal(changed.status, 200)
  assert.notEqual(changed.body.etag, adminBefore.body.etag)
  const adminAfter = await asAdmin('GET', url)
  assert.equal(adminAfter.body.etag, changed.body.etag)

  const userAfter = await asUser('GET', url)
  assert.equal(userAfter.body.etag, userBefore.body.etag)
  assert.equal(userAfter.headers.etag, userBefore.headers.etag)
  const listedAfter = await asUser('POST', '/api/v1/deals:search', { filter: 'title = "etag probe"' })
  assert.equal(listedAfter.body.items[0].etag, userBefore.body.etag)
  // Their ETag is still current for them: an update with it goes through.
  const updated = await asUser('PATCH', url, { title: 'etag probe 2' }, { 'if-match': userBefore.body.etag })
  assert.equal(updated.status, 200, updated.text)
  assert.notEqual(updated.body.etag, userBefore.body.etag)
  // The admin's old ETag is stale now, for delete as well as update.
  assert.equal((await asAdmin('DELETE', url, undefined, { 'if-match': adminAfter.body.etag })).status, 412)
})

test('every response the user received was checked, and none showed a secret', () => {
  assert.ok(seen.length >= 60, `only ${seen.length} responses`)
  for (const entry of seen) assertClean(entry)
  const statuses = new Set(seen.map((e) => e.status))
  for (const status of [200, 201, 204, 400, 404, 409, 412, 428]) assert.ok(statuses.has(status), `no ${status} was checked`)
})
