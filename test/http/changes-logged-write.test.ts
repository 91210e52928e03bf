// A write of a resource with a change log records its row in the write's own statement
// (docs/decisions.md, "The logged write"): a create and an If-Match update are one statement with
// no transaction around them, as they are without a log; the log's images are the rows before and
// after each write, also when writers race for one row; a write refused or rolled back records
// nothing; the pipeline's transaction (a hook, a delete) still records each write in it; a batch's
// creates stay one INSERT. The log carries no index that only cost writes.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { runtimeOf } from '../../lib/runtime.js'
import { migrateChangeLog } from '../../lib/changes/log.js'
import { freshDatabase, runSql } from '../helpers/db.js'
import { buildApp, createUser, bearer, caller } from '../helpers/app.js'
import { kinds, statementsOf } from '../helpers/statements.js'

const databaseUrl = await freshDatabase()
await runSql(databaseUrl, `
  CREATE TABLE items (id serial PRIMARY KEY, title text NOT NULL, version integer NOT NULL DEFAULT 1, deleted_at timestamptz);
  CREATE TABLE hooked (id serial PRIMARY KEY, title text NOT NULL);
  CREATE TABLE kinds (id serial PRIMARY KEY, name text NOT NULL);
  CREATE TABLE typed (id serial PRIMARY KEY, title text NOT NULL, kind_id integer REFERENCES kinds, version integer NOT NULL DEFAULT 1);
  INSERT INTO kinds (name) VALUES ('first');
  -- Named as a statement's own CTEs might be.
  CREATE TABLE stored (id serial PRIMARY KEY, title text NOT NULL, version integer NOT NULL DEFAULT 1);
  CREATE TABLE written (LIKE stored INCLUDING ALL);
`)
const fields = { id: { type: 'integer', readOnly: true }, title: { type: 'string' } } as const
const app = await buildApp({
  databaseUrl,
  changes: { pollMs: 100 },
  resources: {
    items: { version: 'version', softDelete: 'deleted_at', changes: {}, fields },
    hooked: { changes: {}, fields },
    kinds: { fields: { id: { type: 'integer', readOnly: true }, name: { type: 'string' } }, access: { read: () => ({ filter: { name: 'first' } }) } },
    typed: { version: 'version', changes: {}, fields: { ...fields, kind_id: { type: 'integer', references: 'kinds' } } },
    stored: { version: 'version', changes: {}, fields },
    written: { version: 'version', changes: {}, fields },
  },
})
let refuse = false
app.tablegate.addWriteHook(async () => { if (refuse) throw new Error('refused') }, { resources: ['hooked'] })
await createUser(app, 'admin@example.com')
const admin = caller(app, await bearer(app, 'admin@example.com'))
// The first request reads the signing keys: none of a write's doing.
assert.equal((await admin('GET', '/api/v1/items')).status, 200)

interface Logged { before: Record<string, unknown> | null, after: Record<string, unknown> | null }

/** The log's rows of one resource's row, in the order they were written. */
async function logOf (resource: string, id: number): Promise<Logged[]> {
  const { rows } = await runtimeOf(app).db.app.query<Logged>(`SELECT before, after FROM tablegate_changes.log
    WHERE resource = $1 AND coalesce(after, before)->>'id' = $2 ORDER BY at, id`, [resource, String(id)])
  return rows
}

/** The statements of a request, but the NOTIFY sent after its commit. */
const written = (statements: string[]): string[] => kinds(statements.filter((text) => !text.includes('pg_notify')))

test('a logged create and an If-Match update are one statement each, and log the rows before and after', async () => {
  let created: { id: number, etag: string } | undefined
  assert.deepEqual(written(await statementsOf(async () => { created = (await admin('POST', '/api/v1/items', { payload: { title: 'one' } })).body })), ['WITH'])
  let status = 0
  assert.deepEqual(written(await statementsOf(async () => { status = (await admin('PATCH', `/api/v1/items/${created!.id}`, { payload: { title: 'two' }, headers: { 'if-match': created!.etag } })).status })), ['WITH'])
  assert.equal(status, 200)
  const one = { id: created!.id, title: 'one', version: 1, deleted_at: null }
  assert.deepEqual(await logOf('items', created!.id), [
    { before: null, after: one },
    { before: one, after: { ...one, title: 'two', version: 2 } },
  ])
})

test('a table named as the statement\'s CTEs might be is written and logged like any other', async () => {
  for (const resource of ['stored', 'written']) {
    const made = await admin('POST', `/api/v1/${resource}`, { payload: { title: 'one' } })
    assert.equal(made.status, 201, JSON.stringify(made.body))
    const moved = await admin('PATCH', `/api/v1/${resource}/${made.body.id}`, { payload: { title: 'two' }, headers: { 'if-match': made.body.etag } })
    assert.equal(moved.status, 200, JSON.stringify(moved.body))
    assert.deepEqual((await logOf(resource, made.body.id)).map((l) => [l.before?.title ?? null, l.after?.title]), [[null, 'one'], ['one', 'two']])
  }
})

test('updates that race for one row each log the row they wrote over', async () => {
  const { id } = (await admin('POST', '/api/v1/items', { payload: { title: 'race' } })).body
  const answers = await Promise.all(Array.from({ length: 8 }, async (_, i) =>
    await admin('PATCH', `/api/v1/items/${id}`, { payload: { title: `racer ${i}` }, headers: { 'if-match': '*' } })))
  assert.deepEqual(answers.map((a) => a.status), Array(8).fill(200))
  const log = await logOf('items', id)
  assert.equal(log.length, 9)
  for (let i = 1; i < log.length; i++) {
    assert.deepEqual(log[i]!.before, log[i - 1]!.after)
    assert.equal(log[i]!.after!.version, i + 1)
  }
})

test('a stale etag (412), none (428), a missing row (404) and a reference the caller cannot name (400) log nothing', async () => {
  const made = (await admin('POST', '/api/v1/typed', { payload: { title: 'a', kind_id: 1 } })).body
  const moved = await admin('PATCH', `/api/v1/typed/${made.id}`, { payload: { title: 'b' }, headers: { 'if-match': made.etag } })
  assert.equal(moved.status, 200)
  assert.equal((await admin('PATCH', `/api/v1/typed/${made.id}`, { payload: { title: 'c' }, headers: { 'if-match': made.etag } })).status, 412)
  assert.equal((await admin('PATCH', `/api/v1/typed/${made.id}`, { payload: { title: 'c' } })).status, 428)
  assert.equal((await admin('PATCH', '/api/v1/typed/999999', { payload: { title: 'c' }, headers: { 'if-match': '*' } })).status, 404)
  await runSql(databaseUrl, "INSERT INTO kinds (name) VALUES ('second')")
  const unreadable = await admin('PATCH', `/api/v1/typed/${made.id}`, { payload: { kind_id: 2 }, headers: { 'if-match': moved.body.etag } })
  assert.equal(unreadable.status, 400)
  assert.equal(unreadable.body.errors[0].code, 'not-found')
  const refusedCreate = await admin('POST', '/api/v1/typed', { payload: { title: 'never', kind_id: 2 } })
  assert.equal(refusedCreate.status, 400)
  assert.deepEqual((await logOf('typed', made.id)).map((l) => l.after?.title), ['a', 'b'])
  const { rows } = await runtimeOf(app).db.app.query("SELECT count(*)::int AS n FROM tablegate_changes.log WHERE resource = 'typed' AND after->>'title' = 'never'")
  assert.deepEqual(rows, [{ n: 0 }])
})

test('in the pipeline\'s transaction: a hooked write logs with it, a hook that throws leaves no log row', async () => {
  const made = (await admin('POST', '/api/v1/hooked', { payload: { title: 'kept' } })).body
  refuse = true
  const refused = await admin('PATCH', `/api/v1/hooked/${made.id}`, { payload: { title: 'never' }, headers: { 'if-match': made.etag } })
  refuse = false
  assert.equal(refused.status, 500)
  assert.deepEqual(await logOf('hooked', made.id), [{ before: null, after: { id: made.id, title: 'kept' } }])
  const deleted = await admin('DELETE', `/api/v1/hooked/${made.id}`, { headers: { 'if-match': made.etag } })
  assert.equal(deleted.status, 204)
  assert.deepEqual(await logOf('hooked', made.id), [
    { before: null, after: { id: made.id, title: 'kept' } },
    { before: { id: made.id, title: 'kept' }, after: null },
  ])
})

test('a soft delete and an undelete log the row before and after, in their transaction', async () => {
  const made = (await admin('POST', '/api/v1/items', { payload: { title: 'soft' } })).body
  assert.equal((await admin('DELETE', `/api/v1/items/${made.id}`, { headers: { 'if-match': made.etag } })).status, 204)
  assert.equal((await admin('POST', `/api/v1/items/${made.id}:undelete`, {})).status, 200)
  const log = await logOf('items', made.id)
  assert.deepEqual(log.map((l) => [l.before?.version ?? null, l.before?.deleted_at === null, l.after!.version, l.after!.deleted_at === null]), [
    [null, false, 1, true],
    [1, true, 2, false],
    [2, false, 3, true],
  ])
})

test('consecutive creates of a :batchWrite are one INSERT of many rows that logs each, in order, in one transaction', async () => {
  const ops = ['b1', 'b2', 'b3'].map((title) => ({ op: 'create', resource: 'items', data: { title } }))
  let answer: Awaited<ReturnType<typeof admin>> | undefined
  assert.deepEqual(written(await statementsOf(async () => { answer = await admin('POST', '/api/v1:batchWrite', { payload: { ops } }) })), ['WITH'])
  assert.equal(answer!.status, 200, JSON.stringify(answer!.body))
  const ids = answer!.body.results.map((r: { record: { id: number, title: string } }) => r.record.id)
  assert.deepEqual(answer!.body.results.map((r: { record: { title: string } }) => r.record.title), ['b1', 'b2', 'b3'])
  const { rows } = await runtimeOf(app).db.app.query<{ tx: string, after: { id: number, title: string } }>(
    "SELECT tx::text, after FROM tablegate_changes.log WHERE resource = 'items' AND (after->>'id')::int = ANY ($1) ORDER BY id", [ids])
  assert.deepEqual(rows.map((r) => [r.after.id, r.after.title]), [[ids[0], 'b1'], [ids[1], 'b2'], [ids[2], 'b3']])
  assert.equal(new Set(rows.map((r) => r.tx)).size, 1)
})

test('the log is indexed by its key and by resource only; migrating drops the index on at an earlier log had', async () => {
  const db = runtimeOf(app).db.app
  const indexes = async (): Promise<string[]> => (await db.query<{ indexname: string }>("SELECT indexname FROM pg_indexes WHERE schemaname = 'tablegate_changes' AND tablename = 'log' ORDER BY 1")).rows.map((r) => r.indexname)
  assert.deepEqual(await indexes(), ['log_pkey', 'log_resource'])
  await db.query('CREATE INDEX log_at ON tablegate_changes.log (at)')
  await migrateChangeLog(db, [])
  assert.deepEqual(await indexes(), ['log_pkey', 'log_resource'])
})

test('the log keeps no statistics of its images; migrating an earlier log stops them', async () => {
  const db = runtimeOf(app).db.app
  const targets = async (): Promise<Array<[string, boolean]>> => (await db.query<{ attname: string, off: boolean }>(
    "SELECT attname, attstattarget IS NOT DISTINCT FROM 0 AS off FROM pg_attribute WHERE attrelid = 'tablegate_changes.log'::regclass AND attname IN ('before', 'after', 'resource') ORDER BY attname")).rows.map((r) => [r.attname, r.off])
  assert.deepEqual(await targets(), [['after', true], ['before', true], ['resource', false]])
  await db.query('ALTER TABLE tablegate_changes.log ALTER COLUMN before SET STATISTICS -1')
  await migrateChangeLog(db, [])
  assert.deepEqual(await targets(), [['after', true], ['before', true], ['resource', false]])
  await db.query('ANALYZE tablegate_changes.log')
  const { rows } = await db.query<{ attname: string }>("SELECT attname FROM pg_stats WHERE schemaname = 'tablegate_changes' AND tablename = 'log' AND attname IN ('before', 'after')")
  assert.deepEqual(rows, [])
})
