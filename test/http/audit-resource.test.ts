// The audit log as a read-only resource: rows by its own read rule, and in `before`/`after` only
// the fields each caller may read of the audited resource, on every read route.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { freshDatabase, runSql } from '../helpers/db.js'
import { buildApp, createUser, bearer, caller } from '../helpers/app.js'
import { createServer } from '../../lib/server.js'
import auditLog from '../../plugins/audit-log/index.js'
import type { Config } from '../../lib/config/schema.js'

const databaseUrl = await freshDatabase()
await runSql(databaseUrl, `
  CREATE TABLE tasks (id serial PRIMARY KEY, title text NOT NULL, note text);
  CREATE TABLE salaries (id serial PRIMARY KEY, amount integer NOT NULL)`)
const config: Config = {
  databaseUrl,
  roles: ['admin', 'member', 'auditor'],
  resources: {
    tasks: {
      fields: { id: { type: 'integer', readOnly: true }, title: { type: 'string' }, note: { type: 'string', nullable: true } },
      access: { read: ['admin', 'member', 'auditor'], create: ['admin', 'member'], update: ['admin', 'member'], fields: { note: { read: ['admin', 'member'] } } },
    },
    salaries: {
      fields: { id: { type: 'integer', readOnly: true }, amount: { type: 'integer' } },
      access: { read: ['admin'], create: ['admin'] },
    },
  },
  plugins: [[auditLog, { resource: 'audit_log', read: ['admin', 'auditor'] }]],
}
const app = await buildApp(config)
await createUser(app, 'admin@example.com', 'admin')
await createUser(app, 'member@example.com', 'member')
await createUser(app, 'auditor@example.com', 'auditor')
const admin = caller(app, await bearer(app, 'admin@example.com'))
const member = caller(app, await bearer(app, 'member@example.com'))
const auditorAuth = await bearer(app, 'auditor@example.com')
const auditor = caller(app, auditorAuth)

const task = (await member('POST', '/api/v1/tasks', { payload: { title: 'Plan', note: 'the secret plan' } })).body
await member('PATCH', `/api/v1/tasks/${task.id}`, { headers: { 'if-match': task.etag }, payload: { title: 'Plan B' } })
await admin('POST', '/api/v1/salaries', { payload: { amount: 90000 } })

test('an admin reads whole records in before and after, newest first when asked', async () => {
  const page = await admin('GET', '/api/v1/audit_log?filter=resource = "tasks"&order_by=id desc')
  assert.equal(page.status, 200)
  const [update, create] = page.body.items
  assert.deepEqual([update.operation, create.operation], ['update', 'create'])
  assert.equal(update.record_key, String(task.id))
  assert.deepEqual(create.before, null)
  assert.deepEqual(create.after, { id: task.id, title: 'Plan', note: 'the secret plan' })
  assert.deepEqual(update.after, { id: task.id, title: 'Plan B', note: 'the secret plan' })
  assert.match(update.at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/)
})

test('an auditor sees only the fields they may read of each audited resource, on every read route', async () => {
  const page = await auditor('GET', '/api/v1/audit_log?filter=resource != "auth.users"&order_by=id')
  assert.equal(page.status, 200)
  const [create, update, salary] = page.body.items
  assert.deepEqual(create.after, { id: task.id, title: 'Plan' })
  assert.deepEqual(update.before, { id: task.id, title: 'Plan' })
  assert.deepEqual(update.after, { id: task.id, title: 'Plan B' })
  // A resource the auditor cannot read shows that a write happened, and nothing of the record.
  assert.equal(salary.resource, 'salaries')
  assert.deepEqual([salary.before, salary.after], [null, null])
  assert.doesNotMatch(JSON.stringify(page.body), /secret|90000/)

  const one = await auditor('GET', `/api/v1/audit_log/${create.id}`)
  assert.equal(one.status, 200)
  assert.deepEqual(one.body.after, { id: task.id, title: 'Plan' })
  assert.equal(one.headers.etag, create.etag)
  const searched = await auditor('POST', '/api/v1/audit_log:search', { payload: { filter: `id = ${update.id}` } })
  assert.deepEqual(searched.body.items[0].after, { id: task.id, title: 'Plan B' })
  const sought = await auditor('GET', '/api/v1/audit_log:seek?position=0&order_by=id&filter=resource = "tasks"')
  assert.deepEqual(sought.body.items[0].after, { id: task.id, title: 'Plan' })
  const exported = await app.inject({ method: 'GET', url: '/api/v1/audit_log:export?format=csv', headers: auditorAuth })
  assert.equal(exported.statusCode, 200)
  assert.match(exported.body, /Plan B/)
  assert.doesNotMatch(exported.body, /secret|90000/)
})

test('the ETag of a row is that of what the caller sees: an admin and an auditor get different ones', async () => {
  const id = (await admin('GET', '/api/v1/audit_log?filter=resource = "tasks"&order_by=id')).body.items[0].id
  const seenByAdmin = await admin('GET', `/api/v1/audit_log/${id}`)
  const seenByAuditor = await auditor('GET', `/api/v1/audit_log/${id}`)
  assert.notEqual(seenByAdmin.headers.etag, seenByAuditor.headers.etag)
  const notModified = await auditor('GET', `/api/v1/audit_log/${id}`, { headers: { 'if-none-match': seenByAuditor.headers.etag as string } })
  assert.equal(notModified.status, 304)
})

test('before and after cannot be filtered, sorted or searched by: a filter would answer by what they hide', async () => {
  for (const url of ['/api/v1/audit_log?filter=after.note = "the secret plan"', '/api/v1/audit_log?filter=after:"secret"']) {
    const refused = await auditor('GET', url)
    assert.equal(refused.status, 400, url)
    assert.equal(refused.body.type, 'urn:service:problem:invalid-filter')
  }
  const unsorted = await admin('GET', '/api/v1/audit_log?order_by=after')
  assert.equal(unsorted.status, 400)
  assert.equal(unsorted.body.type, 'urn:service:problem:invalid-order-by')
})

test('the log is read-only for everyone, and absent for a role its read rule leaves out', async () => {
  const created = await admin('POST', '/api/v1/audit_log', { payload: { resource: 'tasks', operation: 'create', record_key: '1' } })
  assert.equal(created.status, 403)
  assert.equal(created.body.type, 'urn:service:problem:access-denied')
  const id = (await admin('GET', '/api/v1/audit_log')).body.items[0].id
  const deleted = await admin('DELETE', `/api/v1/audit_log/${id}`)
  assert.equal(deleted.status, 403)
  const batch = await admin('POST', '/api/v1:batchWrite', { payload: { ops: [{ op: 'delete', resource: 'audit_log', key: id }] } })
  assert.equal(batch.status, 403)
  const hidden = await member('GET', '/api/v1/audit_log')
  assert.equal(hidden.status, 404)
  assert.equal(hidden.body.type, 'urn:service:problem:not-found')
  const meta = await auditor('GET', '/api/meta')
  assert.deepEqual(meta.body.permissions.audit_log, { read: true, create: false, update: false, delete: false, export: true, conditional: [], showDeleted: false })
})

test('a plugin resource whose name the config already uses fails the start, naming both', async () => {
  const clash = { ...config, resources: { ...config.resources, audit_log: config.resources!.tasks! } }
  await assert.rejects(createServer({ ...clash, authSecret: 'test-secret-that-is-long-enough-0123456789' }),
    /config\.plugins\[0\]: the plugin adds a resource 'audit_log', which config\.resources already has/)
})

test('the resource option without config.plugins is refused when the plugin registers, not ignored', async () => {
  const plain = await createServer({ databaseUrl, authSecret: 'test-secret-that-is-long-enough-0123456789', roles: config.roles, resources: config.resources })
  try {
    await assert.rejects(async () => { await plain.register(auditLog, { resource: 'audit_log' }); await plain.ready() },
      /exists only when the plugin is given in config\.plugins/)
  } finally {
    await plain.close()
  }
})
