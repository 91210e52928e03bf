// Existing tenants as organizations (docs/organizations.md, "Moving an existing multi-tenant
// database"): a database whose `projects.org_id` (integer) and `documents.company_id` (uuid) hold
// tenant ids from before tablegate. Organizations made on the host with those ids, by `create` and
// by `import`, hold those rows: each member sees their organization's rows over the API, writes
// land under the same ids, and no row is rewritten.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildApp, caller, createUser, json, sessionCookie, signIn } from '../helpers/app.js'
import { freshDatabase, withClient } from '../helpers/db.js'
import { driftLines } from '../../lib/init/drift.js'
import { buildModels } from '../../lib/model/build.js'

const ACME_UUID = '6f1c7b9e-2d4a-4c8e-9b1f-3a5d7e9c0b2a'
const GLOBEX_UUID = 'b3e0a6d2-8f14-4e7a-a9c5-1d2f3e4a5b6c'
const databaseUrl = await freshDatabase()
await withClient(databaseUrl, async (client) => {
  await client.query(`
    CREATE TABLE projects (id serial PRIMARY KEY, name text NOT NULL, org_id integer NOT NULL);
    CREATE INDEX projects_org_id ON projects (org_id);
    INSERT INTO projects (name, org_id) VALUES ('Apollo', 42), ('Mercury', 7), ('Gemini', 42), ('Orphan', 99);
    CREATE TABLE documents (id serial PRIMARY KEY, title text NOT NULL, company_id uuid NOT NULL);
    CREATE INDEX documents_company_id ON documents (company_id);
    INSERT INTO documents (title, company_id) VALUES ('Charter', '${ACME_UUID}'), ('Ledger', '${GLOBEX_UUID}');
  `)
})
const app = await buildApp({
  databaseUrl,
  roles: { admin: ['*'], user: ['projects.*', 'documents.*'] },
  defaultRole: 'user',
  signInPerMinute: 1000,
  organizations: {},
  resources: {
    projects: {
      tenant: 'org_id',
      fields: { id: { type: 'integer', readOnly: true, dbDefault: true }, name: { type: 'string', required: true } },
    },
    documents: {
      tenant: 'company_id',
      fields: { id: { type: 'integer', readOnly: true, dbDefault: true }, title: { type: 'string', required: true } },
    },
  },
})
const orgs = app.tablegate.organizations!
for (const email of ['ann@example.com', 'bob@example.com', 'cid@example.com']) await createUser(app, email)

/** The rows of a table as stored, to show the API rewrote none. */
async function stored (table: 'projects' | 'documents'): Promise<Array<[string, string]>> {
  return await withClient(databaseUrl, async (client) => {
    const tenant = table === 'projects' ? 'org_id' : 'company_id'
    const { rows } = await client.query(`SELECT ${table === 'projects' ? 'name' : 'title'} AS name, ${tenant}::text AS tenant FROM ${table} ORDER BY id`)
    return rows.map((r) => [r.name, r.tenant])
  })
}

/** A caller working in the organization `id`, made active by the route a client calls. */
async function memberIn (email: string, id: string): Promise<ReturnType<typeof caller>> {
  const cookie = sessionCookie(await signIn(app, email))
  const active = await app.inject({ method: 'POST', url: '/api/auth/organization/set-active', headers: { cookie, origin: 'http://localhost:5173' }, payload: { organizationId: id } })
  assert.equal(active.statusCode, 200, active.body)
  assert.equal(json(active).id, id)
  const token = await app.inject({ method: 'GET', url: '/api/auth/token', headers: { cookie } })
  assert.equal(token.statusCode, 200, token.body)
  return caller(app, { authorization: `Bearer ${json(token).token as string}` })
}

async function names (call: ReturnType<typeof caller>, resource: 'projects' | 'documents'): Promise<string[]> {
  const list = await call('GET', `/api/v1/${resource}?order_by=id`)
  assert.equal(list.status, 200, JSON.stringify(list.body))
  return list.body.items.map((r: { name?: string, title?: string }) => r.name ?? r.title)
}

test('organizations 42 and 7 over an integer tenant column: each member sees their rows, writes keep the column\'s ids, nothing is rewritten', async () => {
  const before = await stored('projects')
  assert.equal((await orgs.create({ id: '42', name: 'Acme', slug: 'acme', owner: 'ann@example.com' })).id, '42')
  assert.deepEqual(await orgs.import([{ id: '7', name: 'Globex', slug: 'globex', owner: 'bob@example.com' }]), { created: ['7'], unchanged: [] })
  await orgs.addMember({ id: '42' }, 'cid@example.com', 'member')
  assert.deepEqual(await stored('projects'), before)

  const ann = await memberIn('ann@example.com', '42')
  const cid = await memberIn('cid@example.com', '42')
  const bob = await memberIn('bob@example.com', '7')
  assert.deepEqual(await names(ann, 'projects'), ['Apollo', 'Gemini'])
  assert.deepEqual(await names(cid, 'projects'), ['Apollo', 'Gemini'])
  assert.deepEqual(await names(bob, 'projects'), ['Mercury'])
  const [apollo] = (await ann('GET', '/api/v1/projects?filter=name%20%3D%20%22Apollo%22')).body.items
  assert.deepEqual(Object.keys(apollo).sort(), ['etag', 'id', 'name', 'permissions'])
  assert.equal((await bob('GET', `/api/v1/projects/${apollo.id as number}`)).status, 404)
  assert.equal((await ann('GET', `/api/v1/projects/${apollo.id as number}`)).status, 200)

  const created = await bob('POST', '/api/v1/projects', { payload: { name: 'Vostok' } })
  assert.equal(created.status, 201, JSON.stringify(created.body))
  const renamed = await ann('PATCH', `/api/v1/projects/${apollo.id as number}`, { payload: { name: 'Apollo 11' }, headers: { 'if-match': '*' } })
  assert.equal(renamed.status, 200, JSON.stringify(renamed.body))
  assert.deepEqual(await stored('projects'), [['Apollo 11', '42'], ['Mercury', '7'], ['Gemini', '42'], ['Orphan', '99'], ['Vostok', '7']])
  assert.deepEqual(await names(bob, 'projects'), ['Mercury', 'Vostok'])
})

test('organizations with uuid ids over a uuid tenant column', async () => {
  const before = await stored('documents')
  assert.deepEqual(await orgs.import([
    { id: ACME_UUID, name: 'Acme Docs', slug: 'acme-docs', owner: 'ann@example.com' },
    { id: GLOBEX_UUID, name: 'Globex Docs', slug: 'globex-docs', owner: 'bob@example.com' },
  ]), { created: [ACME_UUID, GLOBEX_UUID], unchanged: [] })
  assert.deepEqual(await stored('documents'), before)
  const ann = await memberIn('ann@example.com', ACME_UUID)
  const bob = await memberIn('bob@example.com', GLOBEX_UUID)
  assert.deepEqual(await names(ann, 'documents'), ['Charter'])
  assert.deepEqual(await names(bob, 'documents'), ['Ledger'])
  assert.equal((await ann('POST', '/api/v1/documents', { payload: { title: 'Minutes' } })).status, 201)
  assert.deepEqual(await stored('documents'), [['Charter', ACME_UUID], ['Ledger', GLOBEX_UUID], ['Minutes', ACME_UUID]])
})

test('an organization whose id is no value of the tenant column matches no row there, and may not create: never another spelling\'s rows', async () => {
  const before = await stored('projects')
  await orgs.create({ id: '042', name: 'Acme again', slug: 'acme-again', owner: 'cid@example.com' })
  const generated = await orgs.create({ name: 'Initech', slug: 'initech', owner: 'cid@example.com' })
  await orgs.create({ id: ACME_UUID.toUpperCase(), name: 'ACME DOCS', slug: 'acme-docs-upper', owner: 'cid@example.com' })
  for (const id of ['042', generated.id, '99999999999']) {
    if (id === '99999999999') await orgs.create({ id, name: 'Big', slug: 'big', owner: 'cid@example.com' })
    const cid = await memberIn('cid@example.com', id)
    assert.deepEqual(await names(cid, 'projects'), [], id)
    const [apollo] = (await withClient(databaseUrl, async (c) => (await c.query("SELECT id FROM projects WHERE org_id = 42 LIMIT 1")).rows))
    const got = await cid('GET', `/api/v1/projects/${apollo.id as number}`)
    assert.equal(got.status, 404)
    const refused = await cid('POST', '/api/v1/projects', { payload: { name: 'Nowhere' } })
    assert.equal(refused.status, 403)
    assert.equal(refused.body.type, 'urn:service:problem:tenant-required')
    assert.equal(refused.body.detail, "projects is kept per tenant in a column of type int4, and this caller's tenant is not a value of it.")
  }
  const upper = await memberIn('cid@example.com', ACME_UUID.toUpperCase())
  assert.deepEqual(await names(upper, 'documents'), [])
  assert.deepEqual(await stored('projects'), before)
})

test('check finds no drift in an integer or uuid tenant column: staff\'s tenant field takes its column\'s type', async () => {
  const resources = { projects: { tenant: 'org_id', fields: { id: { type: 'integer', readOnly: true, dbDefault: true }, name: { type: 'string', required: true } } }, documents: { tenant: 'company_id', fields: { id: { type: 'integer', readOnly: true, dbDefault: true }, title: { type: 'string', required: true } } } } as const
  const lines = await withClient(databaseUrl, async (client) => await driftLines(client, buildModels(resources).values(), resources))
  assert.deepEqual(lines, [])
})
