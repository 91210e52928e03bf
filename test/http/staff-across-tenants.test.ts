// Staff across tenants (docs/access.md "Staff across tenants"): a service role named in `allTenants`
// reads every organization's rows with no active organization, sees the tenant column as a field,
// and names the tenant of a create; the audit log records the tenant each write touched. Members'
// access does not change, and staff with an active organization are confined to it like anyone.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { freshDatabase, runSql, withClient } from '../helpers/db.js'
import { bearer, buildApp, caller, createUser, TEST_SECRET } from '../helpers/app.js'
import auditLog from '../../plugins/audit-log/index.js'
import { createServer } from '../../lib/server.js'
import { bearerIn, TENANCY_RESOURCES, TENANCY_ROLES, TENANCY_SCHEMA, twoOrganizations } from '../fixtures/tenancy-through.js'

const databaseUrl = await freshDatabase()
await runSql(databaseUrl, TENANCY_SCHEMA)
const roles = { ...TENANCY_ROLES.roles, support: ['*.read', 'projects.create', 'projects.update', 'tasks.update', 'comments.create'] }
const app = await buildApp({
  databaseUrl,
  ...TENANCY_ROLES,
  roles,
  allTenants: ['support'],
  plugins: [[auditLog, { resources: ['projects', 'tasks', 'comments'] }]],
  resources: TENANCY_RESOURCES,
})
const { acme, globex } = await twoOrganizations(app)
await createUser(app, 'sue@example.com', 'support')
const sue = caller(app, await bearer(app, 'sue@example.com'))
const ann = caller(app, await bearerIn(app, 'ann@example.com', acme))
const cid = caller(app, await bearerIn(app, 'cid@example.com', globex))

const acmeProject = (await ann('POST', '/api/v1/projects', { payload: { name: 'acme rocket' } })).body
const globexProject = (await cid('POST', '/api/v1/projects', { payload: { name: 'globex widget' } })).body
const acmeTask = (await ann('POST', '/api/v1/tasks', { payload: { project_id: acmeProject.id, title: 'acme launch' } })).body
const globexTask = (await cid('POST', '/api/v1/tasks', { payload: { project_id: globexProject.id, title: 'globex ship' } })).body

test('staff read every organization\'s rows, the tenant column a field of theirs; members still read their own, with no such field', async () => {
  const projects = await sue('GET', '/api/v1/projects?order_by=id')
  assert.equal(projects.status, 200, JSON.stringify(projects.body))
  assert.deepEqual(projects.body.items.map((p: { name: string, org_id: string }) => [p.name, p.org_id]), [['acme rocket', acme], ['globex widget', globex]])
  assert.deepEqual((await sue('GET', `/api/v1/projects?filter=${encodeURIComponent(`org_id = "${globex}"`)}`)).body.items.map((p: { name: string }) => p.name), ['globex widget'])
  assert.deepEqual((await sue('GET', '/api/v1/tasks?order_by=id')).body.items.map((t: { title: string }) => t.title), ['acme launch', 'globex ship'])
  const own = await ann('GET', '/api/v1/projects')
  assert.deepEqual(own.body.items.map((p: { name: string }) => p.name), ['acme rocket'])
  assert.equal('org_id' in own.body.items[0], false)
  assert.equal((await ann('GET', `/api/v1/projects?filter=${encodeURIComponent(`org_id = "${acme}"`)}`)).body.errors[0].code, 'unknown-field')
  const meta = (await sue('GET', '/api/meta')).body
  assert.equal(meta.allTenants, true)
  assert.equal(meta.resources.projects.tenantField, 'org_id')
  assert.deepEqual(meta.resources.projects.fields.org_id, { type: 'string', readOnly: true, readOnlyOnCreate: false, required: true, nullable: false, filterable: true, sortable: true, searchable: false })
  const members = (await ann('GET', '/api/meta')).body
  assert.equal(members.allTenants, undefined)
  assert.ok(!JSON.stringify(members).includes('"org_id"'))
  // Each caller's OpenAPI document says the same: the tenant is a field of staff's records alone.
  assert.ok(JSON.stringify((await sue('GET', '/api/openapi.json')).body).includes('"org_id"'))
  assert.ok(!JSON.stringify((await ann('GET', '/api/openapi.json')).body).includes('"org_id"'))
})

test('a staff create names its tenant, else it is the 400 naming the field; a through create names a parent in any tenant', async () => {
  const missing = await sue('POST', '/api/v1/projects', { payload: { name: 'nowhere' } })
  assert.equal(missing.status, 400)
  assert.equal(missing.body.type, 'urn:service:problem:invalid-record')
  assert.deepEqual(missing.body.errors, [{ field: 'org_id', code: 'required', message: 'org_id is required.' }])
  const created = await sue('POST', '/api/v1/projects', { payload: { name: 'for globex', org_id: globex } })
  assert.equal(created.status, 201, JSON.stringify(created.body))
  assert.equal(created.body.org_id, globex)
  assert.deepEqual((await cid('GET', '/api/v1/projects?order_by=id')).body.items.map((p: { name: string }) => p.name), ['globex widget', 'for globex'])
  assert.equal((await ann('GET', `/api/v1/projects/${created.body.id as number}`)).status, 404)
  const comment = await sue('POST', '/api/v1/comments', { payload: { task_id: globexTask.id, body: 'support was here' } })
  assert.equal(comment.status, 201, JSON.stringify(comment.body))
  // Fixing a row of either organization; the tenant is never changed by an update.
  assert.equal((await sue('PATCH', `/api/v1/tasks/${acmeTask.id as number}`, { payload: { title: 'acme launch (fixed)' }, headers: { 'if-match': '*' } })).status, 200)
  const moved = await sue('PATCH', `/api/v1/projects/${created.body.id as number}`, { payload: { org_id: acme }, headers: { 'if-match': '*' } })
  assert.equal(moved.status, 400)
  assert.deepEqual(moved.body.errors, [{ field: 'org_id', code: 'read-only', message: 'org_id is read-only.' }])
})

test('the audit log records the tenant each staff write touched', async () => {
  const entries = await withClient(databaseUrl, async (c) => (await c.query<{ resource: string, operation: string, tenant: string | null }>(
    `SELECT resource, operation, tenant FROM tablegate_audit_log WHERE user_id = (SELECT id FROM auth_user WHERE email = 'sue@example.com') ORDER BY id`)).rows)
  assert.deepEqual(entries.map((e) => [e.resource, e.operation, e.tenant]), [
    ['projects', 'create', globex],
    ['comments', 'create', globex],
    ['tasks', 'update', acme],
  ])
})

test('staff in an organization are confined to it like anyone', async () => {
  await app.tablegate.organizations!.addMember('acme', 'sue@example.com', 'member')
  const inAcme = caller(app, await bearerIn(app, 'sue@example.com', acme))
  const projects = (await inAcme('GET', '/api/v1/projects')).body.items
  assert.deepEqual(projects.map((p: { name: string }) => p.name), ['acme rocket'])
  assert.equal('org_id' in projects[0], false)
})

test('allTenants names service roles of the role list: a misspelt one fails the start', async () => {
  await assert.rejects(async () => await createServer({ databaseUrl, authSecret: TEST_SECRET, ...TENANCY_ROLES, roles, allTenants: ['suport'], resources: TENANCY_RESOURCES }),
    /config\.allTenants: role 'suport' is not in the role list \(.*\) \(did you mean 'support'\?\)/)
})
