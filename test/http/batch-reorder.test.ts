// The batch's reorder: positions 1, 2, 3, ... in the order of keys, written only where they change,
// each an ordinary update (ETag checked before anything moves, one version bump, hooks see it),
// with values set aside first where a unique index covers the field: above the range, or below
// it when a check constraint refuses that.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { freshDatabase, runSql, withClient } from '../helpers/db.js'
import { buildApp, createUser, bearer, caller } from '../helpers/app.js'
import type { WriteEvent } from '../../lib/index.js'

const databaseUrl = await freshDatabase()
await runSql(databaseUrl, `
  CREATE TABLE cards (id serial PRIMARY KEY, title text NOT NULL, position integer NOT NULL UNIQUE, rank integer, version integer NOT NULL DEFAULT 1);
  CREATE TABLE tasks (id serial PRIMARY KEY, tenant_id text NOT NULL, position integer NOT NULL, UNIQUE (tenant_id, position));
  CREATE TABLE steps (id serial PRIMARY KEY, position integer NOT NULL UNIQUE CHECK (position <= 10), version integer NOT NULL DEFAULT 1);
  CREATE TABLE plain (id serial PRIMARY KEY, position integer NOT NULL UNIQUE, title text);
  INSERT INTO cards (title, position, rank) VALUES ('a', 1, 1), ('b', 2, 2), ('c', 3, 3), ('d', 4, 4);
  INSERT INTO tasks (tenant_id, position) VALUES ('t1', 1), ('t1', 2), ('t2', 1), ('t2', 2);
  INSERT INTO steps (position) VALUES (1), (2), (3), (10);
  INSERT INTO plain (position, title) VALUES (1, 'x'), (2, 'y');
`)
const integerId = { type: 'integer', readOnly: true } as const
const app = await buildApp({
  databaseUrl,
  tenant: 't1',
  resources: {
    cards: { version: 'version', fields: { id: integerId, title: { type: 'string' }, position: { type: 'integer' }, rank: { type: 'integer' } }, access: { fields: { rank: { read: ['admin'] } } } },
    tasks: { tenant: 'tenant_id', fields: { id: integerId, position: { type: 'integer' } } },
    steps: { version: 'version', fields: { id: integerId, position: { type: 'integer' } } },
    plain: { fields: { id: integerId, position: { type: 'integer' }, title: { type: 'string' } } },
  },
})
const events: WriteEvent[] = []
app.tablegate.addWriteHook(async function record (event) { events.push(event) })
await createUser(app, 'admin@example.com')
await createUser(app, 'user@example.com', 'user')
const admin = caller(app, await bearer(app, 'admin@example.com'))
const user = caller(app, await bearer(app, 'user@example.com'))

async function listed (resource: string): Promise<Array<{ id: number, position: number, etag: string, version?: number }>> {
  return (await admin('GET', `/api/v1/${resource}?order_by=id&page_size=100`)).body.items
}

async function reorder (resource: string, ids: number[], etags: Record<string, string>, as = admin, field = 'position'): Promise<{ status: number, body: any }> {
  return await as('POST', '/api/v1:batchWrite', { payload: { ops: [{ op: 'reorder', resource, field, keys: ids, etags }] } })
}

const etagsOf = (rows: Array<{ id: number, etag: string }>): Record<string, string> => Object.fromEntries(rows.map((r) => [String(r.id), r.etag]))

test('a reorder on a unique, non-deferrable index writes only what changes, each once, ETags checked first', async () => {
  const before = await listed('cards')
  events.length = 0
  // d, a, b, c: every card moves but... none keeps its place.
  const answer = await reorder('cards', [4, 1, 2, 3], etagsOf(before))
  assert.equal(answer.status, 200, JSON.stringify(answer.body))
  const after = await listed('cards')
  assert.deepEqual(after.map((c) => [c.id, c.position, c.version]), [[1, 2, 2], [2, 3, 2], [3, 4, 2], [4, 1, 2]])
  assert.deepEqual(answer.body.results[0].records, [4, 1, 2, 3].map((id) => ({ key: String(id), etag: after.find((c) => c.id === id)!.etag })))
  // Hooks saw each update with the stored record from before the reorder, never the set-aside value.
  assert.deepEqual(events.map((e) => [e.operation, e.before?.position, e.after?.position]), [['update', 4, 1], ['update', 1, 2], ['update', 2, 3], ['update', 3, 4]])
  // Only the records that change are written: swapping back the last two touches two.
  const again = await reorder('cards', [4, 1, 3, 2], etagsOf(after))
  assert.equal(again.status, 200)
  assert.deepEqual((await listed('cards')).map((c) => [c.id, c.position, c.version]), [[1, 2, 2], [2, 4, 3], [3, 3, 3], [4, 1, 2]])
})

test('a stale etag anywhere refuses the whole reorder with 412, nothing moved', async () => {
  const before = await listed('cards')
  const etags = etagsOf(before)
  etags['2'] = '"1.0000000000000000"'
  const answer = await reorder('cards', [1, 2, 3, 4], etags)
  assert.equal(answer.status, 412)
  assert.equal(answer.body.type, 'urn:service:problem:precondition-failed')
  assert.equal(answer.body.operation, 0)
  assert.equal(answer.body.op, 'reorder')
  assert.deepEqual(await listed('cards'), before)
  const missing = await reorder('cards', [1, 2, 3, 4], { 1: before[0]!.etag })
  assert.equal(missing.status, 428)
})

test('an index per tenant: the caller\'s tenant is reordered, the other left alone', async () => {
  const before = await listed('tasks')
  const answer = await reorder('tasks', [2, 1], etagsOf(before))
  assert.equal(answer.status, 200, JSON.stringify(answer.body))
  assert.deepEqual((await listed('tasks')).map((t) => [t.id, t.position]), [[1, 2], [2, 1]])
  const other = await withClient(databaseUrl, async (c) => (await c.query("SELECT id, position FROM tasks WHERE tenant_id = 't2' ORDER BY id")).rows)
  assert.deepEqual(other, [{ id: 3, position: 1 }, { id: 4, position: 2 }])
  // A record of another tenant does not exist for the caller.
  const foreign = await reorder('tasks', [3, 1], { 3: '*', 1: '*' })
  assert.equal(foreign.status, 404)
})

test('a check constraint that refuses values above the range sends them below it', async () => {
  const before = await listed('steps')
  const answer = await reorder('steps', [3, 2, 1], etagsOf(before.slice(0, 3)))
  assert.equal(answer.status, 200, JSON.stringify(answer.body))
  assert.deepEqual((await listed('steps')).map((s) => [s.id, s.position, s.version]), [[1, 3, 2], [2, 2, 1], [3, 1, 2], [4, 10, 1]])
})

test('without a version column the ETags (which cover the field) are checked before the move', async () => {
  const before = await listed('plain')
  const answer = await reorder('plain', [2, 1], etagsOf(before))
  assert.equal(answer.status, 200, JSON.stringify(answer.body))
  assert.deepEqual((await listed('plain')).map((p) => [p.id, p.position]), [[1, 2], [2, 1]])
})

test('the field must be an integer the caller can write; every key must exist', async () => {
  const cards = await listed('cards')
  const hidden = await reorder('cards', [1, 2], etagsOf(cards), user, 'rank')
  const unknown = await reorder('cards', [1, 2], etagsOf(cards), user, 'nothing')
  assert.equal(hidden.status, 400)
  assert.equal(hidden.body.type, 'urn:service:problem:invalid-parameter')
  assert.equal(hidden.body.detail.replace('rank', 'X'), unknown.body.detail.replace('nothing', 'X'))
  const text = await reorder('cards', [1, 2], etagsOf(cards), admin, 'title')
  assert.equal(text.status, 400)
  assert.match(text.body.detail, /integer field/)
  const gone = await reorder('cards', [1, 99], { 1: '*', 99: '*' })
  assert.equal(gone.status, 404)
  assert.equal(gone.body.operation, 0)
  assert.deepEqual(await listed('cards'), cards)
})
