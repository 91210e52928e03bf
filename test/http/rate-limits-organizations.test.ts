// Request limits with organizations: a caller's budget is theirs in their active organization.
// Another member of the same organization has their own (a shared one would tell each member what
// the others spent), and the same user in another organization, or in none, has another.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import type { Config } from '../../lib/config/schema.js'
import { freshDatabase, runSql } from '../helpers/db.js'
import { buildApp, createUser, caller } from '../helpers/app.js'
import { bearerIn } from '../fixtures/tenancy-through.js'

const databaseUrl = await freshDatabase()
await runSql(databaseUrl, 'CREATE TABLE projects (id serial PRIMARY KEY, org_id text NOT NULL, name text NOT NULL)')
const config: Config = {
  databaseUrl,
  roles: { admin: ['*'], user: ['projects.read'] },
  defaultRole: 'user',
  // Each token here is a new sign-in.
  signInPerMinute: 100,
  organizations: { roleCapabilities: { member: ['projects.read'], owner: ['projects.*'] } },
  rateLimits: { read: '2/min' },
  resources: { projects: { tenant: 'org_id', fields: { id: { type: 'integer', readOnly: true, dbDefault: true }, name: { type: 'string', required: true } } } },
}
const app = await buildApp(config)
const orgs = app.tablegate.organizations!
for (const email of ['ann@example.com', 'bob@example.com']) await createUser(app, email, 'user')
const acme = await orgs.create({ name: 'Acme', slug: 'acme', owner: 'ann@example.com' })
const globex = await orgs.create({ name: 'Globex', slug: 'globex', owner: 'bob@example.com' })
await orgs.addMember('acme', 'bob@example.com', 'member')

/** The statuses of `count` reads of the projects, and the RateLimit field of the first. */
async function reads (auth: Record<string, string>, count: number): Promise<{ first: string, statuses: number[] }> {
  const call = caller(app, auth)
  const statuses: number[] = []
  let first = ''
  for (let i = 0; i < count; i++) {
    const response = await call('GET', '/api/v1/projects')
    if (i === 0) first = String(response.headers.ratelimit)
    statuses.push(response.status)
  }
  return { first, statuses }
}

test('each member has a budget of their own in each organization', async () => {
  const bobInAcme = await bearerIn(app, 'bob@example.com', acme.id)
  assert.deepEqual((await reads(bobInAcme, 3)).statuses, [200, 200, 429])
  // A new token of the same session's organization is the same caller: still spent.
  assert.deepEqual((await reads(await bearerIn(app, 'bob@example.com', acme.id), 1)).statuses, [429])
  const annInAcme = await reads(await bearerIn(app, 'ann@example.com', acme.id), 3)
  assert.match(annInAcme.first, /^"read";r=1;t=(59|60)$/)
  assert.deepEqual(annInAcme.statuses, [200, 200, 429])
  const bobInGlobex = await reads(await bearerIn(app, 'bob@example.com', globex.id), 3)
  assert.match(bobInGlobex.first, /^"read";r=1;t=(59|60)$/)
  assert.deepEqual(bobInGlobex.statuses, [200, 200, 429])
  // Without an active organization the projects are 403 tenant-required, counted all the same.
  const bobAlone = await reads(await bearerIn(app, 'bob@example.com'), 3)
  assert.match(bobAlone.first, /^"read";r=1;t=(59|60)$/)
  assert.deepEqual(bobAlone.statuses, [403, 403, 429])
})
