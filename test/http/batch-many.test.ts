// Consecutive creates of one resource that no hook hears of are one INSERT of many rows, proven by
// the statements sent (a batch that is only such a run is that one statement, without BEGIN and
// COMMIT); a failure inside such a run is still named by its own operation.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { freshDatabase, runSql, withClient } from '../helpers/db.js'
import { buildApp, createUser, bearer, caller, usersOf } from '../helpers/app.js'
import { kinds, statementsOf } from '../helpers/statements.js'
import { query, sql } from '../../lib/index.js'

const databaseUrl = await freshDatabase()
await runSql(databaseUrl, `
  CREATE TABLE items (id serial PRIMARY KEY, title text NOT NULL, code text UNIQUE, qty integer NOT NULL DEFAULT 1);
  CREATE TABLE mine (id serial PRIMARY KEY, title text NOT NULL, owner_id text NOT NULL);
  CREATE TYPE mood AS ENUM ('calm', 'busy');
  CREATE TABLE typed (id bigserial PRIMARY KEY, doc jsonb, at timestamptz, amount numeric(12, 2), mood mood, ok boolean, ref uuid, day date);
`)
const app = await buildApp({
  databaseUrl,
  roles: { admin: ['*'], user: ['items.*', 'typed.*', 'mine.read.own', 'mine.create.own'] },
  resources: {
    items: { fields: { id: { type: 'integer', readOnly: true }, title: { type: 'string', required: true }, code: { type: 'string' }, qty: { type: 'integer', dbDefault: true } } },
    typed: {
      fields: {
        id: { type: 'bigint', readOnly: true }, doc: { type: 'json' }, at: { type: 'timestamp' }, amount: { type: 'decimal' },
        mood: { type: 'string', enum: ['calm', 'busy'] }, ok: { type: 'boolean' }, ref: { type: 'uuid' }, day: { type: 'date' },
      },
    },
    mine: { owner: 'owner_id', fields: { id: { type: 'integer', readOnly: true }, title: { type: 'string', required: true }, owner_id: { type: 'string' } } },
  },
})
await createUser(app, 'admin@example.com')
await createUser(app, 'ann@example.com', 'user')
const ann = caller(app, await bearer(app, 'ann@example.com'))
const annId = (await usersOf(app).findByEmail('ann@example.com'))!.id
await ann('GET', '/api/v1/items?page_size=1')

const creates = (n: number, data: (i: number) => Record<string, unknown> = (i) => ({ title: `item ${i}` }), resource = 'items') =>
  Array.from({ length: n }, (_, i) => ({ op: 'create', resource, data: data(i) }))

async function count (table: string): Promise<number> {
  return await withClient(databaseUrl, async (c) => (await c.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`)).rows[0]!.n)
}

test('100 creates are one INSERT, with no transaction around it, answered in order with their records, permissions and etags', async () => {
  let answer: Awaited<ReturnType<typeof ann>> | undefined
  const statements = await statementsOf(async () => {
    answer = await ann('POST', '/api/v1:batchWrite', { payload: { ops: creates(100, (i) => ({ title: `item ${i}`, ...(i % 2 === 0 ? { qty: i } : {}) })) } })
  })
  assert.equal(answer!.status, 200, JSON.stringify(answer!.body))
  assert.deepEqual(kinds(statements), ['INSERT'])
  const results = answer!.body.results
  assert.equal(results.length, 100)
  results.forEach((r: { record: { title: string, qty: number, etag: string, permissions: object }, etag: string }, i: number) => {
    assert.equal(r.record.title, `item ${i}`)
    assert.equal(r.record.qty, i % 2 === 0 ? i : 1)
    assert.equal(r.record.etag, r.etag)
    assert.deepEqual(Object.keys(r.record.permissions), ['update', 'delete', 'fields'])
  })
  const got = await ann('GET', `/api/v1/items/${results[42].record.id}`)
  assert.deepEqual(got.body, results[42].record)
})

test('a unique violation inside a run is named by its own operation (the batch runs again one by one), and nothing is written', async () => {
  const before = await count('items')
  const ops = creates(60, (i) => ({ title: `coded ${i}`, code: i === 57 ? 'c-3' : `c-${i}` }))
  let answer: Awaited<ReturnType<typeof ann>> | undefined
  const statements = await statementsOf(async () => { answer = await ann('POST', '/api/v1:batchWrite', { payload: { ops } }) })
  assert.deepEqual(kinds(statements), ['INSERT', 'BEGIN', ...Array<string>(58).fill('INSERT'), 'ROLLBACK'])
  assert.equal(answer!.status, 409)
  assert.equal(answer!.body.type, 'urn:service:problem:conflict')
  assert.equal(answer!.body.operation, 57)
  assert.equal(answer!.body.op, 'create')
  assert.equal(await count('items'), before)
})

test('a run among other operations is one INSERT inside the batch\'s transaction; a failing run is undone with the rest', async () => {
  const before = await count('items')
  const ops = [...creates(5, (i) => ({ title: `mixed ${i}`, code: `mixed-${i}` })), { op: 'create', resource: 'mine', data: { title: 'after' } }]
  let answer: Awaited<ReturnType<typeof ann>> | undefined
  let statements = await statementsOf(async () => { answer = await ann('POST', '/api/v1:batchWrite', { payload: { ops } }) })
  assert.equal(answer!.status, 200, JSON.stringify(answer!.body))
  assert.deepEqual(kinds(statements), ['BEGIN', 'INSERT', 'INSERT', 'COMMIT'])
  const clash = [{ op: 'create', resource: 'mine', data: { title: 'first' } }, ...creates(5, (i) => ({ title: `again ${i}`, code: `mixed-${4 - i}` }))]
  statements = await statementsOf(async () => { answer = await ann('POST', '/api/v1:batchWrite', { payload: { ops: clash } }) })
  assert.deepEqual(kinds(statements), ['BEGIN', 'INSERT', 'INSERT', 'ROLLBACK', 'BEGIN', 'INSERT', 'INSERT', 'ROLLBACK'])
  assert.equal(answer!.status, 409)
  assert.equal(answer!.body.operation, 1)
  assert.equal(await count('items'), before + 5)
})

test('a body that fails inside a run is named by its operation after the creates before it, which a database failure would be', async () => {
  const ops = creates(4, (i) => (i === 1 ? { title: 'dup', code: 'mixed-0' } : i === 3 ? { title: 7 } : { title: `x${i}` }))
  const answer = await ann('POST', '/api/v1:batchWrite', { payload: { ops } })
  assert.equal(answer.status, 409, JSON.stringify(answer.body))
  assert.equal(answer.body.operation, 1)
})

test('.own creates in a run: the owner is filled in; a row owned by someone else is a 403 naming its operation', async () => {
  const fine = await ann('POST', '/api/v1:batchWrite', { payload: { ops: creates(3, (i) => ({ title: `m${i}` }), 'mine') } })
  assert.equal(fine.status, 200, JSON.stringify(fine.body))
  assert.deepEqual(fine.body.results.map((r: { record: { owner_id: string } }) => r.record.owner_id), [annId, annId, annId])
  const before = await count('mine')
  const foreign = await ann('POST', '/api/v1:batchWrite', { payload: { ops: creates(3, (i) => ({ title: `m${i}`, ...(i === 1 ? { owner_id: 'someone-else' } : {}) }), 'mine') } })
  assert.equal(foreign.status, 403)
  assert.equal(foreign.body.type, 'urn:service:problem:access-denied')
  assert.equal(foreign.body.operation, 1)
  assert.equal(await count('mine'), before)
})

test('a create naming a record created earlier in the same run starts a new INSERT', async () => {
  const ops = [
    { op: 'create', resource: 'items', data: { title: 'parent' }, ref: 'p' },
    { op: 'create', resource: 'items', data: { title: { $ref: 'p', field: 'title' } } },
  ]
  let answer: Awaited<ReturnType<typeof ann>> | undefined
  const statements = await statementsOf(async () => { answer = await ann('POST', '/api/v1:batchWrite', { payload: { ops } }) })
  assert.equal(answer!.status, 200)
  assert.equal(answer!.body.results[1].record.title, 'parent')
  assert.deepEqual(kinds(statements), ['BEGIN', 'INSERT', 'INSERT', 'COMMIT'])
})

test('rows that set the same fields travel as one JSON parameter, every field type intact', async () => {
  const data = (i: number) => ({
    doc: { n: i, list: [1, 'two', null], nested: { ok: true } },
    at: `2026-01-0${i + 1}T10:20:30.123456Z`,
    amount: `${i + 1}2.50`,
    mood: i % 2 === 0 ? 'calm' : 'busy',
    ok: i % 2 === 0,
    ref: `00000000-0000-4000-8000-00000000000${i}`,
    day: `2026-02-0${i + 1}`,
  })
  let answer: Awaited<ReturnType<typeof ann>> | undefined
  const statements = await statementsOf(async () => {
    answer = await ann('POST', '/api/v1:batchWrite', { payload: { ops: creates(3, data, 'typed') } })
  })
  assert.equal(answer!.status, 200, JSON.stringify(answer!.body))
  assert.match(statements.find((s) => s.startsWith('INSERT'))!, /json_populate_recordset\(NULL::"typed", \$1::json\)/)
  for (const [i, result] of answer!.body.results.entries()) {
    const { id, etag, permissions, ...stored } = result.record
    assert.deepEqual(stored, data(i))
    assert.deepEqual((await ann('GET', `/api/v1/typed/${id}`)).body, result.record)
    void etag
    void permissions
  }
})

test('the statement timeout covers the whole batch: an operation that would start past it is a 504 naming it', async () => {
  // Each operation's hook sleeps 0.6 s, inside the 1 s timeout by 0.4 s; two of them end past it
  // whatever the load, so the third is the one that would start too late.
  const slowApp = await buildApp({ databaseUrl, statementTimeoutMs: 1000, resources: { items: { fields: { id: { type: 'integer', readOnly: true }, title: { type: 'string', required: true } } } } })
  slowApp.tablegate.addWriteHook(async function takesItsTime (_event, tx) { await query(tx, sql`SELECT pg_sleep(0.6)`) }, { resources: ['items'] })
  // The apps share their database, so the user created through the first one exists here too.
  const slowCall = caller(slowApp, await bearer(slowApp, 'admin@example.com'))
  const before = await count('items')
  const answer = await slowCall('POST', '/api/v1:batchWrite', { payload: { ops: creates(3) } })
  assert.equal(answer.status, 504)
  assert.equal(answer.body.type, 'urn:service:problem:statement-timeout')
  assert.equal(answer.body.operation, 2)
  assert.equal(await count('items'), before)
})
