// Tenancy from organizations (docs/organizations.md, "Tokens" and "Tenancy"): GET /api/auth/token
// carries the session's active organization and the member's role as `org`, the verifier makes it
// the caller's tenant and `ctx.org`, and membership changes reach older tokens within the
// revocation poll (100 ms here), and at once where the change is made through a route of this
// process. The active organization is set in the session table directly, as set-active leaves it.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import type { FastifyInstance } from 'fastify'
import { freshDatabase, runSql } from '../helpers/db.js'
import { buildApp, caller, createUser, json, sessionCookie, signIn, usersOf } from '../helpers/app.js'
import { assertProblem } from '../helpers/login.js'
import type { Config } from '../../lib/config/schema.js'

const databaseUrl = await freshDatabase()
await runSql(databaseUrl, `
  CREATE TABLE projects (id serial PRIMARY KEY, name text NOT NULL, org_id text NOT NULL);
  CREATE TABLE tasks (id serial PRIMARY KEY, title text NOT NULL, project_id integer REFERENCES projects (id), org_id text NOT NULL);
  CREATE INDEX tasks_project_id ON tasks (org_id, project_id);
  CREATE TABLE reports (id serial PRIMARY KEY, title text NOT NULL);
  INSERT INTO reports (title) VALUES ('shared');
`)
const config: Config = {
  databaseUrl,
  // The service role `user` may read projects (in an organization); writing them comes from the organization role.
  roles: { admin: ['*'], user: ['reports.read', 'projects.read', 'tasks.read'] },
  defaultRole: 'user',
  revocationPollMs: 100,
  // Every test signs in afresh, more often than a person would.
  signInPerMinute: 1000,
  organizations: { roleCapabilities: { member: ['projects.create', 'tasks.*'], admin: ['projects.*', 'tasks.*'], owner: ['projects.*', 'tasks.*'] } },
  resources: {
    projects: {
      tenant: 'org_id',
      fields: { id: { type: 'integer', readOnly: true, dbDefault: true }, name: { type: 'string', required: true } },
      // A rule sees the organization role too: only an organization's owner may rename.
      access: { fields: { name: { write: (ctx) => ctx.operation === 'create' || ctx.org?.roles.includes('owner') === true } } },
    },
    tasks: {
      tenant: 'org_id',
      fields: { id: { type: 'integer', readOnly: true, dbDefault: true }, title: { type: 'string', required: true }, project_id: { type: 'integer', references: 'projects' } },
      relations: { project: { field: 'project_id' } },
    },
    reports: { fields: { id: { type: 'integer', readOnly: true }, title: { type: 'string' } } },
  },
}
const app = await buildApp(config)
const orgs = app.tablegate.organizations!
for (const email of ['ann@example.com', 'bob@example.com', 'cid@example.com']) await createUser(app, email, 'user')
const acme = await orgs.create({ name: 'Acme', slug: 'acme', owner: 'ann@example.com' })
const globex = await orgs.create({ name: 'Globex', slug: 'globex', owner: 'cid@example.com' })
await orgs.addMember('acme', 'bob@example.com', 'admin')
await orgs.addMember('globex', 'bob@example.com', 'member')

/** A session of the user, in `organization` when given (as set-active would leave it). */
async function sessionOf (email: string, organizationId?: string): Promise<string> {
  const cookie = sessionCookie(await signIn(app, email))
  const { rows } = await usersOf(app).pool.query('SELECT id FROM auth_session WHERE user_id = (SELECT id FROM auth_user WHERE email = $1) ORDER BY created_at DESC LIMIT 1', [email])
  await usersOf(app).pool.query('UPDATE auth_session SET active_organization_id = $1 WHERE id = $2', [organizationId ?? null, rows[0].id])
  return cookie
}

async function tokenOf (cookie: string): Promise<string> {
  const response = await app.inject({ method: 'GET', url: '/api/auth/token', headers: { cookie } })
  assert.equal(response.statusCode, 200, response.body)
  return json(response).token
}

async function bearerIn (email: string, organizationId?: string): Promise<Record<string, string>> {
  return { authorization: `Bearer ${await tokenOf(await sessionOf(email, organizationId))}` }
}

function payloadOf (token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString())
}

async function names (app: FastifyInstance, auth: Record<string, string>): Promise<string[]> {
  const list = await caller(app, auth)('GET', '/api/v1/projects?order_by=name')
  assert.equal(list.status, 200, JSON.stringify(list.body))
  return list.body.items.map((p: { name: string }) => p.name)
}

/** Polls until `check` holds, at most `ms`. */
async function within (ms: number, check: () => Promise<boolean>): Promise<void> {
  const started = Date.now()
  while (!(await check())) {
    if (Date.now() - started > ms) assert.fail(`not within ${ms} ms`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

test('the token carries the active organization and the member\'s role; without one it is as before', async () => {
  const inAcme = payloadOf(await tokenOf(await sessionOf('bob@example.com', acme.id)))
  assert.deepEqual(inAcme.org, { id: acme.id, role: 'admin' })
  assert.deepEqual(Object.keys(inAcme).sort(), ['aud', 'exp', 'iat', 'iss', 'org', 'role', 'sub'])
  assert.deepEqual(payloadOf(await tokenOf(await sessionOf('bob@example.com', globex.id))).org, { id: globex.id, role: 'member' })
  const none = payloadOf(await tokenOf(await sessionOf('bob@example.com')))
  assert.deepEqual(Object.keys(none).sort(), ['aud', 'exp', 'iat', 'iss', 'role', 'sub'])
  // A session left in an organization its user is no longer in gets a token without it.
  await orgs.addMember('globex', 'ann@example.com', 'member')
  const cookie = await sessionOf('ann@example.com', globex.id)
  await usersOf(app).pool.query('DELETE FROM auth_member WHERE organization_id = $1 AND user_id = (SELECT id FROM auth_user WHERE email = $2)', [globex.id, 'ann@example.com'])
  assert.equal(payloadOf(await tokenOf(cookie)).org, undefined)
})

test('each organization\'s rows are its own: list, get, create, update, delete and counts never mix', async () => {
  const bobAcme = caller(app, await bearerIn('bob@example.com', acme.id))
  const bobGlobex = caller(app, await bearerIn('bob@example.com', globex.id))
  const made = await bobAcme('POST', '/api/v1/projects', { payload: { name: 'rocket' } })
  assert.equal(made.status, 201, JSON.stringify(made.body))
  assert.deepEqual(Object.keys(made.body).sort(), ['etag', 'id', 'name'])
  assert.equal((await bobGlobex('POST', '/api/v1/projects', { payload: { name: 'widget' } })).status, 201)
  const { rows } = await usersOf(app).pool.query('SELECT name, org_id FROM projects ORDER BY name')
  assert.deepEqual(rows, [{ name: 'rocket', org_id: acme.id }, { name: 'widget', org_id: globex.id }])
  assert.deepEqual(await names(app, await bearerIn('ann@example.com', acme.id)), ['rocket'])
  assert.deepEqual(await names(app, await bearerIn('cid@example.com', globex.id)), ['widget'])
  // Acme's row does not exist in Globex, whatever the request says.
  assert.equal((await bobGlobex('GET', `/api/v1/projects/${made.body.id}`)).status, 404)
  const globexOwner = caller(app, await bearerIn('cid@example.com', globex.id))
  assert.equal((await globexOwner('DELETE', `/api/v1/projects/${made.body.id}`, { headers: { 'if-match': '*' } })).status, 404)
  const smuggled = await bobGlobex('POST', '/api/v1/projects', { payload: { name: 'x', org_id: acme.id } })
  assert.equal(smuggled.status, 400)
  assert.deepEqual(smuggled.body.errors.map((e: { field: string }) => e.field), ['org_id'])
  assert.equal((await bobGlobex('GET', `/api/v1/projects?filter=${encodeURIComponent(`org_id = "${acme.id}"`)}`)).status, 400)
  const counted = await bobGlobex('GET', '/api/v1/projects?count=exact')
  assert.equal(counted.status, 200, JSON.stringify(counted.body))
  assert.equal(counted.body.total_size, 1)
  const facets = await bobGlobex('GET', '/api/v1/projects:facets?field=name')
  assert.equal(facets.status, 200, JSON.stringify(facets.body))
  assert.deepEqual(facets.body.facets, [{ value: 'widget', count: 1 }])
})

test('no active organization: tenant-scoped resources answer 403 tenant-required, others as before', async () => {
  const auth = await bearerIn('bob@example.com')
  assertProblem(await app.inject({ method: 'GET', url: '/api/v1/projects', headers: auth }), 403, 'tenant-required')
  assert.equal((await caller(app, auth)('GET', '/api/v1/reports')).status, 200)
  // A token minted by the host (no session, so no organization) likewise.
  const { token } = await usersOf(app).issueToken('bob@example.com')
  assertProblem(await app.inject({ method: 'GET', url: '/api/v1/projects', headers: { authorization: `Bearer ${token}` } }), 403, 'tenant-required')
})

test('the org claim is signed: a token whose organization was changed is refused', async () => {
  const token = await tokenOf(await sessionOf('bob@example.com', globex.id))
  const [header, , signature] = token.split('.')
  const forged = { ...payloadOf(token), org: { id: acme.id, role: 'admin' } }
  const tampered = `${header}.${Buffer.from(JSON.stringify(forged)).toString('base64url')}.${signature}`
  assertProblem(await app.inject({ method: 'GET', url: '/api/v1/projects', headers: { authorization: `Bearer ${tampered}` } }), 401, 'unauthenticated')
  assert.deepEqual(await names(app, { authorization: `Bearer ${token}` }), ['widget'])
})

test('capabilities per organization role: a member reads and creates, an admin deletes; rules see ctx.org', async () => {
  const bobGlobex = caller(app, await bearerIn('bob@example.com', globex.id))
  const made = await bobGlobex('POST', '/api/v1/projects', { payload: { name: 'gizmo' } })
  assert.equal(made.status, 201)
  assertProblem(await app.inject({ method: 'DELETE', url: `/api/v1/projects/${made.body.id}`, headers: { ...await bearerIn('bob@example.com', globex.id), 'if-match': '*' } }), 403, 'access-denied')
  // Only the owner may rename (a field rule on ctx.org): the admin of Acme may not, its owner may.
  const rocket = (await caller(app, await bearerIn('ann@example.com', acme.id))('GET', '/api/v1/projects')).body.items[0]
  const asAdmin = await caller(app, await bearerIn('bob@example.com', acme.id))('PATCH', `/api/v1/projects/${rocket.id}`, { payload: { name: 'rocket 2' }, headers: { 'if-match': '*' } })
  assert.equal(asAdmin.status, 400, JSON.stringify(asAdmin.body))
  const asOwner = await caller(app, await bearerIn('ann@example.com', acme.id))('PATCH', `/api/v1/projects/${rocket.id}`, { payload: { name: 'rocket 2' }, headers: { 'if-match': '*' } })
  assert.equal(asOwner.status, 200, JSON.stringify(asOwner.body))
  const deleted = await caller(app, await bearerIn('cid@example.com', globex.id))('DELETE', `/api/v1/projects/${made.body.id}`, { headers: { 'if-match': '*' } })
  assert.equal(deleted.status, 204, JSON.stringify(deleted.body))
})

test('/api/meta, the OpenAPI document and X-Meta-Version vary with the organization role', async () => {
  const admin = await bearerIn('bob@example.com', acme.id)
  const member = await bearerIn('bob@example.com', globex.id)
  const none = await bearerIn('bob@example.com')
  const get = async (auth: Record<string, string>, url: string) => await app.inject({ method: 'GET', url, headers: auth })
  const versions = await Promise.all([admin, member, none].map(async (auth) => (await get(auth, '/api/meta')).headers['x-meta-version']))
  assert.equal(new Set(versions).size, 3)
  // A caller outside every organization keeps the version of their roles alone.
  assert.equal(versions[2], app.tablegate.metaVersion(['user']))
  // An admin of the organization may delete projects, a member not: their documents say so.
  const deletes = async (auth: Record<string, string>) => 'delete' in json(await get(auth, '/api/openapi.json')).paths['/api/v1/projects/{key}']
  assert.deepEqual([await deletes(admin), await deletes(member)], [true, false])
  const openapiEtags = await Promise.all([admin, member].map(async (auth) => (await get(auth, '/api/openapi.json')).headers.etag))
  assert.notEqual(openapiEtags[0], openapiEtags[1])
})

test('removing a member ends their tokens for that organization within the poll; other organizations keep working', async () => {
  await orgs.addMember('acme', 'cid@example.com', 'member')
  const cookie = await sessionOf('cid@example.com', acme.id)
  const inAcme = { authorization: `Bearer ${await tokenOf(cookie)}` }
  const inGlobex = await bearerIn('cid@example.com', globex.id)
  assert.deepEqual(await names(app, inAcme), ['rocket 2'])
  await orgs.removeMember('acme', 'cid@example.com')
  await within(2000, async () => (await app.inject({ method: 'GET', url: '/api/v1/projects', headers: inAcme })).statusCode === 403)
  assertProblem(await app.inject({ method: 'GET', url: '/api/v1/projects', headers: inAcme }), 403, 'tenant-required')
  assert.deepEqual(await names(app, inGlobex), ['widget'])
  // The session's organization was cleared: a new token has none.
  assert.equal(payloadOf(await tokenOf(cookie)).org, undefined)
})

test('lowering a role stops what needed the higher one within the poll; a new token carries the new role', async () => {
  await orgs.addMember('acme', 'cid@example.com', 'admin')
  const cookie = await sessionOf('cid@example.com', acme.id)
  const auth = { authorization: `Bearer ${await tokenOf(cookie)}` }
  const made = await caller(app, auth)('POST', '/api/v1/projects', { payload: { name: 'doomed' } })
  const kept = await caller(app, auth)('POST', '/api/v1/projects', { payload: { name: 'kept' } })
  assert.equal((await caller(app, auth)('DELETE', `/api/v1/projects/${made.body.id}`, { headers: { 'if-match': '*' } })).status, 204)
  await orgs.setRole('acme', 'cid@example.com', 'member')
  // Probed on a row that is not there (404 while delete is allowed), so the probe deletes nothing.
  await within(2000, async () => (await caller(app, auth)('DELETE', '/api/v1/projects/999999', { headers: { 'if-match': '*' } })).status === 403)
  assert.equal((await caller(app, auth)('DELETE', `/api/v1/projects/${kept.body.id}`, { headers: { 'if-match': '*' } })).status, 403)
  // Still a member: reading works with the old token, and a new token says member.
  assert.deepEqual(await names(app, auth), ['kept', 'rocket 2'])
  const fresh = await tokenOf(cookie)
  assert.deepEqual(payloadOf(fresh).org, { id: acme.id, role: 'member' })
  assert.equal((await caller(app, { authorization: `Bearer ${fresh}` })('DELETE', `/api/v1/projects/${kept.body.id}`, { headers: { 'if-match': '*' } })).status, 403)
})

test('banning the user ends their organization tokens too', async () => {
  await createUser(app, 'dee@example.com', 'user')
  await orgs.addMember('globex', 'dee@example.com', 'member')
  const auth = await bearerIn('dee@example.com', globex.id)
  assert.equal((await caller(app, auth)('GET', '/api/v1/projects')).status, 200)
  await usersOf(app).setBanned('dee@example.com', true)
  await within(2000, async () => (await caller(app, auth)('GET', '/api/v1/projects')).status === 401)
})

test('without organizations configured the token has no org claim, whatever the session holds, and an org claim is no tenant', async () => {
  const plain = await buildApp({ databaseUrl, roles: ['admin', 'user'], signInPerMinute: 1000, resources: { reports: config.resources!.reports!, projects: { ...config.resources!.projects!, access: {} } } })
  // A token of the app with organizations (same store, so same keys and issuer) names Acme: here it is no tenant.
  assertProblem(await plain.inject({ method: 'GET', url: '/api/v1/projects', headers: await bearerIn('ann@example.com', acme.id) }), 403, 'tenant-required')
  const cookie = sessionCookie(await signIn(plain, 'bob@example.com'))
  await usersOf(plain).pool.query('UPDATE auth_session SET active_organization_id = $1 WHERE user_id = (SELECT id FROM auth_user WHERE email = $2)', [acme.id, 'bob@example.com'])
  const response = await plain.inject({ method: 'GET', url: '/api/auth/token', headers: { cookie } })
  assert.deepEqual(Object.keys(payloadOf(json(response).token)).sort(), ['aud', 'exp', 'iat', 'iss', 'role', 'sub'])
})

test('a capability of an organization role is checked at startup like a bundle\'s', async () => {
  await assert.rejects(buildApp({ ...config, organizations: { roleCapabilities: { member: ['projets.read'] } } }),
    /config\.organizations\.roleCapabilities\.member\[0\]: 'projets\.read' names resource 'projets', which does not exist \(did you mean 'projects'\?\)/)
})

test('exports, batches and relations stay in the caller\'s organization too', async () => {
  const annAcme = caller(app, await bearerIn('ann@example.com', acme.id))
  const cidGlobex = caller(app, await bearerIn('cid@example.com', globex.id))
  const alpha = await annAcme('POST', '/api/v1/projects', { payload: { name: 'alpha' } })
  assert.equal(alpha.status, 201)
  // Acme's project cannot be referenced, embedded, filtered on, exported or batch-written from Globex.
  const foreign = await cidGlobex('POST', '/api/v1/tasks', { payload: { title: 'sneak', project_id: alpha.body.id } })
  assert.equal(foreign.status, 400, JSON.stringify(foreign.body))
  assert.deepEqual(foreign.body.errors.map((e: { field: string }) => e.field), ['project_id'])
  const own = await annAcme('POST', '/api/v1/tasks', { payload: { title: 'launch', project_id: alpha.body.id } })
  assert.equal(own.status, 201, JSON.stringify(own.body))
  const embedded = await annAcme('GET', '/api/v1/tasks?fields=title,project.name')
  assert.deepEqual(embedded.body.items.map((t: any) => [t.title, t.project?.name]), [['launch', 'alpha']])
  const filtered = await cidGlobex('GET', `/api/v1/tasks?filter=${encodeURIComponent('project.name = "alpha"')}`)
  assert.equal(filtered.status, 200, JSON.stringify(filtered.body))
  assert.deepEqual(filtered.body.items, [])
  const exported = await app.inject({ method: 'GET', url: '/api/v1/projects:export', headers: await bearerIn('cid@example.com', globex.id) })
  assert.equal(exported.statusCode, 200, exported.body)
  assert.deepEqual(exported.body.trim().split('\n').map((line) => JSON.parse(line).name), ['widget'])
  const batch = await cidGlobex('POST', '/api/v1:batchWrite', { payload: { operations: [{ op: 'update', resource: 'projects', key: alpha.body.id, etag: '*', data: { name: 'taken' } }] } })
  assert.equal(batch.status, 404, JSON.stringify(batch.body))
  const { rows } = await usersOf(app).pool.query('SELECT name, org_id FROM projects WHERE id = $1', [alpha.body.id])
  assert.deepEqual(rows, [{ name: 'alpha', org_id: acme.id }])
})

test('the docs page of a session in an organization is that organization\'s, and so is its "try it" token', async () => {
  const cookie = await sessionOf('bob@example.com', acme.id)
  const response = await app.inject({ method: 'GET', url: '/api/docs/openapi.json', headers: { cookie } })
  assert.equal(response.statusCode, 200, response.body)
  const document = json(response)
  assert.ok('delete' in document.paths['/api/v1/projects/{key}'], 'an admin of Acme deletes projects')
  assert.deepEqual(payloadOf(document.components.securitySchemes.bearer['x-scalar-secret-token']).org, { id: acme.id, role: 'admin' })
})

/** A POST to an organization route with the session `cookie`, from the app's own origin. */
async function organizationRoute (cookie: string, path: string, payload: Record<string, unknown>) {
  return await app.inject({ method: 'POST', url: `/api/auth/organization/${path}`, headers: { cookie, origin: 'http://localhost:5173' }, payload })
}

test('removed or demoted through a route, a member\'s older tokens stop at once, not at the next poll', async () => {
  const team = await orgs.create({ name: 'Team', slug: 'team', owner: 'ann@example.com' })
  const member = await orgs.addMember('team', 'cid@example.com', 'admin')
  const owner = await sessionOf('ann@example.com', team.id)
  const auth = await bearerIn('cid@example.com', team.id)
  const create = async (): Promise<number> => (await caller(app, auth)('POST', '/api/v1/projects', { payload: { name: 'p' } })).status
  assert.equal(await create(), 201)
  assert.equal((await organizationRoute(owner, 'update-member-role', { memberId: member.id, role: 'member', organizationId: team.id })).statusCode, 200)
  // An organization member may create (roleCapabilities), but not delete: the demotion holds.
  const made = await caller(app, auth)('POST', '/api/v1/projects', { payload: { name: 'q' } })
  assert.equal((await caller(app, auth)('DELETE', `/api/v1/projects/${made.body.id as string}`)).status, 403)
  assert.equal((await organizationRoute(owner, 'remove-member', { memberIdOrEmail: 'cid@example.com', organizationId: team.id })).statusCode, 200)
  assertProblem(await app.inject({ method: 'GET', url: '/api/v1/projects', headers: auth }), 403, 'tenant-required')
})

test('deleting an organization through its route: its members\' tokens for it stop at once', async () => {
  const doomed = await orgs.create({ name: 'Doomed', slug: 'doomed', owner: 'bob@example.com' })
  const cookie = await sessionOf('bob@example.com', doomed.id)
  const auth = { authorization: `Bearer ${await tokenOf(cookie)}` }
  assert.equal((await caller(app, auth)('GET', '/api/v1/projects')).status, 200)
  assert.equal((await organizationRoute(cookie, 'delete', { organizationId: doomed.id })).statusCode, 200)
  assertProblem(await app.inject({ method: 'GET', url: '/api/v1/projects', headers: auth }), 403, 'tenant-required')
})
