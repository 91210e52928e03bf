// ETags are per record, work in every process without a memory of issued ETags, and never show a
// field the caller cannot read. The guarded one-statement update is proven by the statements it
// sends, not only by its answers.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { freshDatabase, runSql } from '../helpers/db.js'
import { buildApp, createUser, bearer, caller } from '../helpers/app.js'
import { kinds, statementsOf } from '../helpers/statements.js'
import type { Config } from '../../lib/config/schema.js'
import { runtimeOf } from '../../lib/runtime.js'

const databaseUrl = await freshDatabase()
await runSql(databaseUrl, `
  CREATE TABLE orders (id serial PRIMARY KEY, title text NOT NULL, owner_id text, version integer NOT NULL DEFAULT 1, deleted_at timestamptz);
  CREATE TABLE notes (id serial PRIMARY KEY, body text NOT NULL, updated_at timestamptz NOT NULL DEFAULT now());
`)
const config: Config = {
  databaseUrl,
  resources: {
    orders: {
      version: 'version',
      softDelete: 'deleted_at',
      fields: { id: { type: 'integer', readOnly: true }, title: { type: 'string' }, owner_id: { type: 'string' } },
      // Users may not read the version: their ETags must not show it.
      access: { fields: { version: { read: ['admin'] } } },
    },
    notes: { version: 'updated_at', fields: { id: { type: 'integer', readOnly: true }, body: { type: 'string' } } },
  },
}
// Two apps on one database stand for two processes behind a load balancer: they share nothing.
const first = await buildApp(config)
const second = await buildApp(config)
await createUser(first, 'admin@example.com')
await createUser(first, 'user@example.com', 'user')
const admin = caller(first, await bearer(first, 'admin@example.com'))
const adminElsewhere = caller(second, await bearer(first, 'admin@example.com'))
const user = caller(first, await bearer(first, 'user@example.com'))
// A first request loads each app's signing keys; statements counted later are the writes' own.
await adminElsewhere('GET', '/api/v1/orders?page_size=1')

async function stored (id: number): Promise<{ title: string, version: number }> {
  const { rows } = await runtimeOf(first).db.app.query('SELECT title, version FROM orders WHERE id = $1', [id])
  return rows[0]
}

test('two new records never share an ETag, and one record\'s ETag does not update another', async () => {
  const a = await admin('POST', '/api/v1/orders', { payload: { title: 'a' } })
  const b = await admin('POST', '/api/v1/orders', { payload: { title: 'b' } })
  assert.equal(a.body.version, b.body.version)
  assert.notEqual(a.body.etag, b.body.etag)
  const crossed = await admin('PATCH', `/api/v1/orders/${b.body.id}`, { payload: { title: 'crossed' }, headers: { 'if-match': a.body.etag } })
  assert.equal(crossed.status, 412)
  assert.equal(crossed.body.type, 'urn:service:problem:precondition-failed')
  assert.deepEqual(await stored(b.body.id), { title: 'b', version: 1 })
})

test('an ETag from one process is verified by another in one guarded UPDATE: no lock, no transaction', async () => {
  const created = await admin('POST', '/api/v1/orders', { payload: { title: 'here' } })
  let answer: Awaited<ReturnType<typeof admin>> | undefined
  const statements = await statementsOf(async () => {
    answer = await adminElsewhere('PATCH', `/api/v1/orders/${created.body.id}`, { payload: { title: 'there' }, headers: { 'if-match': created.body.etag } })
  })
  assert.equal(answer!.status, 200)
  assert.equal(answer!.body.title, 'there')
  assert.deepEqual(kinds(statements), ['UPDATE'])
  assert.match(statements[0]!, /"version" IN \(\$\d+\)/)
  // The first process takes the second's ETag the same way.
  const back = await statementsOf(async () => {
    answer = await admin('PATCH', `/api/v1/orders/${created.body.id}`, { payload: { title: 'back' }, headers: { 'if-match': answer!.body.etag } })
  })
  assert.equal(answer!.status, 200)
  assert.deepEqual(kinds(back), ['UPDATE'])
  assert.deepEqual(await stored(created.body.id), { title: 'back', version: 3 })
})

test('after a restart the ETags issued before still guard in one statement', async () => {
  const created = await admin('POST', '/api/v1/orders', { payload: { title: 'before restart' } })
  const restarted = await buildApp(config)
  const call = caller(restarted, await bearer(first, 'admin@example.com'))
  await call('GET', '/api/v1/orders?page_size=1')
  let status = 0
  const statements = await statementsOf(async () => {
    status = (await call('PATCH', `/api/v1/orders/${created.body.id}`, { payload: { title: 'after restart' }, headers: { 'if-match': created.body.etag } })).status
  })
  assert.equal(status, 200)
  assert.deepEqual(kinds(statements), ['UPDATE'])
})

test('a stale ETag misses the guarded UPDATE, then the locked pipeline answers 412; nothing is written', async () => {
  const created = await admin('POST', '/api/v1/orders', { payload: { title: 'v1' } })
  await admin('PATCH', `/api/v1/orders/${created.body.id}`, { payload: { title: 'v2' }, headers: { 'if-match': created.body.etag } })
  let status = 0
  const statements = await statementsOf(async () => {
    status = (await adminElsewhere('PATCH', `/api/v1/orders/${created.body.id}`, { payload: { title: 'v3' }, headers: { 'if-match': created.body.etag } })).status
  })
  assert.equal(status, 412)
  assert.deepEqual(kinds(statements), ['UPDATE', 'BEGIN', 'SELECT FOR UPDATE', 'ROLLBACK'])
  assert.deepEqual(await stored(created.body.id), { title: 'v2', version: 2 })
})

test('made-up ETags, even well-formed ones, are 412 problems, never a 500', async () => {
  const created = await admin('POST', '/api/v1/orders', { payload: { title: 'forged' } })
  const model = runtimeOf(first).models.get('orders')!
  const etagOf = runtimeOf(first).services.etags.of(model, model.fieldList)
  for (const etag of [
    '"1.0000000000000000"', '"abc"', '""', '"1."', '".1"', '"99999999999999999999.0000000000000000"',
    // Weak tags never match: an If-Match of only weak tags names no version at all.
    'W/"1.0000000000000000"', 'W/"a", W/"b"',
    // A hash that matches its text, but the text is no integer version.
    etagOf({ id: created.body.id, version: 'x) OR (true' }),
    etagOf({ id: created.body.id, version: '2026-01-01T00:00:00.000000Z' }),
  ]) {
    const response = await admin('PATCH', `/api/v1/orders/${created.body.id}`, { payload: { title: 'no' }, headers: { 'if-match': etag } })
    assert.equal(response.status, 412, etag)
    assert.equal(response.body.type, 'urn:service:problem:precondition-failed')
  }
  assert.deepEqual(await stored(created.body.id), { title: 'forged', version: 1 })
})

test('a caller who cannot read the version gets an ETag that does not show it, and it still guards writes', async () => {
  const created = await user('POST', '/api/v1/orders', { payload: { title: 'mine' } })
  assert.equal(created.status, 201)
  assert.equal(created.body.version, undefined)
  assert.match(created.body.etag, /^"[A-Za-z0-9_-]{22}"$/)
  assert.doesNotMatch(created.body.etag, /\./)
  const adminView = await admin('GET', `/api/v1/orders/${created.body.id}`)
  assert.notEqual(adminView.body.etag, created.body.etag)
  // Same version, same ETag for this caller: the hash does not move on its own.
  assert.equal((await user('GET', `/api/v1/orders/${created.body.id}`)).body.etag, created.body.etag)
  let updated: Awaited<ReturnType<typeof user>> | undefined
  const statements = await statementsOf(async () => {
    updated = await user('PATCH', `/api/v1/orders/${created.body.id}`, { payload: { title: 'mine 2' }, headers: { 'if-match': created.body.etag } })
  })
  assert.equal(updated!.status, 200)
  assert.notEqual(updated!.body.etag, created.body.etag)
  // Its ETag hides the version, so only the lock can compare it.
  assert.deepEqual(kinds(statements), ['BEGIN', 'SELECT FOR UPDATE', 'UPDATE', 'COMMIT'])
  const stale = await user('PATCH', `/api/v1/orders/${created.body.id}`, { payload: { title: 'mine 3' }, headers: { 'if-match': created.body.etag } })
  assert.equal(stale.status, 412)
  // An admin's ETag (showing the version) is not the user's ETag of the record.
  const withAdminEtag = await user('PATCH', `/api/v1/orders/${created.body.id}`, { payload: { title: 'mine 4' }, headers: { 'if-match': (await admin('GET', `/api/v1/orders/${created.body.id}`)).body.etag } })
  assert.equal(withAdminEtag.status, 412)
})

test('updated_at versions carry their exact microsecond text and guard in one statement too', async () => {
  const created = await admin('POST', '/api/v1/notes', { payload: { body: 'n' } })
  assert.match(created.body.etag, /^"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z\.[0-9a-f]{16}"$/)
  assert.ok(created.body.etag.startsWith(`"${created.body.updated_at}.`))
  let status = 0
  const statements = await statementsOf(async () => {
    status = (await adminElsewhere('PATCH', `/api/v1/notes/${created.body.id}`, { payload: { body: 'm' }, headers: { 'if-match': created.body.etag } })).status
  })
  assert.equal(status, 200)
  assert.deepEqual(kinds(statements), ['UPDATE'])
})
