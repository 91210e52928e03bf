// :seek through HTTP on real PostgreSQL, under a tenant, a row filter, a hidden field and soft
// delete: each page is the run of the full ordered list (walked with list page tokens) that starts
// at its position, its prev and next tokens walk back and forth through seek and list alike, and
// nothing but the page and its own tokens comes back.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { freshDatabase, runSql } from '../helpers/db.js'
import { buildApp, createUser, bearer, caller, usersOf, TEST_SECRET, assertParameterError } from '../helpers/app.js'
import { deriveKey, encrypt } from '../../lib/crypto.js'
import type { Config } from '../../lib/config/schema.js'

const RESOURCES: NonNullable<Config['resources']> = {
  items: {
    tenant: 'tenant_id',
    softDelete: 'deleted_at',
    fields: {
      id: { type: 'integer', readOnly: true, dbDefault: true },
      owner_id: { type: 'string' },
      rank: { type: 'integer' },
      title: { type: 'string' },
      secret: { type: 'string' },
    },
    access: {
      read: (ctx) => ctx.user.roles.includes('admin') ? true : { filter: { owner_id: ctx.user.id } },
      fields: { secret: { read: ['admin'], write: ['admin'] } },
    },
  },
  plain: { fields: { id: { type: 'integer', readOnly: true }, label: { type: 'string' } } },
}

const databaseUrl = await freshDatabase()
await runSql(databaseUrl, `
  CREATE TABLE items (id serial PRIMARY KEY, tenant_id text NOT NULL, owner_id text NOT NULL, rank integer, title text NOT NULL, secret text, deleted_at timestamptz);
  CREATE TABLE plain (id serial PRIMARY KEY, label text NOT NULL);
  INSERT INTO plain (label) SELECT 'label ' || n FROM generate_series(1, 12000) AS n;
  ANALYZE plain;
`)
const app = await buildApp({ databaseUrl, roles: ['admin', 'user'], tenant: 't1', resources: RESOURCES })
await createUser(app, 'admin@example.com', 'admin')
await createUser(app, 'alice@example.com', 'user')
const ALICE = (await usersOf(app).list()).find((u) => u.email === 'alice@example.com')!.id
await runSql(databaseUrl, `
  INSERT INTO items (tenant_id, owner_id, rank, title, secret, deleted_at)
    SELECT 't1', '${ALICE}', CASE WHEN n % 7 = 0 THEN NULL ELSE n % 9 END, 'item ' || lpad(n::text, 2, '0'), 'hidden ' || n, CASE WHEN n % 10 = 0 THEN now() END
    FROM generate_series(1, 47) AS n;
  INSERT INTO items (tenant_id, owner_id, rank, title) SELECT 't1', 'bob', n % 9, 'bob ' || n FROM generate_series(1, 15) AS n;
  INSERT INTO items (tenant_id, owner_id, rank, title) SELECT 't2', '${ALICE}', n % 9, 'other ' || n FROM generate_series(1, 10) AS n;
`)
const asAlice = caller(app, await bearer(app, 'alice@example.com'))
const asAdmin = caller(app, await bearer(app, 'admin@example.com'))
const q = encodeURIComponent

interface Page { ids: number[], next: string, prev: string | undefined }

async function page (url: string): Promise<Page> {
  const response = await asAlice('GET', url)
  assert.equal(response.status, 200, `${url}: ${JSON.stringify(response.body)}`)
  for (const item of response.body.items) assert.deepEqual(Object.keys(item), ['id', 'owner_id', 'rank', 'title', 'deleted_at', 'etag', 'permissions'])
  return { ids: response.body.items.map((i: { id: number }) => i.id), next: response.body.next_page_token, prev: response.body.prev_page_token }
}

/** Every row of the list, walked with list page tokens. */
async function walk (query: string): Promise<number[]> {
  const all: number[] = []
  let token = ''
  do {
    const listed = await page(`/api/v1/items?page_size=7&${query}${token === '' ? '' : `&page_token=${q(token)}`}`)
    all.push(...listed.ids)
    token = listed.next
  } while (token !== '')
  return all
}

const SIZE = 5
const QUERIES = ['', 'order_by=rank', `order_by=${q('rank desc')}`, `order_by=${q('title desc')}`, `order_by=rank&show_deleted=true&filter=${q('rank != 3')}`]

test('a seek page is the run of the full list at its position; prev and next are "" at the ends; past the end is empty', async () => {
  for (const query of QUERIES) {
    const full = await walk(query)
    assert.ok(full.length >= 35, `${query}: ${full.length}`)
    for (const position of [0, 1, 13, full.length - 1, full.length, full.length + 5]) {
      const sought = await page(`/api/v1/items:seek?position=${position}&page_size=${SIZE}&${query}`)
      assert.deepEqual(sought.ids, full.slice(position, position + SIZE), `${query} @${position}`)
      assert.equal(sought.next === '', position + SIZE >= full.length, `${query} @${position} next`)
      assert.equal(sought.prev === '', position === 0 || position >= full.length, `${query} @${position} prev`)
    }
  }
})

test('prev and next tokens walk back and forth through seek and list, page by page', async () => {
  for (const query of QUERIES) {
    const full = await walk(query)
    let at = 13
    let current = await page(`/api/v1/items:seek?position=${at}&page_size=${SIZE}&${query}`)
    while (current.next !== '') {
      const viaList = await page(`/api/v1/items?page_size=${SIZE}&${query}&page_token=${q(current.next)}`)
      current = await page(`/api/v1/items:seek?page_size=${SIZE}&${query}&page_token=${q(current.next)}`)
      at += SIZE
      assert.deepEqual(current.ids, full.slice(at, at + SIZE), `${query} forward to ${at}`)
      assert.deepEqual(viaList.ids, current.ids)
      assert.notEqual(current.prev, '')
    }
    assert.ok(at + SIZE >= full.length)
    let first = at
    while (current.prev !== '') {
      const viaList = await page(`/api/v1/items?page_size=${SIZE}&${query}&page_token=${q(current.prev!)}`)
      current = await page(`/api/v1/items:seek?page_size=${SIZE}&${query}&page_token=${q(current.prev!)}`)
      const start = Math.max(0, first - SIZE)
      assert.deepEqual(current.ids, full.slice(start, first), `${query} back to ${start}`)
      assert.deepEqual(viaList.ids, current.ids)
      assert.notEqual(viaList.next, '', 'a list read backward continues forward')
      assert.notEqual(current.next, '')
      first = start
    }
    assert.equal(first, 0)
  }
})

test('a seek answers the page and its own tokens only, under the tenant, the row filter and the hidden field', async () => {
  const response = await asAlice('GET', '/api/v1/items:seek?position=2&page_size=3')
  assert.deepEqual(Object.keys(response.body), ['items', 'next_page_token', 'prev_page_token'])
  const everything = await walk('show_deleted=true')
  assert.equal(everything.length, 47)
  const masked = await asAlice('GET', '/api/v1/items:seek?position=40&order_by=title&fields=title&show_deleted=true')
  assert.deepEqual(masked.body.items.map((i: Record<string, unknown>) => Object.keys(i)), Array(7).fill(['title', 'etag', 'permissions']))
  assert.equal(masked.body.items[0].title, 'item 41')
  assert.equal(masked.body.next_page_token, '')
  // The admin sees Bob's rows and the secret: the same position is another row for them.
  const admin = await asAdmin('GET', '/api/v1/items:seek?position=0&page_size=1&order_by=title')
  assert.equal(admin.body.items[0].title, 'bob 1')
  assert.ok('secret' in admin.body.items[0])
})

test('page tokens issued before tokens had a direction (v1) are still accepted by list and seek', async () => {
  const full = await walk('')
  const legacy = encrypt(deriveKey(TEST_SECRET, 'page-token'), JSON.stringify({ s: JSON.stringify(['items', '', [['id', 'ASC']], false]), a: [String(full[9])] })).slice('v1.'.length)
  assert.deepEqual((await page(`/api/v1/items?page_size=${SIZE}&page_token=${q(legacy)}`)).ids, full.slice(10, 15))
  assert.deepEqual((await page(`/api/v1/items:seek?page_size=${SIZE}&page_token=${q(legacy)}`)).ids, full.slice(10, 15))
  const unknownVersion = encrypt(deriveKey(TEST_SECRET, 'page-token'), JSON.stringify({ v: 3, s: JSON.stringify(['items', '', [['id', 'ASC']], false]), a: ['1'], d: 'f' })).slice('v1.'.length)
  assertParameterError(await asAlice('GET', `/api/v1/items?page_token=${q(unknownVersion)}`), 'page_token', /not a token this server issued/)
})


test('seek parameters: position required and whole, not with page_token; page_size, order_by, filter and tokens as on lists', async () => {
  assertParameterError(await asAlice('GET', '/api/v1/items:seek'), 'position', /required/)
  for (const position of ['-1', '1.5', 'abc', '']) assertParameterError(await asAlice('GET', `/api/v1/items:seek?position=${position}`), 'position', /whole number/)
  assertParameterError(await asAlice('GET', '/api/v1/items:seek?position=1&position=2'), 'position', /given once/)
  // Past every row is an empty page, as far as 2^53 - 1 (the document's maximum); beyond it, 400.
  assert.deepEqual((await page('/api/v1/items:seek?position=9007199254740991')).ids, [])
  for (const position of ['9007199254740992', '99999999999999999999']) assertParameterError(await asAlice('GET', `/api/v1/items:seek?position=${position}`), 'position', /from 0 to 9007199254740991/)
  const token = (await page('/api/v1/items:seek?position=0&page_size=2')).next
  assertParameterError(await asAlice('GET', `/api/v1/items:seek?position=3&page_token=${q(token)}`), 'position', /not both/)
  assertParameterError(await asAlice('GET', `/api/v1/items:seek?order_by=rank&page_token=${q(token)}`), 'page_token', /other parameters/)
  assertParameterError(await asAlice('GET', '/api/v1/items:seek?position=0&page_size=0'), 'page_size')
  assertParameterError(await asAlice('GET', '/api/v1/items:seek?position=0&count=exact'), 'count', /Unknown parameter/)
  assert.equal((await page('/api/v1/items:seek?position=0')).ids.length, 43, 'page_size defaults to 50')
  assert.equal((await page('/api/v1/items:seek?position=0&page_size=9999')).ids.length, 43)
  assertParameterError(await asAdmin('GET', '/api/v1/plain:seek?position=0&show_deleted=true'), 'show_deleted', /no soft delete/)
  const hidden = await asAlice('GET', '/api/v1/items:seek?position=0&order_by=secret')
  const unknown = await asAlice('GET', '/api/v1/items:seek?position=0&order_by=secrte')
  assert.equal(hidden.body.type, 'urn:service:problem:invalid-order-by')
  assert.deepEqual(hidden.body, JSON.parse(JSON.stringify(unknown.body).replaceAll('secrte', 'secret')))
  assert.equal((await asAlice('GET', `/api/v1/items:seek?position=0&filter=${q('secret = "x"')}`)).body.errors[0].code, 'unknown-field')
  const long = await asAlice('GET', `/api/v1/items:seek?position=0&filter=${'x'.repeat(10_001)}`)
  assert.equal(long.body.type, 'urn:service:problem:invalid-filter')
  assert.equal(long.body.errors[0].code, 'too-long')
})

test('the scan guard judges a seek as it judges a list', async () => {
  const refused = await asAdmin('GET', '/api/v1/plain:seek?position=100&order_by=label')
  assert.equal(refused.status, 400)
  assert.equal(refused.body.type, 'urn:service:problem:expensive-query')
  assert.equal(refused.body.suggestion, 'CREATE INDEX ON "plain" ("label", "id")')
  const indexed = await asAdmin('GET', '/api/v1/plain:seek?position=11998&page_size=5')
  assert.deepEqual(indexed.body.items.map((i: { id: number }) => i.id), [11999, 12000])
})
