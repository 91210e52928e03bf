// What the docs say, run: an app plugin's route reading request.ctx and refusing with problem()
// (docs/plugins.md shows test/fixtures/route-plugin.ts verbatim), what validate receives on
// create and on update (docs/resources.md), what auditLog({ resources }) logs (docs/plugins.md),
// and the change feed's browser client (docs/changes.md shows test/fixtures/change-feed-client.ts
// verbatim).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { freshDatabase, runSql, withClient } from '../helpers/db.js'
import { bearer, buildApp, caller, createUser } from '../helpers/app.js'
import teamReport from '../fixtures/route-plugin.js'
import auditLog from '../../plugins/audit-log/index.js'
import type { ValidateContext } from '../../lib/config/functions.js'
import { follow, type Change } from '../fixtures/change-feed-client.js'

const root = new URL('../../../', import.meta.url)
const databaseUrl = await freshDatabase()
await runSql(databaseUrl, `
  CREATE TABLE events (id serial PRIMARY KEY, title text NOT NULL, starts_at timestamptz NOT NULL, ends_at timestamptz NOT NULL, room text NOT NULL);
  CREATE TABLE notes (id serial PRIMARY KEY, body text NOT NULL)`)
const seen: Array<{ record: Readonly<Record<string, unknown>>, operation: ValidateContext['operation'] }> = []
const app = await buildApp({
  databaseUrl,
  roles: ['admin', 'member'],
  resources: {
    events: {
      fields: {
        id: { type: 'integer', readOnly: true },
        title: { type: 'string' },
        starts_at: { type: 'timestamp' },
        ends_at: { type: 'timestamp' },
        room: { type: 'string', default: 'main hall' },
      },
      validate: (record, ctx) => {
        seen.push({ record, operation: ctx.operation })
        return []
      },
    },
    notes: { changes: {}, fields: { id: { type: 'integer', readOnly: true }, body: { type: 'string' } } },
  },
  plugins: [teamReport, [auditLog, { resources: ['events'] }]],
  revocationPollMs: 200,
})
await createUser(app, 'admin@example.com', 'admin')
await createUser(app, 'member@example.com', 'member')
const admin = caller(app, await bearer(app, 'admin@example.com'))
const member = caller(app, await bearer(app, 'member@example.com'))

test('docs/plugins.md shows the route plugin this test runs, as it is', () => {
  const docs = readFileSync(new URL('docs/plugins.md', root), 'utf8')
  const source = readFileSync(new URL('test/fixtures/route-plugin.ts', root), 'utf8')
  assert.ok(docs.includes('```ts\n' + source + '```\n'), 'docs/plugins.md must show test/fixtures/route-plugin.ts verbatim')
})

test('a route plugin reads request.ctx and refuses with problem(): 401 without a token, 403 problem for a member, the caller for an admin', async () => {
  const anonymous = await app.inject({ method: 'GET', url: '/api/team-report' })
  assert.equal(anonymous.statusCode, 401)
  assert.equal(JSON.parse(anonymous.body).type, 'urn:service:problem:unauthenticated')
  const refused = await member('GET', '/api/team-report')
  assert.equal(refused.status, 403)
  assert.equal(refused.headers['content-type'], 'application/problem+json; charset=utf-8')
  assert.deepEqual(refused.body, { type: 'urn:service:problem:access-denied', title: 'Access denied', status: 403, detail: 'Only admins may read the team report.', instance: '/api/team-report' })
  const served = await admin('GET', '/api/team-report')
  assert.equal(served.status, 200)
  const adminId = (await app.tablegate.users!.findByEmail('admin@example.com'))!.id
  assert.deepEqual(served.body, { requestedBy: adminId, roles: ['admin'], tenant: null })
})

test('validate gets on create the fields sent and those with a default; on update only the fields sent, as sent', async () => {
  seen.length = 0
  const created = await admin('POST', '/api/v1/events', { payload: { title: 'Launch', starts_at: '2026-03-01T09:00:00Z', ends_at: '2026-03-01T10:00:00Z' } })
  assert.equal(created.status, 201, JSON.stringify(created.body))
  const updated = await admin('PATCH', `/api/v1/events/${created.body.id}`, { headers: { 'if-match': created.body.etag }, payload: { ends_at: '2026-03-01T11:00:00Z' } })
  assert.equal(updated.status, 200, JSON.stringify(updated.body))
  assert.deepEqual(seen, [
    { operation: 'create', record: { title: 'Launch', starts_at: '2026-03-01T09:00:00Z', ends_at: '2026-03-01T10:00:00Z', room: 'main hall' } },
    { operation: 'update', record: { ends_at: '2026-03-01T11:00:00Z' } },
  ])
})

test('auditLog({ resources }) logs the writes of those resources only: not others, not user-store changes', async () => {
  const before = await withClient(databaseUrl, async (c) => (await c.query<{ resource: string }>('SELECT DISTINCT resource FROM tablegate_audit_log ORDER BY resource')).rows)
  await admin('POST', '/api/v1/notes', { payload: { body: 'not audited' } })
  await createUser(app, 'later@example.com', 'member')
  const after = await withClient(databaseUrl, async (c) => (await c.query<{ resource: string, n: number }>('SELECT resource, count(*)::int AS n FROM tablegate_audit_log GROUP BY resource ORDER BY resource')).rows)
  assert.deepEqual(before.map((r) => r.resource), ['events'])
  assert.deepEqual(after, [{ resource: 'events', n: 2 }])
})

test('docs/changes.md shows the change feed client this test runs, as it is', () => {
  const docs = readFileSync(new URL('docs/changes.md', root), 'utf8')
  const source = readFileSync(new URL('test/fixtures/change-feed-client.ts', root), 'utf8')
  assert.ok(docs.includes('```ts\n' + source + '```\n'), 'docs/changes.md must show test/fixtures/change-feed-client.ts verbatim')
})

async function until (what: string, done: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`waited 10 s for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

test('the change feed client lists once, applies each change, takes a fresh token at reauth, and stops when its access is revoked', async () => {
  const address = await app.listen({ port: 0, host: '127.0.0.1' })
  await createUser(app, 'follower@example.com', 'member')
  const users = app.tablegate.users!
  let tokens = 0
  let listed = 0
  const changes: Change[] = []
  const following = follow({
    url: `${address}/api/v1/notes:changes?fields=body`,
    // The first token lasts 2 to 3 s: the stream ends with reauth, and the client comes back with the next.
    token: async () => (await users.issueToken('follower@example.com', { ttlSeconds: tokens++ === 0 ? 3 : 900 })).token,
    list: async () => { listed++ },
    apply: (change) => { changes.push(change) },
    signal: new AbortController().signal,
  })
  const failed = following.then(() => undefined, (err: unknown) => err as Error)
  await until('the list', () => listed === 1)
  // A feed that starts without a token starts at the horizon: it may also bring notes an earlier
  // test wrote while another file's transaction was open (docs/changes.md, "Starting").
  const bodied = (body: string): Change[] => changes.filter((c) => c.record?.body === body)
  const first = await admin('POST', '/api/v1/notes', { payload: { body: 'first' } })
  await until('the first change', () => bodied('first').length > 0)
  assert.deepEqual(bodied('first').map((c) => [c.type, c.key, c.record]), [['created', String(first.body.id), { body: 'first', etag: first.body.etag, permissions: { update: true, delete: true } }]])
  await until('a second token', () => tokens === 2)
  const second = await admin('POST', '/api/v1/notes', { payload: { body: 'second' } })
  await until('the second change', () => bodied('second').length > 0)
  assert.deepEqual(bodied('second').map((c) => [c.type, c.key, c.record]), [['created', String(second.body.id), { body: 'second', etag: second.body.etag, permissions: { update: true, delete: true } }]])
  assert.equal(listed, 1, 'a reauth resumes from the last id: no second list')
  await users.setBanned('follower@example.com', true)
  const error = await failed
  assert.match(String(error), /access revoked \(token-revoked\): sign in again/)
})
