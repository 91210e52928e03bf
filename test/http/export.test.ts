// :export streams every row a list would show the caller, as NDJSON or CSV, from one read-only
// transaction: the caller's fields, tenant, row filter, filter and order, byte for byte; refusals
// as on lists; and a client that goes away leaves no statement running.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { freshDatabase, runSql } from '../helpers/db.js'
import { buildApp, createUser, bearer, caller, usersOf } from '../helpers/app.js'
import { kinds, statementsOf } from '../helpers/statements.js'

const databaseUrl = await freshDatabase()
await runSql(databaseUrl, `
  CREATE TABLE docs (
    id serial PRIMARY KEY, title text NOT NULL, amount numeric(10, 2), big int8, at timestamptz, data jsonb,
    flag boolean, secret text, owner_id text NOT NULL, tenant_id text NOT NULL, deleted_at timestamptz);
`)
const app = await buildApp({
  databaseUrl,
  tenant: 't1',
  roles: { admin: ['*'], user: ['docs.read.own'], writer: ['docs.create'] },
  resources: {
    docs: {
      owner: 'owner_id',
      tenant: 'tenant_id',
      softDelete: 'deleted_at',
      fields: {
        id: { type: 'integer', readOnly: true }, title: { type: 'string' }, amount: { type: 'decimal' }, big: { type: 'bigint' },
        at: { type: 'timestamp' }, data: { type: 'json' }, flag: { type: 'boolean' }, secret: { type: 'string' }, owner_id: { type: 'string' },
      },
      access: { fields: { secret: { read: ['admin'] } } },
    },
  },
})
await createUser(app, 'admin@example.com')
await createUser(app, 'ann@example.com', 'user')
await createUser(app, 'wes@example.com', 'writer')
const annId = (await usersOf(app).findByEmail('ann@example.com'))!.id
await runSql(databaseUrl, `
  INSERT INTO docs (title, amount, big, at, data, flag, secret, owner_id, tenant_id, deleted_at) VALUES
    ('plain', 1.50, 9007199254740993, '2026-03-01 10:00:00.5+00', '{"a": [1, "x"]}', true, 's1', '${annId}', 't1', NULL),
    ('quote "and", comma', NULL, NULL, NULL, NULL, NULL, 's2', '${annId}', 't1', NULL),
    ('line
break', 2, 1, '2026-03-02 00:00:00+00', 'null', false, 's3', '${annId}', 't1', NULL),
    ('gone', 3, 2, NULL, NULL, NULL, 's4', '${annId}', 't1', now()),
    ('someone else''s', 4, 3, NULL, NULL, NULL, 's5', 'other', 't1', NULL),
    ('other tenant', 5, 4, NULL, NULL, NULL, 's6', '${annId}', 't2', NULL);
`)
const annAuth = await bearer(app, 'ann@example.com')
const adminAuth = await bearer(app, 'admin@example.com')
const ann = caller(app, annAuth)

async function exported (auth: Record<string, string>, path: string, headers: Record<string, string> = {}): Promise<{ status: number, type: string | undefined, text: string, disposition: string | undefined }> {
  const response = await app.inject({ method: 'GET', url: path, headers: { ...auth, ...headers } })
  return { status: response.statusCode, type: response.headers['content-type'] as string | undefined, text: response.body, disposition: response.headers['content-disposition'] as string | undefined }
}

test('NDJSON: the caller\'s own rows of their tenant, live ones, readable fields only, every type as a record has it', async () => {
  const got = await exported(annAuth, '/api/v1/docs:export')
  assert.equal(got.status, 200)
  assert.equal(got.type, 'application/x-ndjson')
  assert.equal(got.disposition, 'attachment; filename="docs.ndjson"')
  assert.equal(got.text, [
    `{"id":1,"title":"plain","amount":"1.50","big":"9007199254740993","at":"2026-03-01T10:00:00.500000Z","data":{"a":[1,"x"]},"flag":true,"owner_id":"${annId}","deleted_at":null}`,
    `{"id":2,"title":"quote \\"and\\", comma","amount":null,"big":null,"at":null,"data":null,"flag":null,"owner_id":"${annId}","deleted_at":null}`,
    `{"id":3,"title":"line\\nbreak","amount":"2.00","big":"1","at":"2026-03-02T00:00:00.000000Z","data":null,"flag":false,"owner_id":"${annId}","deleted_at":null}`,
    '',
  ].join('\n'))
})

test('CSV by format or Accept: RFC 4180, a header row, CRLF, quotes where needed, NULL empty', async () => {
  const expected = [
    'id,title,amount,big,at,flag',
    '1,plain,1.50,9007199254740993,2026-03-01T10:00:00.500000Z,true',
    '2,"quote ""and"", comma",,,,',
    '3,"line\nbreak",2.00,1,2026-03-02T00:00:00.000000Z,false',
    '',
  ].join('\r\n')
  const byFormat = await exported(annAuth, '/api/v1/docs:export?format=csv&fields=id,title,amount,big,at,flag')
  assert.equal(byFormat.status, 200)
  assert.equal(byFormat.type, 'text/csv; charset=utf-8')
  assert.equal(byFormat.disposition, 'attachment; filename="docs.csv"')
  assert.equal(byFormat.text, expected)
  const byAccept = await exported(annAuth, '/api/v1/docs:export?fields=id,title,amount,big,at,flag', { accept: 'text/html;q=0.9, text/csv' })
  assert.equal(byAccept.text, expected)
  // Accept's weights decide between our formats; q=0 refuses one.
  const weighted: Array<[string, string]> = [
    ['text/csv;q=0.5, application/x-ndjson;q=0.9', 'application/x-ndjson'],
    ['application/x-ndjson;q=0.2, text/csv', 'text/csv; charset=utf-8'],
    ['text/csv;q=0', 'application/x-ndjson'],
  ]
  for (const [accept, type] of weighted) {
    assert.equal((await exported(annAuth, '/api/v1/docs:export?fields=id', { accept })).type, type, accept)
  }
})

test('filter, order_by, fields and show_deleted work as on a list; a hidden field is refused like an unknown one', async () => {
  const got = await exported(annAuth, `/api/v1/docs:export?fields=title&order_by=title desc&show_deleted=true&filter=${encodeURIComponent('amount >= 2 OR title = "plain"')}`)
  assert.equal(got.status, 200)
  assert.equal(got.text, '{"title":"plain"}\n{"title":"line\\nbreak"}\n{"title":"gone"}\n')
  const hidden = await ann('GET', '/api/v1/docs:export?fields=secret')
  const unknown = await ann('GET', '/api/v1/docs:export?fields=nothing')
  assert.equal(hidden.status, 400)
  assert.equal(hidden.body.type, 'urn:service:problem:invalid-parameter')
  assert.equal(hidden.body.detail, unknown.body.detail.replace('nothing', 'secret'))
  const hiddenFilter = await ann('GET', `/api/v1/docs:export?filter=${encodeURIComponent('secret = "s1"')}`)
  assert.equal(hiddenFilter.status, 400)
  assert.equal(hiddenFilter.body.type, 'urn:service:problem:invalid-filter')
  const admins = await exported(adminAuth, '/api/v1/docs:export?fields=title,secret&format=csv')
  assert.equal(admins.text, 'title,secret\r\nplain,s1\r\n"quote ""and"", comma",s2\r\n"line\nbreak",s3\r\nsomeone else\'s,s5\r\n')
})

test('refusals: unknown parameters and formats, an empty field list, a long filter; nothing without a token', async () => {
  const cases: Array<[string, number, string]> = [
    ['/api/v1/docs:export?format=xml', 400, 'invalid-parameter'],
    ['/api/v1/docs:export?page_size=5', 400, 'invalid-parameter'],
    ['/api/v1/docs:export?fields=', 400, 'invalid-parameter'],
    [`/api/v1/docs:export?filter=${'x'.repeat(10_001)}`, 400, 'invalid-filter'],
    ['/api/v1/docs:export?filter=title%20%3D', 400, 'invalid-filter'],
    ['/api/v1/nothing:export', 404, 'not-found'],
  ]
  for (const [path, status, slug] of cases) {
    const got = await ann('GET', path)
    assert.equal(got.status, status, path)
    assert.equal(got.body.type, `urn:service:problem:${slug}`, path)
    assert.match(got.headers['content-type'] as string, /^application\/problem\+json/)
  }
  const anonymous = await app.inject({ method: 'GET', url: '/api/v1/docs:export' })
  assert.equal(anonymous.statusCode, 401)
})

test('one read-only transaction, with the export\'s own statement timeout', async () => {
  const statements = await statementsOf(async () => { await exported(annAuth, '/api/v1/docs:export') })
  assert.deepEqual(kinds(statements), ['BEGIN', 'SELECT', 'COMMIT'])
  assert.equal(statements[0], 'BEGIN READ ONLY; SET LOCAL statement_timeout = 600000')
  assert.doesNotMatch(statements[1]!, /LIMIT/)
})

test('the read operation must be allowed: a caller who may only create is refused as on a list', async () => {
  const wes = caller(app, await bearer(app, 'wes@example.com'))
  const list = await wes('GET', '/api/v1/docs')
  const exported = await wes('GET', '/api/v1/docs:export')
  assert.ok(exported.status >= 400, String(exported.status))
  assert.equal(exported.status, list.status)
  assert.equal(exported.body.type, list.body.type)
  assert.equal(exported.body.detail, list.body.detail)
})
