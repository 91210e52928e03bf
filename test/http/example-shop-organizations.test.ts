// The example shop (`npm start`'s config) with its two organizations made as README's walk-through
// makes them: users in the store, then `tablegate org create` on the host. Each organization's
// projects are its own; its members work in it through the session's active organization.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { join } from 'node:path'
import shop from '../../examples/shop/tablegate.config.js'
import { buildApp, caller, createUser, json, sessionCookie, signIn } from '../helpers/app.js'
import { freshDatabase } from '../helpers/db.js'
import { cliRunnerInProcess, ok, root } from '../helpers/cli.js'
import { assertProblem } from '../helpers/login.js'

const SECRET = 'example-shop-secret-0123456789-abcdefghijk'
const databaseUrl = await freshDatabase()
// The compiled config sits in dist/, its migrations beside the source.
const app = await buildApp({ ...shop, databaseUrl, authSecret: SECRET, migrations: join(root, 'examples', 'shop', 'migrations') })
const cli = cliRunnerInProcess({ databaseUrl, secret: SECRET, config: join(root, 'tablegate.config.ts') })
for (const email of ['admin@example.com', 'ann@example.com', 'bob@example.com', 'cid@example.com']) await createUser(app, email)

/** A bearer token of `email` working in the organization `slug` (set active as the console or a client would). */
async function inOrganization (email: string, slug?: string): Promise<Record<string, string>> {
  const cookie = sessionCookie(await signIn(app, email))
  if (slug !== undefined) {
    const active = await app.inject({ method: 'POST', url: '/api/auth/organization/set-active', headers: { cookie, origin: 'http://localhost:5173' }, payload: { organizationSlug: slug } })
    assert.equal(active.statusCode, 200, active.body)
  }
  const token = await app.inject({ method: 'GET', url: '/api/auth/token', headers: { cookie } })
  assert.equal(token.statusCode, 200, token.body)
  return { authorization: `Bearer ${json(token).token as string}` }
}

test('the shop\'s two organizations, made on the host as README says, keep their projects apart', async () => {
  const acme = await cli(['org', 'create', '--name', 'Acme', '--slug', 'acme', '--owner', 'ann@example.com'])
  ok(acme, 'org create acme')
  assert.equal(acme.stdout.trim(), 'created organization acme (Acme) owned by ann@example.com')
  ok(await cli(['org', 'create', '--name', 'Globex', '--slug', 'globex', '--owner', 'bob@example.com']), 'org create globex')
  await app.tablegate.organizations!.addMember('acme', 'cid@example.com', 'member')

  const ann = caller(app, await inOrganization('ann@example.com', 'acme'))
  const bob = caller(app, await inOrganization('bob@example.com', 'globex'))
  const cid = caller(app, await inOrganization('cid@example.com', 'acme'))
  const rocket = await ann('POST', '/api/v1/projects', { payload: { name: 'Rocket', budget: '1200.50' } })
  assert.equal(rocket.status, 201, JSON.stringify(rocket.body))
  assert.deepEqual(Object.keys(rocket.body).sort(), ['budget', 'created_at', 'etag', 'id', 'name'])
  assert.equal((await bob('POST', '/api/v1/projects', { payload: { name: 'Widget' } })).status, 201)
  assert.equal((await cid('POST', '/api/v1/projects', { payload: { name: 'Fuel' } })).status, 201)

  const names = async (call: typeof ann) => (await call('GET', '/api/v1/projects?order_by=name')).body.items.map((p: { name: string }) => p.name)
  assert.deepEqual(await names(ann), ['Fuel', 'Rocket'])
  assert.deepEqual(await names(cid), ['Fuel', 'Rocket'])
  assert.deepEqual(await names(bob), ['Widget'])
  assert.equal((await bob('GET', `/api/v1/projects/${rocket.body.id as string}`)).status, 404)
  // roleCapabilities: a member creates but does not delete; the owner does.
  assert.equal((await cid('DELETE', `/api/v1/projects/${rocket.body.id as string}`, { headers: { 'if-match': '*' } })).status, 403)
  assert.equal((await ann('DELETE', `/api/v1/projects/${rocket.body.id as string}`, { headers: { 'if-match': '*' } })).status, 204)
  // The shop's own tables are everyone's, in an organization or not, as before.
  assert.equal((await bob('GET', '/api/v1/orders?page_size=1')).status, 200)
  const outside = await inOrganization('cid@example.com')
  assert.equal((await caller(app, outside)('GET', '/api/v1/customers')).status, 200)
  // Outside an organization, projects are no resource of a user's: their role gives nothing on them.
  assertProblem(await app.inject({ method: 'GET', url: '/api/v1/projects', headers: outside }), 404, 'not-found')
  // The first user is the service admin: every capability, yet still no tenant outside an organization.
  assertProblem(await app.inject({ method: 'GET', url: '/api/v1/projects', headers: await inOrganization('admin@example.com') }), 403, 'tenant-required')
})
