// The whole organization cycle (issue 35, "Done when") through better-auth 1.7's own client with
// organizationClient(), as an app would run it: two users sign in, one creates an organization and
// invites the other, who lists and accepts; each sets it active and gets a token; each works in
// their organization's rows only, over HTTP with the bearer tokens; the owner lowers and then
// removes the member, whose older token loses the organization at once in this process and within
// the revocation poll in another one on the same store; the last owner cannot leave.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { decodeJwt } from 'jose'
import { buildApp, createUser } from '../helpers/app.js'
import { freshDatabase, runSql } from '../helpers/db.js'
import { activeOf, assertError, organizationClients, type SignedIn } from '../helpers/organization-client.js'
import type { InvitationNotice } from '../../lib/config/functions.js'
import type { Config } from '../../lib/config/schema.js'

const databaseUrl = await freshDatabase()
await runSql(databaseUrl, 'CREATE TABLE projects (id serial PRIMARY KEY, name text NOT NULL, org_id text NOT NULL)')
const notices: InvitationNotice[] = []
const config: Config = {
  databaseUrl,
  // The service role gives nothing on projects: all of it comes from the organization role.
  roles: { admin: ['*'], user: [] },
  defaultRole: 'user',
  revocationPollMs: 100,
  organizations: {
    onInvitation: async (invitation) => { notices.push(invitation) },
    roleCapabilities: { member: ['projects.read', 'projects.create'], admin: ['projects.*'], owner: ['projects.*'] },
  },
  resources: {
    projects: {
      tenant: 'org_id',
      fields: { id: { type: 'integer', readOnly: true, dbDefault: true }, name: { type: 'string', required: true } },
    },
  },
}
const app = await buildApp(config)
// Another process on the same store: it hears of membership changes only through its revocation poll.
const other = await buildApp(config)
for (const email of ['ann@example.com', 'bob@example.com']) await createUser(app, email, 'user')
const { base, signedIn } = await organizationClients(app)
const otherBase = await other.listen({ port: 0, host: '127.0.0.1' })

interface Answer { status: number, contentType: string | null, body: any }

/** A call to the API over HTTP with a bearer token, on this process or `at` another. */
async function api (token: string, method: string, path: string, body?: object, at = base): Promise<Answer> {
  const headers: Record<string, string> = { authorization: `Bearer ${token}` }
  if (body !== undefined) headers['content-type'] = 'application/json'
  if (method === 'DELETE') headers['if-match'] = '*'
  const response = await fetch(`${at}/api/v1${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) })
  const text = await response.text()
  return { status: response.status, contentType: response.headers.get('content-type'), body: text === '' ? undefined : JSON.parse(text) }
}

function assertProblemAnswer (answer: Answer, status: number, slug: string): void {
  assert.equal(answer.status, status, JSON.stringify(answer.body))
  assert.equal(answer.contentType, 'application/problem+json; charset=utf-8')
  assert.equal(answer.body.type, `urn:service:problem:${slug}`)
  assert.equal(answer.body.status, status)
}

async function names (token: string, at = base): Promise<string[]> {
  const listed = await api(token, 'GET', '/projects?order_by=name', undefined, at)
  assert.equal(listed.status, 200, JSON.stringify(listed.body))
  return listed.body.items.map((p: { name: string }) => p.name)
}

async function tokenOf (who: SignedIn): Promise<string> {
  const { data, error } = await who.client.token()
  assert.equal(error, null, JSON.stringify(error))
  return data!.token
}

/** Polls until `check` holds, at most `ms`. */
async function within (ms: number, check: () => Promise<boolean>): Promise<void> {
  const started = Date.now()
  while (!(await check())) {
    if (Date.now() - started > ms) assert.fail(`not within ${ms} ms`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

test('two users, two organizations: invite, accept, tokens, rows apart, demote, remove, and the last owner stays', async () => {
  const ann = await signedIn('ann@example.com')
  const bob = await signedIn('bob@example.com')

  // Bob has an organization of his own; Ann creates Acme, which becomes her active one.
  const globex = await bob.client.organization.create({ name: 'Globex', slug: 'globex' })
  assert.equal(globex.error, null, JSON.stringify(globex.error))
  const acme = await ann.client.organization.create({ name: 'Acme', slug: 'acme' })
  assert.equal(acme.error, null, JSON.stringify(acme.error))
  assert.equal(acme.data!.slug, 'acme')
  assert.deepEqual(acme.data!.members.map((m) => [m!.userId, m!.role]), [[ann.id, 'owner']])
  const acmeId = acme.data!.id
  const globexId = globex.data!.id
  assert.equal(await activeOf(ann), acmeId)

  // Ann invites Bob as an admin; the app's onInvitation is handed the invitation to send.
  const invited = await ann.client.organization.inviteMember({ email: 'bob@example.com', role: 'admin' })
  assert.equal(invited.error, null, JSON.stringify(invited.error))
  assert.equal(invited.data!.status, 'pending')
  assert.equal(notices.length, 1)
  assert.deepEqual({ ...notices[0]!, expiresAt: undefined }, {
    id: invited.data!.id, email: 'bob@example.com', role: 'admin', expiresAt: undefined,
    organization: { id: acmeId, name: 'Acme', slug: 'acme' },
    inviter: { id: ann.id, email: 'ann@example.com', name: '' },
  })

  // Bob finds it among his invitations and accepts.
  const mine = await bob.client.organization.listUserInvitations()
  assert.equal(mine.error, null, JSON.stringify(mine.error))
  assert.deepEqual(mine.data!.map((i) => [i.id, i.organizationId, i.role, i.status, i.organizationName]), [[invited.data!.id, acmeId, 'admin', 'pending', 'Acme']])
  const accepted = await bob.client.organization.acceptInvitation({ invitationId: notices[0]!.id })
  assert.equal(accepted.error, null, JSON.stringify(accepted.error))
  assert.equal(accepted.data!.invitation.status, 'accepted')
  assert.deepEqual([accepted.data!.member.userId, accepted.data!.member.organizationId, accepted.data!.member.role], [bob.id, acmeId, 'admin'])
  const bobMemberId = accepted.data!.member.id
  assert.deepEqual((await bob.client.organization.listUserInvitations()).data, [])
  assert.deepEqual((await bob.client.organization.list()).data!.map((o) => o.slug).sort(), ['acme', 'globex'])

  // Each sets the organization active and gets a token carrying it.
  assert.equal((await ann.client.organization.setActive({ organizationId: acmeId })).data!.id, acmeId)
  assert.equal((await bob.client.organization.setActive({ organizationId: acmeId })).data!.id, acmeId)
  const annAcme = await tokenOf(ann)
  const bobAcme = await tokenOf(bob)
  assert.deepEqual(decodeJwt(annAcme).org, { id: acmeId, role: 'owner' })
  assert.deepEqual(decodeJwt(bobAcme).org, { id: acmeId, role: 'admin' })
  assert.equal((await bob.client.organization.setActive({ organizationSlug: 'globex' })).data!.id, globexId)
  const bobGlobex = await tokenOf(bob)
  assert.deepEqual(decodeJwt(bobGlobex).org, { id: globexId, role: 'owner' })

  // Each organization's rows are its own, whichever token of whichever user asks.
  const rocket = await api(annAcme, 'POST', '/projects', { name: 'rocket' })
  assert.equal(rocket.status, 201, JSON.stringify(rocket.body))
  assert.deepEqual(Object.keys(rocket.body).sort(), ['etag', 'id', 'name'])
  const widget = await api(bobGlobex, 'POST', '/projects', { name: 'widget' })
  assert.equal(widget.status, 201, JSON.stringify(widget.body))
  assert.equal((await api(bobAcme, 'POST', '/projects', { name: 'doomed' })).status, 201)
  assert.deepEqual(await names(annAcme), ['doomed', 'rocket'])
  assert.deepEqual(await names(bobAcme), ['doomed', 'rocket'])
  assert.deepEqual(await names(bobGlobex), ['widget'])
  assertProblemAnswer(await api(bobGlobex, 'GET', `/projects/${rocket.body.id as number}`), 404, 'not-found')
  assertProblemAnswer(await api(annAcme, 'GET', `/projects/${widget.body.id as number}`), 404, 'not-found')
  assertProblemAnswer(await api(annAcme, 'DELETE', `/projects/${widget.body.id as number}`), 404, 'not-found')
  assert.equal((await api(bobGlobex, 'GET', '/projects?count=exact')).body.total_size, 1)
  const smuggled = await api(bobGlobex, 'POST', '/projects', { name: 'x', org_id: acmeId })
  assertProblemAnswer(smuggled, 400, 'invalid-record')
  assert.deepEqual(smuggled.body.errors.map((e: { field: string }) => e.field), ['org_id'])

  // The other process serves the same tokens alike (and so watches their users from now on).
  assert.deepEqual(await names(bobAcme, otherBase), ['doomed', 'rocket'])

  // Ann lowers Bob to member: his older Acme token loses delete at once here, and within the poll there.
  const doomed = (await api(bobAcme, 'GET', '/projects?filter=name%20%3D%20%22doomed%22')).body.items[0]
  const lowered = await ann.client.organization.updateMemberRole({ memberId: bobMemberId, role: 'member' })
  assert.equal(lowered.error, null, JSON.stringify(lowered.error))
  assert.deepEqual([lowered.data!.id, lowered.data!.role], [bobMemberId, 'member'])
  assertProblemAnswer(await api(bobAcme, 'DELETE', `/projects/${doomed.id as number}`), 403, 'access-denied')
  // Probed on a row that is not there (404 while delete is allowed), so the probe deletes nothing.
  await within(2000, async () => (await api(bobAcme, 'DELETE', '/projects/999999', undefined, otherBase)).status === 403)
  assertProblemAnswer(await api(bobAcme, 'DELETE', `/projects/${doomed.id as number}`, undefined, otherBase), 403, 'access-denied')
  // What a member may do, the old token still does.
  assert.deepEqual(await names(bobAcme), ['doomed', 'rocket'])
  assert.equal((await api(bobAcme, 'POST', '/projects', { name: 'kept' })).status, 201)
  assert.equal((await api(annAcme, 'DELETE', `/projects/${doomed.id as number}`)).status, 204)

  // Ann removes Bob: his Acme token acts in no organization, at once here, within the poll there.
  // Outside an organization his service role gives nothing on projects, so the resource is not there
  // for him at all: the unknown-route 404, as for a path that does not exist.
  const removed = await ann.client.organization.removeMember({ memberIdOrEmail: 'bob@example.com' })
  assert.equal(removed.error, null, JSON.stringify(removed.error))
  assert.deepEqual([removed.data!.member.id, removed.data!.member.userId], [bobMemberId, bob.id])
  const gone = await api(bobAcme, 'GET', '/projects')
  assertProblemAnswer(gone, 404, 'not-found')
  assert.deepEqual(gone.body, { ...(await api(bobAcme, 'GET', '/no-such-resource')).body, instance: '/api/v1/projects' })
  await within(2000, async () => (await api(bobAcme, 'GET', '/projects', undefined, otherBase)).status === 404)
  assert.deepEqual((await api(bobAcme, 'GET', '/projects', undefined, otherBase)).body, gone.body)
  // His Globex token is untouched, on both; Acme is no longer his to choose.
  assert.deepEqual(await names(bobGlobex), ['widget'])
  assert.deepEqual(await names(bobGlobex, otherBase), ['widget'])
  assertError((await bob.client.organization.setActive({ organizationId: acmeId })).error, 403, 'USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION')
  assert.deepEqual((await bob.client.organization.list()).data!.map((o) => o.slug), ['globex'])
  assert.deepEqual(await names(annAcme), ['kept', 'rocket'])

  // The last owner cannot leave; Acme keeps her as its owner.
  assertError((await ann.client.organization.leave({ organizationId: acmeId })).error, 400, 'YOU_CANNOT_LEAVE_THE_ORGANIZATION_AS_THE_ONLY_OWNER')
  const still = await ann.client.organization.getActiveMember()
  assert.deepEqual([still.data!.userId, still.data!.organizationId, still.data!.role], [ann.id, acmeId, 'owner'])
  assert.deepEqual(await names(annAcme), ['kept', 'rocket'])
})
