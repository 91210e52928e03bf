// show_deleted under access rules: a `showDeleted` rule may keep soft-deleted rows from a caller
// who reads the resource (403 on every read that takes the parameter), /api/meta and the OpenAPI
// document say so; without the rule every reader sees their own deleted rows, as before.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { freshDatabase, runSql } from '../helpers/db.js'
import { buildApp, createUser, bearer, caller, type CallResult } from '../helpers/app.js'

const databaseUrl = await freshDatabase()
await runSql(databaseUrl, `
  CREATE TABLE notes (id serial PRIMARY KEY, title text NOT NULL, at timestamptz NOT NULL DEFAULT '2026-01-01', deleted_at timestamptz);
  CREATE TABLE drafts (id serial PRIMARY KEY, title text NOT NULL, deleted_at timestamptz);
  INSERT INTO notes (title, deleted_at) VALUES ('live', NULL), ('gone', now());
  INSERT INTO drafts (title, deleted_at) VALUES ('live', NULL), ('gone', now());
`)
const FIELDS = { id: { type: 'integer', readOnly: true, dbDefault: true }, title: { type: 'string' } } as const
const app = await buildApp({
  databaseUrl,
  resources: {
    notes: { softDelete: 'deleted_at', fields: { ...FIELDS, at: { type: 'timestamp' } }, access: { showDeleted: ['admin'] } },
    drafts: { softDelete: 'deleted_at', fields: FIELDS },
  },
})
await createUser(app, 'admin@example.com')
await createUser(app, 'user@example.com', 'user')
const adminAuth = await bearer(app, 'admin@example.com')
const userAuth = await bearer(app, 'user@example.com')
const admin = caller(app, adminAuth)
const user = caller(app, userAuth)

const READS: ReadonlyArray<readonly ['GET' | 'POST', string, unknown?]> = [
  ['GET', '/api/v1/notes?show_deleted=true'],
  ['GET', '/api/v1/notes/2?show_deleted=true'],
  ['POST', '/api/v1/notes:search', { show_deleted: true }],
  ['GET', '/api/v1/notes:seek?position=0&show_deleted=true'],
  ['GET', '/api/v1/notes:facets?field=title&show_deleted=true'],
  ['GET', '/api/v1/notes:histogram?field=id&show_deleted=true'],
  ['GET', '/api/v1/notes:series?field=at&from=2025-12-01T00:00:00Z&to=2026-02-01T00:00:00Z&show_deleted=true'],
  ['GET', '/api/v1/notes:export?show_deleted=true'],
]

function assertDenied (response: CallResult, url: string): void {
  assert.equal(response.status, 403, `${url}: ${JSON.stringify(response.body)}`)
  assert.deepEqual(response.body, { type: 'urn:service:problem:access-denied', title: 'Access denied', status: 403, detail: 'You may not read deleted notes records (show_deleted=true).', instance: url })
}

test('a showDeleted rule denies show_deleted=true on every read: 403 access-denied; without it the reads are served', async () => {
  for (const [method, url, payload] of READS) {
    const denied = await app.inject({ method, url, headers: userAuth, ...(payload === undefined ? {} : { payload: payload as object }) })
    assertDenied({ status: denied.statusCode, headers: denied.headers, body: JSON.parse(denied.body) }, url)
    const plain = await app.inject({ method, url: url.replace(/[?&]show_deleted=true/, '').replace('/notes/2', '/notes/1'), headers: userAuth, ...(payload === undefined ? {} : { payload: {} }) })
    assert.equal(plain.statusCode, 200, `${url} without show_deleted: ${plain.body}`)
    const allowed = await app.inject({ method, url, headers: adminAuth, ...(payload === undefined ? {} : { payload: payload as object }) })
    assert.equal(allowed.statusCode, 200, `${url} as admin: ${allowed.body}`)
  }
  assert.deepEqual((await admin('GET', '/api/v1/notes?show_deleted=true')).body.items.map((n: { title: string }) => n.title), ['live', 'gone'])
})

test('without a showDeleted rule any reader sees deleted rows with show_deleted=true, as before', async () => {
  assert.deepEqual((await user('GET', '/api/v1/drafts?show_deleted=true')).body.items.map((n: { title: string }) => n.title), ['live', 'gone'])
})

test('/api/meta says showDeleted per resource; the OpenAPI document leaves the parameter out for who may not use it', async () => {
  assert.equal((await user('GET', '/api/meta')).body.permissions.notes.showDeleted, false)
  assert.equal((await user('GET', '/api/meta')).body.permissions.drafts.showDeleted, true)
  assert.equal((await admin('GET', '/api/meta')).body.permissions.notes.showDeleted, true)
  const listParameters = async (call: typeof user, resource: string): Promise<string[]> =>
    (await call('GET', '/api/openapi.json')).body.paths[`/api/v1/${resource}`].get.parameters.map((p: { name?: string, $ref?: string }) => p.name ?? p.$ref)
  const shows = (names: string[]): boolean => names.some((n) => n.includes('show_deleted'))
  assert.equal(shows(await listParameters(user, 'notes')), false)
  assert.equal(shows(await listParameters(user, 'drafts')), true)
  assert.equal(shows(await listParameters(admin, 'notes')), true)
  const userPaths = (await user('GET', '/api/openapi.json')).body.paths
  assert.equal(JSON.stringify(userPaths['/api/v1/notes:export']).includes('show_deleted'), false)
  assert.equal(JSON.stringify(userPaths['/api/v1/notes:facets']).includes('show_deleted'), false)
  assert.equal('show_deleted' in userPaths['/api/v1/notes:search'].post.requestBody.content['application/json'].schema.properties, false)
})
