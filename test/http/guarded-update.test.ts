// Updates that run as one guarded statement (version ETag known, no hooks, no record check) must
// answer exactly as the full pipeline does: every miss falls back to it for the right problem.
import { test } from 'node:test'
import { runtimeOf } from '../../lib/runtime.js'
import assert from 'node:assert/strict'
import { freshDatabase, runSql } from '../helpers/db.js'
import { buildApp, createUser, bearer, caller, usersOf } from '../helpers/app.js'

const databaseUrl = await freshDatabase()
await runSql(databaseUrl, `
  CREATE TABLE orders (id serial PRIMARY KEY, title text NOT NULL, status text NOT NULL DEFAULT 'open', owner_id text, version integer NOT NULL DEFAULT 1, deleted_at timestamptz);
  -- A trigger that hands a row to someone else: the update rule must still judge the row as written.
  CREATE TABLE handed (LIKE orders INCLUDING ALL);
  CREATE FUNCTION hand_over() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN IF NEW.title = 'hand over' THEN NEW.owner_id := 'someone-else'; END IF; RETURN NEW; END $$;
  CREATE TRIGGER hand_over BEFORE UPDATE ON handed FOR EACH ROW EXECUTE FUNCTION hand_over();
`)
const fields = { id: { type: 'integer', readOnly: true }, title: { type: 'string' }, status: { type: 'string' }, owner_id: { type: 'string' } } as const
const app = await buildApp({
  databaseUrl,
  resources: {
    orders: {
      owner: 'owner_id',
      version: 'version',
      softDelete: 'deleted_at',
      fields,
      access: { update: (ctx) => ({ filter: `owner_id = "${ctx.user.id}" AND status != "locked"` }), delete: (ctx) => ({ filter: { owner_id: ctx.user.id } }) },
    },
    handed: { version: 'version', fields, access: { update: (ctx) => ({ filter: { owner_id: ctx.user.id } }) } },
  },
})
await createUser(app, 'admin@example.com')
await createUser(app, 'ann@example.com', 'user')
await createUser(app, 'bob@example.com', 'user')
const ann = caller(app, await bearer(app, 'ann@example.com'))
const annId = (await usersOf(app).findByEmail('ann@example.com'))!.id
const bob = caller(app, await bearer(app, 'bob@example.com'))

async function stored (id: number): Promise<{ title: string, status: string, version: number }> {
  const { rows } = await runtimeOf(app).db.app.query('SELECT title, status, version FROM orders WHERE id = $1', [id])
  return rows[0]
}

async function created (title: string): Promise<{ id: number, etag: string }> {
  const response = await ann('POST', '/api/v1/orders', { payload: { title, owner_id: annId } })
  assert.equal(response.status, 201)
  return response.body
}

test('a current etag writes once; the same etag again is 412 and writes nothing', async () => {
  const order = await created('first')
  const updated = await ann('PATCH', `/api/v1/orders/${order.id}`, { payload: { title: 'second' }, headers: { 'if-match': order.etag } })
  assert.equal(updated.status, 200)
  assert.equal(updated.body.title, 'second')
  assert.equal(updated.headers.etag, updated.body.etag)
  assert.notEqual(updated.body.etag, order.etag)
  const stale = await ann('PATCH', `/api/v1/orders/${order.id}`, { payload: { title: 'third' }, headers: { 'if-match': order.etag } })
  assert.equal(stale.status, 412)
  assert.equal(stale.body.type, 'urn:service:problem:precondition-failed')
  assert.deepEqual(await stored(order.id), { title: 'second', status: 'open', version: 2 })
  const either = await ann('PATCH', `/api/v1/orders/${order.id}`, { payload: { title: 'fourth' }, headers: { 'if-match': `${order.etag}, ${updated.body.etag}` } })
  assert.equal(either.status, 200)
})

test('if-match * writes any version; an etag never issued is 412; none is 428', async () => {
  const order = await created('any')
  assert.equal((await ann('PATCH', `/api/v1/orders/${order.id}`, { payload: { title: 'star' }, headers: { 'if-match': '*' } })).status, 200)
  const unknown = await ann('PATCH', `/api/v1/orders/${order.id}`, { payload: { title: 'x' }, headers: { 'if-match': '"0123456789abcdef0123456789abcdef"' } })
  assert.equal(unknown.status, 412)
  const missing = await ann('PATCH', `/api/v1/orders/${order.id}`, { payload: { title: 'x' } })
  assert.equal(missing.status, 428)
  assert.deepEqual(await stored(order.id), { title: 'star', status: 'open', version: 2 })
})

test('a record outside the update rule is not found, whatever the etag', async () => {
  const order = await created('ann only')
  const refused = await bob('PATCH', `/api/v1/orders/${order.id}`, { payload: { title: 'bob was here' }, headers: { 'if-match': order.etag } })
  assert.equal(refused.status, 404)
  assert.equal(refused.body.type, 'urn:service:problem:not-found')
  assert.deepEqual(await stored(order.id), { title: 'ann only', status: 'open', version: 1 })
})

test('an update that would take the record outside the update rule is refused and writes nothing', async () => {
  const order = await created('to lock')
  const refused = await ann('PATCH', `/api/v1/orders/${order.id}`, { payload: { status: 'locked' }, headers: { 'if-match': order.etag } })
  assert.equal(refused.status, 403)
  assert.equal(refused.body.type, 'urn:service:problem:access-denied')
  assert.deepEqual(await stored(order.id), { title: 'to lock', status: 'open', version: 1 })
  const handed = await ann('PATCH', `/api/v1/orders/${order.id}`, { payload: { owner_id: 'someone-else' }, headers: { 'if-match': order.etag } })
  assert.equal(handed.status, 403)
})

test('a soft-deleted record cannot be updated', async () => {
  const order = await created('gone')
  assert.equal((await ann('DELETE', `/api/v1/orders/${order.id}`, { headers: { 'if-match': order.etag } })).status, 204)
  const deleted = await ann('GET', `/api/v1/orders/${order.id}?show_deleted=true`)
  const refused = await ann('PATCH', `/api/v1/orders/${order.id}`, { payload: { title: 'back?' }, headers: { 'if-match': deleted.body.etag } })
  assert.equal(refused.status, 404)
  assert.equal((await stored(order.id)).title, 'gone')
})

test('of concurrent updates with one etag, exactly one wins', async () => {
  const order = await created('race')
  const answers = await Promise.all(Array.from({ length: 8 }, async (_, i) => await ann('PATCH', `/api/v1/orders/${order.id}`, { payload: { title: `racer ${i}` }, headers: { 'if-match': order.etag } })))
  assert.deepEqual(answers.map((a) => a.status).sort(), [200, 412, 412, 412, 412, 412, 412, 412])
  assert.equal((await stored(order.id)).version, 2)
})

test('a trigger that moves the row outside the update rule is caught on the row as written', async () => {
  const made = await ann('POST', '/api/v1/handed', { payload: { title: 'mine', owner_id: annId } })
  assert.equal(made.status, 201)
  const refused = await ann('PATCH', `/api/v1/handed/${made.body.id}`, { payload: { title: 'hand over' }, headers: { 'if-match': made.body.etag } })
  assert.equal(refused.status, 403)
  assert.equal(refused.body.type, 'urn:service:problem:access-denied')
  const { rows } = await runtimeOf(app).db.app.query('SELECT title, owner_id, version FROM handed WHERE id = $1', [made.body.id])
  assert.deepEqual(rows, [{ title: 'mine', owner_id: annId, version: 1 }])
  assert.equal(app.tablegate.models.get('handed')?.rewritesUpdates, true)
  assert.equal(app.tablegate.models.get('orders')?.rewritesUpdates, false)
})
