// Export as an operation of its own (docs/access.md, "Export"): allowed where read is unless a rule
// or a bundle says otherwise, its row filter narrowing the read rule's rows, reflected in /api/meta
// and the caller's OpenAPI; and at most `exportsPerCaller` running exports a caller, so one
// reader's stalled exports leave the others' alone.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { connect, type Socket } from 'node:net'
import { once } from 'node:events'
import { setTimeout as sleep } from 'node:timers/promises'
import { freshDatabase, runSql } from '../helpers/db.js'
import { buildApp, createUser, bearer, caller, usersOf, type CallResult } from '../helpers/app.js'

const databaseUrl = await freshDatabase()
await runSql(databaseUrl, `
  CREATE TABLE notes (id serial PRIMARY KEY, title text NOT NULL, status text NOT NULL, owner_id text NOT NULL);
  CREATE TABLE tags (id serial PRIMARY KEY, label text NOT NULL);
  INSERT INTO tags (label) VALUES ('red'), ('blue');
  CREATE TABLE wide (id serial PRIMARY KEY, text text NOT NULL);
  INSERT INTO wide (text) SELECT repeat('x', 500) FROM generate_series(1, 40000);
`)
const NOTES = { owner: 'owner_id', fields: { id: { type: 'integer', readOnly: true, dbDefault: true }, title: { type: 'string' }, status: { type: 'string' }, owner_id: { type: 'string' } } } as const
const TAGS = { fields: { id: { type: 'integer', readOnly: true, dbDefault: true }, label: { type: 'string' } } } as const

/** The exact access-denied problem of `url`. */
function assertDenied (response: CallResult, url: string, detail: string): void {
  assert.equal(response.status, 403, JSON.stringify(response.body))
  assert.match(String(response.headers['content-type']), /^application\/problem\+json/)
  assert.deepEqual(response.body, { type: 'urn:service:problem:access-denied', title: 'Access denied', status: 403, detail, instance: url })
}

const rulesApp = await buildApp({
  databaseUrl,
  roles: ['admin', 'user', 'analyst'],
  resources: {
    notes: {
      ...NOTES,
      access: {
        read: (ctx) => ctx.user.roles.includes('admin') || { filter: { owner_id: ctx.user.id } },
        // Users may not export; analysts export only their open notes; admins everything.
        export: (ctx) => ctx.user.roles.includes('admin') || (ctx.user.roles.includes('analyst') ? { filter: 'status = "open"' } : false),
      },
    },
    tags: TAGS,
  },
})
await createUser(rulesApp, 'admin@example.com')
await createUser(rulesApp, 'una@example.com', 'user')
await createUser(rulesApp, 'ada@example.com', 'analyst')
const unaId = (await usersOf(rulesApp).findByEmail('una@example.com'))!.id
const adaId = (await usersOf(rulesApp).findByEmail('ada@example.com'))!.id
await runSql(databaseUrl, `INSERT INTO notes (title, status, owner_id) VALUES
  ('una open', 'open', '${unaId}'), ('ada open', 'open', '${adaId}'), ('ada closed', 'closed', '${adaId}'), ('nobody''s', 'open', 'x')`)
const una = caller(rulesApp, await bearer(rulesApp, 'una@example.com'))
const ada = caller(rulesApp, await bearer(rulesApp, 'ada@example.com'))
const admin = caller(rulesApp, await bearer(rulesApp, 'admin@example.com'))

async function ndjsonTitles (app: typeof rulesApp, auth: Record<string, string>, url: string, field = 'title'): Promise<string[]> {
  const response = await app.inject({ method: 'GET', url, headers: auth })
  assert.equal(response.statusCode, 200, response.body)
  return response.body.split('\n').filter((line) => line !== '').map((line) => JSON.parse(line)[field])
}

test('an export rule denies export where read is allowed: 403 access-denied, the list still served', async () => {
  assertDenied(await una('GET', '/api/v1/notes:export'), '/api/v1/notes:export', 'You may not export notes records.')
  const listed = await una('GET', '/api/v1/notes')
  assert.equal(listed.status, 200)
  assert.deepEqual(listed.body.items.map((n: { title: string }) => n.title), ['una open'])
  // A resource without an export rule exports wherever it is read.
  assert.deepEqual(await ndjsonTitles(rulesApp, await bearer(rulesApp, 'una@example.com'), '/api/v1/tags:export', 'label'), ['red', 'blue'])
})

test('an export row filter narrows the read rule\'s rows: read AND export', async () => {
  const auth = await bearer(rulesApp, 'ada@example.com')
  assert.deepEqual(await ndjsonTitles(rulesApp, auth, '/api/v1/notes:export'), ['ada open'])
  assert.deepEqual((await ada('GET', '/api/v1/notes')).body.items.map((n: { title: string }) => n.title), ['ada open', 'ada closed'])
  assert.deepEqual(await ndjsonTitles(rulesApp, await bearer(rulesApp, 'admin@example.com'), '/api/v1/notes:export'), ['una open', 'ada open', 'ada closed', "nobody's"])
})

test('/api/meta says export, conditional when its own filter narrows it; the OpenAPI document has :export only for who may', async () => {
  assert.deepEqual((await una('GET', '/api/meta')).body.permissions.notes, { read: true, create: true, update: true, delete: true, export: false, conditional: ['read'], showDeleted: false })
  assert.deepEqual((await ada('GET', '/api/meta')).body.permissions.notes, { read: true, create: true, update: true, delete: true, export: true, conditional: ['read', 'export'], showDeleted: false })
  assert.deepEqual((await admin('GET', '/api/meta')).body.permissions.notes, { read: true, create: true, update: true, delete: true, export: true, conditional: [], showDeleted: false })
  const paths = async (call: ReturnType<typeof caller>): Promise<string[]> => Object.keys((await call('GET', '/api/openapi.json')).body.paths).filter((p) => p.endsWith(':export'))
  assert.deepEqual(await paths(una), ['/api/v1/tags:export'])
  assert.deepEqual(await paths(ada), ['/api/v1/notes:export', '/api/v1/tags:export'])
})

test('bundles: read grants export until a bundle names export for the resource; then only an export capability does', async () => {
  const app = await buildApp({
    databaseUrl,
    roles: { analyst: ['notes.read', 'notes.export', 'tags.read'], clerk: ['notes.read.own', 'tags.read'], auditor: ['*.read'] },
    resources: { notes: NOTES, tags: TAGS },
  })
  const exportStatus = async (auth: Record<string, string>, resource: string): Promise<number> =>
    (await app.inject({ method: 'GET', url: `/api/v1/${resource}:export`, headers: auth })).statusCode
  for (const [role, notes] of [['analyst', 200], ['clerk', 403], ['auditor', 403], ['admin', 200]] as const) {
    await createUser(app, `${role}@bundles.example.com`, role)
    const auth = await bearer(app, `${role}@bundles.example.com`)
    assert.equal(await exportStatus(auth, 'notes'), notes, `${role} notes`)
    assert.equal(await exportStatus(auth, 'tags'), 200, `${role} tags`)
    assert.equal((await caller(app, auth)('GET', '/api/meta')).body.permissions.notes.export, notes === 200, `${role} meta`)
  }
  const auditor = caller(app, await bearer(app, 'auditor@bundles.example.com'))
  assertDenied(await auditor('GET', '/api/v1/notes:export'), '/api/v1/notes:export', 'You may not export notes records.')
  // Export never reaches past read: who may create but not read hears that they may not read.
  const nothing = await buildApp({ databaseUrl, roles: { clerk: ['tags.read', 'notes.create', 'notes.export'] }, resources: { notes: NOTES, tags: TAGS } })
  await createUser(nothing, 'clerk@nothing.example.com', 'clerk')
  assertDenied(await caller(nothing, await bearer(nothing, 'clerk@nothing.example.com'))('GET', '/api/v1/notes:export'), '/api/v1/notes:export', 'You may not read notes records.')
})

test('a { check } export rule fails the start: an export judges no record', async () => {
  await assert.rejects(buildApp({ databaseUrl, resources: { notes: { ...NOTES, access: { export: { check: () => true } } } } }),
    { message: 'invalid config: config.resources.notes.access.export: an export judges no record, so its rule takes true, false, roles or { filter }, not { check }' })
})

/** An export opened on a raw socket whose client reads the first chunk and then nothing: the server waits on it. */
async function stalledExport (port: number, auth: Record<string, string>, path: string, open: Socket[]): Promise<string> {
  const socket = connect(port, '127.0.0.1')
  open.push(socket)
  socket.write(`GET ${path} HTTP/1.1\r\nHost: localhost\r\nAuthorization: ${auth.authorization}\r\n\r\n`)
  const [head] = await once(socket, 'data') as [Buffer]
  socket.pause()
  return head.toString()
}

test('one caller\'s stalled exports cannot make another caller\'s export wait or fail: one export a caller, 429 past it', async () => {
  // A read pool of 8: the server streams two exports at once.
  const app = await buildApp({ databaseUrl, poolSize: 8, resources: { wide: { fields: { id: { type: 'integer', readOnly: true }, text: { type: 'string' } } } } })
  await createUser(app, 'hog@example.com')
  await createUser(app, 'fair@example.com')
  await app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = app.server.address() as { port: number }
  const hogAuth = await bearer(app, 'hog@example.com')
  const hog = caller(app, hogAuth)
  const fairAuth = await bearer(app, 'fair@example.com')
  const fair = caller(app, fairAuth)
  const open: Socket[] = []
  try {
    // 20 MB of NDJSON: far more than the socket buffers hold, so the export waits on its reader.
    assert.match(await stalledExport(port, hogAuth, '/api/v1/wide:export', open), /^HTTP\/1\.1 200 OK/)
    // The hog's second would have held the server's last slot.
    assert.match(await stalledExport(port, hogAuth, '/api/v1/wide:export', open), /^HTTP\/1\.1 429 Too Many Requests/)
    const started = Date.now()
    const served = await app.inject({ method: 'GET', url: '/api/v1/wide:export?fields=id', headers: fairAuth })
    assert.equal(served.statusCode, 200)
    assert.equal(served.body.split('\n').filter((l) => l !== '').length, 40000)
    assert.ok(Date.now() - started < 5000, `the other caller's export took ${Date.now() - started} ms`)
    assert.equal((await fair('GET', '/api/v1/wide?page_size=1')).status, 200)
    const again = await hog('GET', '/api/v1/wide:export')
    assert.equal(again.status, 429)
    assert.equal(again.headers['retry-after'], '5')
    assert.match(String(again.headers['content-type']), /^application\/problem\+json/)
    assert.deepEqual(again.body, {
      type: 'urn:service:problem:too-many-requests',
      title: 'Too many requests',
      status: 429,
      detail: 'You have 1 export running, the most one caller runs at once: try again when it has finished.',
      instance: '/api/v1/wide:export',
    })
  } finally {
    // A client left open would keep the server from closing.
    for (const socket of open) socket.destroy()
  }
  // The slot is the caller's again once their client has gone.
  let status = 0
  for (let i = 0; i < 50 && status !== 200; i++) {
    if (i > 0) await sleep(100)
    status = (await app.inject({ method: 'GET', url: '/api/v1/wide:export?filter=id%20%3C%203', headers: hogAuth })).statusCode
  }
  assert.equal(status, 200)
})
