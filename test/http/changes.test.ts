// The change feed (docs/changes.md) as JSON long-polls: each caller's events under their own read
// access (row filter, tenant, hidden field, soft delete) and their filter, from both images of each
// change; writes through tablegate and plain SQL (trigger capture); batches together; refusals.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { freshDatabase, runSql, withClient } from '../helpers/db.js'
import { buildApp, createUser, bearer, caller, usersOf } from '../helpers/app.js'
import { assertValidOpenApi, responseChecker } from '../helpers/openapi.js'

const databaseUrl = await freshDatabase()
await runSql(databaseUrl, `
  CREATE TABLE docs (id serial PRIMARY KEY, title text NOT NULL, status text NOT NULL DEFAULT 'open', secret text,
    owner_id text NOT NULL, tenant_id text NOT NULL, deleted_at timestamptz);
  CREATE TABLE notes (id serial PRIMARY KEY, body text NOT NULL);
  CREATE TABLE plain (id serial PRIMARY KEY, body text NOT NULL);
`)
// Polled every 100 ms: through a transaction pooler (`npm run test:pooled`) there is no LISTEN.
const app = await buildApp({
  databaseUrl,
  tenant: 't1',
  changes: { pollMs: 100 },
  roles: { admin: ['*'], user: ['docs.read.own', 'docs.create.own', 'docs.update.own', 'docs.delete.own', 'notes.read', 'plain.read'] },
  resources: {
    docs: {
      owner: 'owner_id',
      tenant: 'tenant_id',
      softDelete: 'deleted_at',
      changes: { capture: 'trigger' },
      fields: { id: { type: 'integer', readOnly: true }, title: { type: 'string' }, status: { type: 'string' }, secret: { type: 'string' }, owner_id: { type: 'string' } },
      access: { fields: { secret: { read: ['admin'] } } },
    },
    notes: { changes: {}, fields: { id: { type: 'integer', readOnly: true }, body: { type: 'string' } } },
    plain: { fields: { id: { type: 'integer', readOnly: true }, body: { type: 'string' } } },
  },
})
await createUser(app, 'admin@example.com')
await createUser(app, 'ann@example.com', 'user')
const annId = (await usersOf(app).findByEmail('ann@example.com'))!.id
const ann = caller(app, await bearer(app, 'ann@example.com'))
const admin = caller(app, await bearer(app, 'admin@example.com'))
type Call = typeof ann
type Event = { type: string, key: string, record?: Record<string, unknown>, batch: string, time: string }

// Ann's own doc, renamed after each step: its `updated` event, which both callers see, marks that
// every change before it has been read (the feed serves changes in order), so "no event" is an
// answer, not a feed that has not caught up yet.
const marker = (await ann('POST', '/api/v1/docs', { payload: { title: 'marker' } })).body
let marks = 0

async function mark (): Promise<string> {
  const title = `marker ${++marks}`
  await runSql(databaseUrl, `UPDATE docs SET title = '${title}' WHERE id = ${marker.id}`)
  return title
}

/** A feed started without a token: empty, and its token. */
async function now (call: Call, resource: string, query = ''): Promise<string> {
  const got = await call('GET', `/api/v1/${resource}:changes${query === '' ? '' : `?${query}`}`)
  assert.equal(got.status, 200, JSON.stringify(got.body))
  assert.deepEqual(got.body.changes, [])
  return got.body.next_page_token
}

/**
 * A token just past a marker made now. A feed started without a token starts at the horizon, so it
 * may bring changes that committed shortly before, while another test file's transaction was open
 * (docs/changes.md, "Starting, resuming, and starting again"); read up to a marker, it brings none.
 */
async function startOf (call: Call, query = ''): Promise<string> {
  const from = await now(call, 'docs', query)
  const passed = await until(call, from, await mark(), query)
  lastPassed = passed.events
  return passed.token
}
/** What the last startOf read past: said when an assertion after it fails. */
let lastPassed: Event[] = []

/** The events after `token` up to the marker titled `title` (excluded), and the token after it. */
async function until (call: Call, token: string, title: string, query = ''): Promise<{ events: Event[], token: string }> {
  const events: Event[] = []
  const deadline = Date.now() + 10_000
  while (Date.now() < deadline) {
    const got = await call('GET', `/api/v1/docs:changes?wait=5&page_token=${encodeURIComponent(token)}${query === '' ? '' : `&${query}`}`)
    assert.equal(got.status, 200, JSON.stringify(got.body))
    token = got.body.next_page_token
    for (const event of got.body.changes as Event[]) {
      if (event.key === String(marker.id) && event.record?.title === title) return { events, token }
      if (event.key !== String(marker.id)) events.push(event)
    }
  }
  assert.fail(`the marker '${title}' did not arrive`)
}

/** Both callers' events of what `act` does, as type and key. */
async function seen (act: () => Promise<void>, query = ''): Promise<{ ann: Event[], admin: Event[] }> {
  const from = { ann: await startOf(ann, query), admin: await startOf(admin, query) }
  await act()
  const title = await mark()
  return { ann: (await until(ann, from.ann, title, query)).events, admin: (await until(admin, from.admin, title, query)).events }
}

const brief = (events: Event[]): string[] => events.map((e) => `${e.type} ${e.key}`)

test('a create is created for each caller who sees it, with the record as they read it: the hidden field only for the admin', async () => {
  let id = 0
  const got = await seen(async () => { id = (await ann('POST', '/api/v1/docs', { payload: { title: 'a' } })).body.id })
  assert.deepEqual(brief(got.ann), [`created ${id}`])
  assert.deepEqual(brief(got.admin), [`created ${id}`])
  const [mine] = got.ann
  // Each record is the caller's list item, permissions and etag included.
  assert.deepEqual(mine!.record, (await ann('GET', `/api/v1/docs?filter=id%20%3D%20${id}`)).body.items[0])
  assert.deepEqual(got.admin[0]!.record, (await admin('GET', `/api/v1/docs?filter=id%20%3D%20${id}`)).body.items[0])
  assert.equal(mine!.record!.title, 'a')
  assert.ok(!Object.hasOwn(mine!.record!, 'secret'))
  assert.ok(Object.hasOwn(got.admin[0]!.record!, 'secret'))
  assert.match(mine!.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/)
  assert.match(mine!.batch, /^[A-Za-z0-9_-]{22}$/)
})

test('a change of a hidden field only is no event for whoever cannot read it; a readable one is updated', async () => {
  const { id } = (await ann('POST', '/api/v1/docs', { payload: { title: 'b' } })).body
  const hidden = await seen(async () => { await runSql(databaseUrl, `UPDATE docs SET secret = 'x' WHERE id = ${id}`) })
  assert.deepEqual(brief(hidden.ann), [])
  assert.deepEqual(brief(hidden.admin), [`updated ${id}`])
  assert.equal(hidden.admin[0]!.record!.secret, 'x')
  const shown = await seen(async () => { await runSql(databaseUrl, `UPDATE docs SET title = 'b2' WHERE id = ${id}`) })
  assert.deepEqual(brief(shown.ann), [`updated ${id}`])
  assert.equal(shown.ann[0]!.record!.title, 'b2')
})

test('a row that leaves the caller\'s row filter is left, without its record; coming back it is entered', async () => {
  const { id } = (await ann('POST', '/api/v1/docs', { payload: { title: 'c' } })).body
  const away = await seen(async () => { await runSql(databaseUrl, `UPDATE docs SET owner_id = 'someone else' WHERE id = ${id}`) })
  assert.deepEqual(brief(away.ann), [`left ${id}`])
  assert.equal(away.ann[0]!.record, undefined)
  assert.deepEqual(brief(away.admin), [`updated ${id}`])
  // Out of ann's view, changes to it are nothing to her.
  const meanwhile = await seen(async () => { await runSql(databaseUrl, `UPDATE docs SET title = 'c2' WHERE id = ${id}`) })
  assert.deepEqual(brief(meanwhile.ann), [])
  const back = await seen(async () => { await runSql(databaseUrl, `UPDATE docs SET owner_id = '${annId}' WHERE id = ${id}`) })
  assert.deepEqual(brief(back.ann), [`entered ${id}`])
  assert.equal(back.ann[0]!.record!.title, 'c2')
})

test('a soft delete is deleted and an undelete created; a hard delete of a row the caller never saw sends them nothing, not even its key', async () => {
  const { id, etag } = (await ann('POST', '/api/v1/docs', { payload: { title: 'd' } })).body
  const gone = await seen(async () => { assert.equal((await ann('DELETE', `/api/v1/docs/${id}`, { headers: { 'if-match': etag } })).status, 204) })
  assert.deepEqual(brief(gone.ann), [`deleted ${id}`])
  assert.deepEqual(brief(gone.admin), [`deleted ${id}`])
  assert.equal(gone.ann[0]!.record, undefined)
  const back = await seen(async () => { assert.equal((await admin('POST', `/api/v1/docs/${id}:undelete`)).status, 200) })
  assert.deepEqual(brief(back.ann), [`created ${id}`])
  await runSql(databaseUrl, 'INSERT INTO docs (id, title, owner_id, tenant_id) VALUES (9001, \'theirs\', \'other\', \'t1\'), (9002, \'elsewhere\', \'other\', \'t2\')')
  const hard = await seen(async () => { await runSql(databaseUrl, 'DELETE FROM docs WHERE id IN (9001, 9002)') })
  assert.deepEqual(brief(hard.ann), [])
  assert.deepEqual(brief(hard.admin), ['deleted 9001'])
})

test('another tenant\'s rows are nothing; a row moved into the caller\'s tenant is entered, moved out left', async () => {
  await runSql(databaseUrl, `INSERT INTO docs (id, title, owner_id, tenant_id) VALUES (9010, 'foreign', '${annId}', 't2')`)
  const foreign = await seen(async () => { await runSql(databaseUrl, 'UPDATE docs SET title = \'foreign 2\' WHERE id = 9010') })
  assert.deepEqual(brief(foreign.ann), [])
  assert.deepEqual(brief(foreign.admin), [])
  const moved = await seen(async () => { await runSql(databaseUrl, 'UPDATE docs SET tenant_id = \'t1\' WHERE id = 9010') })
  assert.deepEqual(brief(moved.ann), ['entered 9010'])
  assert.deepEqual(brief(moved.admin), ['entered 9010'])
  const out = await seen(async () => { await runSql(databaseUrl, 'UPDATE docs SET tenant_id = \'t3\' WHERE id = 9010') })
  assert.deepEqual(brief(out.ann), ['left 9010'])
})

test('the caller\'s filter narrows the feed as it narrows their list: entered when a row comes to match it, left when it stops', async () => {
  const { id } = (await ann('POST', '/api/v1/docs', { payload: { title: 'e' } })).body
  const filter = `filter=${encodeURIComponent(`status = "done" OR id = ${marker.id}`)}`
  const done = await seen(async () => { await runSql(databaseUrl, `UPDATE docs SET status = 'done' WHERE id = ${id}`) }, filter)
  assert.deepEqual(brief(done.ann), [`entered ${id}`])
  const reopened = await seen(async () => { await runSql(databaseUrl, `UPDATE docs SET status = 'open' WHERE id = ${id}`) }, filter)
  assert.deepEqual(brief(reopened.ann), [`left ${id}`])
  const unrelated = await seen(async () => { await runSql(databaseUrl, `UPDATE docs SET title = 'e2' WHERE id = ${id}`) }, filter)
  assert.deepEqual(brief(unrelated.ann), [])
})

test('fields narrows each record as it narrows a list\'s', async () => {
  const from = await startOf(ann, 'fields=title')
  const { id } = (await ann('POST', '/api/v1/docs', { payload: { title: 'f' } })).body
  const { events } = await until(ann, from, await mark(), 'fields=title')
  assert.deepEqual(events.map((e) => e.record), (await ann('GET', `/api/v1/docs?fields=title&filter=id%20%3D%20${id}`)).body.items)
  assert.deepEqual(Object.keys(events[0]!.record!).sort(), ['etag', 'permissions', 'title'])
  assert.equal(events[0]!.key, String(id))
})

test('one transaction\'s changes come together under one batch id; a failed batch records nothing', async () => {
  const first = (await admin('POST', '/api/v1/notes', { payload: { body: 'n1' } })).body
  const from = await now(admin, 'notes')
  const batch = await admin('POST', '/api/v1:batchWrite', {
    payload: {
      operations: [
        { op: 'create', resource: 'notes', data: { body: 'n2' } },
        { op: 'update', resource: 'notes', key: String(first.id), etag: '*', data: { body: 'n1b' } },
        { op: 'create', resource: 'notes', data: { body: 'n3' } },
      ],
    },
  })
  assert.equal(batch.status, 200, JSON.stringify(batch.body))
  const failed = await admin('POST', '/api/v1:batchWrite', {
    payload: { operations: [{ op: 'create', resource: 'notes', data: { body: 'never' } }, { op: 'update', resource: 'notes', key: '999999', etag: '*', data: { body: 'x' } }] },
  })
  assert.equal(failed.status, 404)
  await admin('POST', '/api/v1/notes', { payload: { body: 'n4' } })
  const events: Event[] = []
  let token = from
  // Only this test's notes: a feed started without a token may begin before the first (see startOf).
  const ours = ['n1b', 'n2', 'n3', 'n4', 'never']
  while (events.length < 4) {
    const got = await admin('GET', `/api/v1/notes:changes?wait=5&page_token=${encodeURIComponent(token)}`)
    events.push(...(got.body.changes as Event[]).filter((e) => ours.includes(e.record?.body as string)))
    token = got.body.next_page_token
  }
  assert.deepEqual(events.map((e) => [e.type, e.record!.body]), [['created', 'n2'], ['updated', 'n1b'], ['created', 'n3'], ['created', 'n4']])
  assert.equal(new Set(events.slice(0, 3).map((e) => e.batch)).size, 1)
  assert.notEqual(events[3]!.batch, events[0]!.batch)
  assert.ok(!events.some((e) => e.record?.body === 'never'))
})

test('a change whose transaction began first and commits last is still served to a token issued in between, first', async () => {
  const from = await startOf(admin)
  await withClient(databaseUrl, async (client) => {
    await client.query('BEGIN')
    await client.query(`INSERT INTO docs (id, title, owner_id, tenant_id) VALUES (9020, 'slow', '${annId}', 't1')`)
    // A later transaction commits first: the feed holds it back until the earlier one has ended.
    const fast = (await ann('POST', '/api/v1/docs', { payload: { title: 'fast' } })).body
    const held = await admin('GET', `/api/v1/docs:changes?wait=1&page_token=${encodeURIComponent(from)}`)
    assert.deepEqual(held.body.changes, [])
    await client.query('COMMIT')
    const got = await until(admin, from, await mark())
    assert.deepEqual(brief(got.events), ['created 9020', `created ${fast.id}`])
  })
})

test('a long-poll answers as soon as a change comes, within its wait', async () => {
  const from = await startOf(admin)
  const started = Date.now()
  const polled = admin('GET', `/api/v1/docs:changes?wait=10&page_token=${encodeURIComponent(from)}`)
  await new Promise((resolve) => setTimeout(resolve, 200))
  await runSql(databaseUrl, `INSERT INTO docs (title, owner_id, tenant_id) VALUES ('awaited', '${annId}', 't1')`)
  const got = await polled
  assert.deepEqual(got.body.changes.map((e: Event) => e.record!.title), ['awaited'])
  assert.ok(Date.now() - started < 5000, `answered after ${Date.now() - started} ms`)
})

test('refusals: a token of another resource or none of ours, a bad wait, a resource without changes, a caller who may not read', async () => {
  const notesToken = await now(admin, 'notes')
  for (const [url, headers, parameter] of [
    [`/api/v1/docs:changes?page_token=${encodeURIComponent(notesToken)}`, {}, 'page_token'],
    ['/api/v1/docs:changes?page_token=garbage', {}, 'page_token'],
    ['/api/v1/docs:changes', { 'last-event-id': 'v1.AAAA.BBBB.CCCC' }, 'Last-Event-ID'],
    ['/api/v1/docs:changes?wait=31', {}, 'wait'],
    ['/api/v1/docs:changes?wait=-1', {}, 'wait'],
    ['/api/v1/docs:changes?wait=1', { accept: 'text/event-stream' }, 'wait'],
  ] as const) {
    const got = await ann('GET', url, { headers })
    assert.equal(got.status, 400, url)
    assert.equal(got.body.type, 'urn:service:problem:invalid-parameter')
    assert.deepEqual(got.body.errors.map((e: { parameter: string }) => e.parameter), [parameter])
  }
  assert.equal((await ann('GET', '/api/v1/plain:changes')).body.type, 'urn:service:problem:not-found')
  assert.equal((await ann('GET', '/api/v1/docs:changes?filter=secret%20%3D%20%22x%22')).body.type, 'urn:service:problem:invalid-filter')
  assert.equal((await caller(app, {})('GET', '/api/v1/docs:changes')).status, 401)
})

test('trigger capture records writes made outside tablegate: a plain SQL UPDATE is an event', async () => {
  const from = await startOf(admin)
  await runSql(databaseUrl, `UPDATE docs SET status = 'sql' WHERE id = ${marker.id}`)
  const got = await admin('GET', `/api/v1/docs:changes?wait=5&page_token=${encodeURIComponent(from)}`)
  assert.deepEqual(got.body.changes.map((e: Event) => [e.type, e.key, e.record!.status]), [['updated', String(marker.id), 'sql']])
})

test('pipeline capture records no write made outside tablegate, and each of its own', async () => {
  const from = await now(admin, 'notes')
  await runSql(databaseUrl, 'INSERT INTO notes (body) VALUES (\'by sql\')')
  await admin('POST', '/api/v1/notes', { payload: { body: 'by api' } })
  await admin('POST', '/api/v1/notes', { payload: { body: 'last' } })
  const bodies: string[] = []
  let token = from
  while (!bodies.includes('last')) {
    const got = await admin('GET', `/api/v1/notes:changes?wait=5&page_token=${encodeURIComponent(token)}`)
    bodies.push(...(got.body.changes as Event[]).map((e) => e.record!.body as string))
    token = got.body.next_page_token
  }
  assert.deepEqual(bodies.filter((b) => ['by sql', 'by api', 'last'].includes(b)), ['by api', 'last'])
})

test('the caller\'s OpenAPI document describes :changes (JSON and text/event-stream) where the resource has a feed, and its answers match it', async () => {
  const document = (await ann('GET', '/api/openapi.json')).body
  await assertValidOpenApi(document)
  const operation = document.paths['/api/v1/docs:changes'].get
  assert.deepEqual(Object.keys(operation.responses[200].content).sort(), ['application/json', 'text/event-stream'])
  assert.ok(operation.responses[410] !== undefined)
  assert.deepEqual(operation.parameters.map((p: { name?: string, $ref?: string }) => p.name ?? p.$ref!.split('/').at(-1)), ['filter', 'fields', 'page_token', 'wait', 'Last-Event-ID'])
  assert.equal(document.paths['/api/v1/plain:changes'], undefined)
  const from = await startOf(ann)
  const { id } = (await ann('POST', '/api/v1/docs', { payload: { title: 'described' } })).body
  const got = await ann('GET', `/api/v1/docs:changes?wait=5&page_token=${encodeURIComponent(from)}`)
  assert.equal(got.body.changes[0].key, String(id))
  responseChecker(document)('/api/v1/docs:changes', 'get', got.body)
  const meta = (await ann('GET', '/api/meta')).body
  assert.equal(meta.resources.docs.changes, true)
  assert.equal(meta.resources.plain.changes, undefined)
})

test('one row\'s changes come in the order they were made, even where the later writer\'s transaction id is the lower', async () => {
  const { id } = (await ann('POST', '/api/v1/docs', { payload: { title: 'g' } })).body
  const from = await startOf(admin)
  await withClient(databaseUrl, async (early) => {
    await withClient(databaseUrl, async (between) => {
      // The early transaction takes its id first (a write elsewhere), then writes the row after a
      // later transaction has written it and committed. Another, with an id between theirs, is
      // still open when the early one commits: the horizon stands between the two writers.
      await early.query('BEGIN')
      await early.query(`INSERT INTO docs (title, owner_id, tenant_id) VALUES ('elsewhere', 'other', 't1')`)
      await between.query('BEGIN')
      await between.query(`INSERT INTO notes (body) VALUES ('between')`)
      await runSql(databaseUrl, `UPDATE docs SET title = 'by the later transaction' WHERE id = ${id}`)
      await early.query(`UPDATE docs SET title = 'by the early transaction' WHERE id = ${id}`)
      await early.query('COMMIT')
      const held = await admin('GET', `/api/v1/docs:changes?wait=1&page_token=${encodeURIComponent(from)}`)
      assert.deepEqual(held.body.changes.filter((e: Event) => e.key === String(id)), [], JSON.stringify({ passed: lastPassed, held: held.body.changes }))
      await between.query('COMMIT')
    })
  })
  const got = await until(admin, from, await mark())
  const mine = got.events.filter((e) => e.key === String(id))
  assert.deepEqual(mine.map((e) => e.record!.title), ['by the later transaction', 'by the early transaction'])
})
