// better-auth 1.7's own client with organizationClient(), against a listening tablegate with
// organizations on: the organization and member routes, their answers and their refusals with
// better-auth's codes. Two users (ann owns, bob joins) and an outsider (eve) who is told nothing.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { setTimeout as sleep } from 'node:timers/promises'
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { buildApp, createUser } from '../helpers/app.js'
import { freshDatabase, withClient } from '../helpers/db.js'
import { activeOf, assertError, assertSameRefusal, organizationClients } from '../helpers/organization-client.js'
import type { WriteEvent } from '../../hooks/types.js'

const databaseUrl = await freshDatabase()
const events: WriteEvent[] = []
// While set, each membership update waits this long inside its transaction, after its write.
let slowUpdates = 0
const app = await buildApp({
  databaseUrl,
  organizations: { roles: ['owner', 'admin', 'member', 'viewer'] },
  plugins: [fp(async (instance: FastifyInstance) => {
    instance.tablegate.addWriteHook(async (event) => {
      events.push(event)
      if (event.resource === 'auth.members' && event.operation === 'update' && slowUpdates > 0) await sleep(slowUpdates)
    }, { resources: ['auth.organizations', 'auth.members'] })
  }, { name: 'org-route-recorder', dependencies: ['tablegate'] })],
})
for (const email of ['ann@example.com', 'bob@example.com', 'cat@example.com', 'eve@example.com']) await createUser(app, email)
const { anonymous, signedIn } = await organizationClients(app)

const ann = await signedIn('ann@example.com')
const bob = await signedIn('bob@example.com')
const cat = await signedIn('cat@example.com')
const eve = await signedIn('eve@example.com')
let acme: { id: string, slug: string }

test('create: the creator is its owner and it becomes the session\'s active organization', async () => {
  assert.equal(await activeOf(ann), null)
  const { data, error } = await ann.client.organization.create({ name: 'Acme Inc', slug: 'acme', metadata: { plan: 'pro' } })
  assert.equal(error, null, JSON.stringify(error))
  assert.equal(data!.name, 'Acme Inc')
  assert.equal(data!.slug, 'acme')
  assert.deepEqual(data!.metadata, { plan: 'pro' })
  assert.equal(data!.logo, null)
  assert.equal(data!.members.length, 1)
  assert.equal(data!.members[0]!.userId, ann.id)
  assert.equal(data!.members[0]!.role, 'owner')
  acme = { id: data!.id, slug: data!.slug }
  assert.equal(await activeOf(ann), acme.id)
  assert.deepEqual(events.splice(0).map((e) => `${e.resource}:${e.operation}:${e.ctx.user?.id ?? 'host'}`), [`auth.organizations:create:${ann.id}`, `auth.members:create:${ann.id}`])

  const kept = await ann.client.organization.create({ name: 'Side', slug: 'side', keepCurrentActiveOrganization: true })
  assert.equal(kept.error, null)
  assert.equal(await activeOf(ann), acme.id)
})

test('create refuses a taken slug, a slug the store refuses, and an anonymous caller', async () => {
  assertError((await bob.client.organization.create({ name: 'Again', slug: 'acme' })).error, 400, 'ORGANIZATION_ALREADY_EXISTS')
  assertError((await bob.client.organization.create({ name: 'Bad', slug: 'Not A Slug' })).error, 400, 'VALIDATION_ERROR')
  assertError((await bob.client.organization.create({ name: '', slug: 'empty-name' })).error, 400, 'VALIDATION_ERROR')
  const nobody = anonymous()
  assertError((await nobody.organization.create({ name: 'Anon', slug: 'anon' })).error, 401, 'UNAUTHORIZED')
  assertError((await nobody.organization.list()).error, 401, 'UNAUTHORIZED')
})

test('check-slug says whether a slug is free', async () => {
  const free = await eve.client.organization.checkSlug({ slug: 'free-slug' })
  assert.equal(free.error, null)
  assert.deepEqual(free.data, { status: true })
  assertError((await eve.client.organization.checkSlug({ slug: 'acme' })).error, 400, 'ORGANIZATION_SLUG_ALREADY_TAKEN')
})

test('list: the caller\'s organizations only', async () => {
  const mine = await ann.client.organization.list()
  assert.equal(mine.error, null)
  assert.deepEqual(mine.data!.map((o) => o.slug), ['acme', 'side'])
  assert.deepEqual((await eve.client.organization.list()).data, [])
})

test('set-active: only an organization the caller is a member of; null clears it', async () => {
  await app.tablegate.organizations!.addMember('acme', 'bob@example.com', 'member')
  await app.tablegate.organizations!.addMember('acme', 'cat@example.com', 'admin')
  const set = await bob.client.organization.setActive({ organizationId: acme.id })
  assert.equal(set.error, null)
  assert.equal(set.data!.slug, 'acme')
  assert.equal(await activeOf(bob), acme.id)
  const cleared = await bob.client.organization.setActive({ organizationId: null })
  assert.equal(cleared.error, null)
  assert.equal(cleared.data, null)
  assert.equal(await activeOf(bob), null)
  assert.equal((await bob.client.organization.setActive({ organizationSlug: 'acme' })).data!.id, acme.id)
  assert.equal((await cat.client.organization.setActive({ organizationSlug: 'acme' })).error, null)

  // A non-member is told what a caller naming no organization is told.
  const foreign = await eve.client.organization.setActive({ organizationId: acme.id })
  const missing = await eve.client.organization.setActive({ organizationId: 'no-such-organization' })
  assertError(foreign.error, 403, 'USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION')
  assertSameRefusal(foreign.error, missing.error)
  assertError((await eve.client.organization.setActive({ organizationSlug: 'acme' })).error, 403, 'USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION')
  assert.equal(await activeOf(eve), null)
  // A refused set-active leaves the session in no organization, as organizations.md says.
  assert.equal(await activeOf(bob), acme.id)
  assertError((await bob.client.organization.setActive({ organizationId: 'no-such-organization' })).error, 403, 'USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION')
  assert.equal(await activeOf(bob), null)
  assert.equal((await bob.client.organization.setActive({ organizationId: acme.id })).error, null)
})

test('get-full-organization: members with their users; invitations only for owners and admins; nothing for non-members', async () => {
  await withClient(databaseUrl, async (client) => await client.query(`INSERT INTO auth_invitation (id, organization_id, email, role, expires_at) VALUES
    ('inv-member', $1, 'dan@example.com', 'member', now() + interval '1 day'), ('inv-owner', $1, 'own@example.com', 'owner', now() + interval '1 day')`, [acme.id]))
  const full = await ann.client.organization.getFullOrganization()
  assert.equal(full.error, null, JSON.stringify(full.error))
  assert.equal(full.data!.id, acme.id)
  assert.deepEqual(full.data!.members.map((m) => [m.user.email, m.role]), [['ann@example.com', 'owner'], ['bob@example.com', 'member'], ['cat@example.com', 'admin']])
  assert.deepEqual(Object.keys(full.data!.members[0]!.user).sort(), ['email', 'id', 'image', 'name'])
  assert.deepEqual(full.data!.invitations.map((i) => i.id), ['inv-member', 'inv-owner'])
  assert.equal(full.data!.invitations[0]!.status, 'pending')
  // An admin sees the invitations but not one that would make an owner; a member sees none.
  assert.deepEqual((await cat.client.organization.getFullOrganization()).data!.invitations.map((i) => i.id), ['inv-member'])
  const bobs = await bob.client.organization.getFullOrganization({ query: { organizationSlug: 'acme' } })
  assert.equal(bobs.error, null, JSON.stringify(bobs.error))
  assert.deepEqual(bobs.data!.invitations, [])
  const limited = await ann.client.organization.getFullOrganization({ query: { organizationId: acme.id, membersLimit: 1 } })
  assert.equal(limited.error, null, JSON.stringify(limited))
  assert.equal(limited.data!.members.length, 1)
  assert.equal((await eve.client.organization.getFullOrganization()).data, null)

  const foreign = await eve.client.organization.getFullOrganization({ query: { organizationId: acme.id } })
  const missing = await eve.client.organization.getFullOrganization({ query: { organizationId: 'no-such-organization' } })
  assertError(foreign.error, 403, 'USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION')
  assertSameRefusal(foreign.error, missing.error)
  assertSameRefusal((await eve.client.organization.getFullOrganization({ query: { organizationSlug: 'acme' } })).error, missing.error)
})

test('update: owners and admins; slug rules; a non-member is told nothing', async () => {
  const renamed = await cat.client.organization.update({ data: { name: 'Acme Corp', logo: 'https://acme.example/logo.png' } })
  assert.equal(renamed.error, null, JSON.stringify(renamed.error))
  assert.equal(renamed.data!.name, 'Acme Corp')
  assert.equal(renamed.data!.logo, 'https://acme.example/logo.png')
  assert.deepEqual(renamed.data!.metadata, { plan: 'pro' })
  assert.ok(events.some((e) => e.resource === 'auth.organizations' && e.operation === 'update' && e.after?.name === 'Acme Corp'))
  assertError((await bob.client.organization.update({ data: { name: 'Bob Co' } })).error, 403, 'YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_ORGANIZATION')
  assertError((await ann.client.organization.update({ data: { slug: 'side' }, organizationId: acme.id })).error, 400, 'ORGANIZATION_SLUG_ALREADY_TAKEN')
  assertError((await ann.client.organization.update({ data: { slug: 'Bad Slug' } })).error, 400, 'VALIDATION_ERROR')
  const foreign = await eve.client.organization.update({ data: { name: 'Mine' }, organizationId: acme.id })
  assertError(foreign.error, 400, 'USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION')
  assertSameRefusal(foreign.error, (await eve.client.organization.update({ data: { name: 'Mine' }, organizationId: 'no-such-organization' })).error)
  assertError((await eve.client.organization.update({ data: { name: 'Mine' } })).error, 400, 'ORGANIZATION_NOT_FOUND')
})

test('list-members, get-active-member and get-active-member-role', async () => {
  const listed = await bob.client.organization.listMembers()
  assert.equal(listed.error, null, JSON.stringify(listed.error))
  assert.equal(listed.data!.total, 3)
  assert.deepEqual(listed.data!.members.map((m) => m.user.email), ['ann@example.com', 'bob@example.com', 'cat@example.com'])
  const page = await bob.client.organization.listMembers({ query: { organizationId: acme.id, limit: 1, offset: 1, sortBy: 'createdAt', sortDirection: 'desc' } })
  assert.deepEqual(page.data!.members.map((m) => m.user.email), ['bob@example.com'])
  assert.equal(page.data!.total, 3)
  const admins = await bob.client.organization.listMembers({ query: { filterField: 'role', filterValue: 'admin', filterOperator: 'eq' } })
  assert.deepEqual(admins.data!.members.map((m) => m.user.email), ['cat@example.com'])
  assert.equal(admins.data!.total, 1)
  assertError((await bob.client.organization.listMembers({ query: { sortBy: 'password' } })).error, 400, 'VALIDATION_ERROR')
  // Names of Object.prototype's members are names like any other: refused, never looked up there.
  assertError((await bob.client.organization.listMembers({ query: { sortBy: 'constructor' } })).error, 400, 'VALIDATION_ERROR')
  assertError((await bob.client.organization.listMembers({ query: { filterField: 'toString', filterValue: 'x' } })).error, 400, 'VALIDATION_ERROR')
  assertError((await bob.client.organization.listMembers({ query: { filterField: 'role', filterValue: 'admin', filterOperator: 'valueOf' as 'eq' } })).error, 400, 'VALIDATION_ERROR')
  const foreign = await eve.client.organization.listMembers({ query: { organizationId: acme.id } })
  assertError(foreign.error, 403, 'YOU_ARE_NOT_A_MEMBER_OF_THIS_ORGANIZATION')
  assertSameRefusal(foreign.error, (await eve.client.organization.listMembers({ query: { organizationSlug: 'no-such-slug' } })).error)
  assertError((await eve.client.organization.listMembers()).error, 400, 'NO_ACTIVE_ORGANIZATION')

  const active = await bob.client.organization.getActiveMember()
  assert.equal(active.error, null)
  assert.equal(active.data!.userId, bob.id)
  assert.equal(active.data!.role, 'member')
  assert.equal(active.data!.user.email, 'bob@example.com')
  assertError((await eve.client.organization.getActiveMember()).error, 400, 'NO_ACTIVE_ORGANIZATION')
  assert.deepEqual((await bob.client.organization.getActiveMemberRole()).data, { role: 'member' })
  assert.deepEqual((await bob.client.organization.getActiveMemberRole({ query: { userId: ann.id } })).data, { role: 'owner' })
})

test('update-member-role: owners and admins; only an owner makes or changes owners; the last owner keeps owner', async () => {
  const members = (await ann.client.organization.listMembers()).data!.members
  const memberId = (email: string): string => members.find((m) => m.user.email === email)!.id
  assertError((await bob.client.organization.updateMemberRole({ memberId: memberId('cat@example.com'), role: 'member' })).error, 403, 'YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_MEMBER')
  const viewer = await cat.client.organization.updateMemberRole({ memberId: memberId('bob@example.com'), role: 'viewer' as 'member' })
  assert.equal(viewer.error, null, JSON.stringify(viewer.error))
  assert.equal(viewer.data!.role, 'viewer')
  assert.equal(viewer.data!.userId, bob.id)
  assertError((await cat.client.organization.updateMemberRole({ memberId: memberId('bob@example.com'), role: 'owner' })).error, 403, 'YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_MEMBER')
  assertError((await cat.client.organization.updateMemberRole({ memberId: memberId('ann@example.com'), role: 'member' })).error, 403, 'YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_MEMBER')
  const ghost = await ann.client.organization.updateMemberRole({ memberId: memberId('bob@example.com'), role: 'ghost' as 'member' })
  assertError(ghost.error, 400, 'ROLE_NOT_FOUND')
  assert.equal(ghost.error!.message, 'ROLE_NOT_FOUND: ghost')
  assertError((await ann.client.organization.updateMemberRole({ memberId: memberId('ann@example.com'), role: 'admin' })).error, 400, 'YOU_CANNOT_LEAVE_THE_ORGANIZATION_WITHOUT_AN_OWNER')
  assertError((await ann.client.organization.updateMemberRole({ memberId: 'no-such-member', role: 'member' })).error, 400, 'MEMBER_NOT_FOUND')
  assertError((await eve.client.organization.updateMemberRole({ memberId: memberId('bob@example.com'), role: 'member', organizationId: acme.id })).error, 400, 'MEMBER_NOT_FOUND')
  const both = await ann.client.organization.updateMemberRole({ memberId: memberId('bob@example.com'), role: ['admin', 'member'] })
  assert.equal(both.data!.role, 'admin,member')
  assert.equal((await bob.client.organization.getActiveMember()).data!.role, 'admin,member')
})

test('remove-member and leave: the last owner can do neither; a removed member\'s session loses the organization', async () => {
  assertError((await ann.client.organization.leave({ organizationId: acme.id })).error, 400, 'YOU_CANNOT_LEAVE_THE_ORGANIZATION_AS_THE_ONLY_OWNER')
  assertError((await ann.client.organization.removeMember({ memberIdOrEmail: 'ann@example.com' })).error, 400, 'YOU_CANNOT_LEAVE_THE_ORGANIZATION_AS_THE_ONLY_OWNER')
  assertError((await cat.client.organization.removeMember({ memberIdOrEmail: 'ann@example.com' })).error, 403, 'YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_MEMBER')
  assertError((await eve.client.organization.removeMember({ memberIdOrEmail: 'bob@example.com', organizationId: acme.id })).error, 400, 'MEMBER_NOT_FOUND')
  assertError((await eve.client.organization.leave({ organizationId: acme.id })).error, 400, 'MEMBER_NOT_FOUND')
  assertError((await ann.client.organization.removeMember({ memberIdOrEmail: 'eve@example.com' })).error, 400, 'MEMBER_NOT_FOUND')

  await ann.client.organization.updateMemberRole({ memberId: (await bob.client.organization.getActiveMember()).data!.id, role: 'member' })
  assertError((await bob.client.organization.removeMember({ memberIdOrEmail: 'cat@example.com' })).error, 403, 'YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_MEMBER')
  const removed = await cat.client.organization.removeMember({ memberIdOrEmail: 'BOB@example.com' })
  assert.equal(removed.error, null, JSON.stringify(removed.error))
  assert.equal(removed.data!.member.userId, bob.id)
  assert.equal(await activeOf(bob), null)
  assertError((await bob.client.organization.getFullOrganization({ query: { organizationId: acme.id } })).error, 403, 'USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION')

  const left = await cat.client.organization.leave({ organizationId: acme.id })
  assert.equal(left.error, null)
  assert.equal(left.data!.userId, cat.id)
  assert.equal(await activeOf(cat), null)
  // With a second owner, the first may go.
  await app.tablegate.organizations!.addMember('acme', 'bob@example.com', 'owner')
  assert.equal((await ann.client.organization.leave({ organizationId: acme.id })).error, null)
  assert.equal(await activeOf(ann), null)
  assert.deepEqual((await ann.client.organization.list()).data!.map((o) => o.slug), ['side'])
})

test('two owners demoting each other at once: one wins, the other is no owner any more when its turn comes', async () => {
  await app.tablegate.organizations!.addMember('acme', 'cat@example.com', 'owner')
  const members = (await bob.client.organization.listMembers({ query: { organizationId: acme.id } })).data!.members
  const memberId = (email: string): string => members.find((m) => m.user.email === email)!.id
  slowUpdates = 300
  try {
    const [byBob, byCat] = await Promise.all([
      bob.client.organization.updateMemberRole({ memberId: memberId('cat@example.com'), role: 'member', organizationId: acme.id }),
      cat.client.organization.updateMemberRole({ memberId: memberId('bob@example.com'), role: 'member', organizationId: acme.id }),
    ])
    const outcomes = [byBob, byCat].map((r) => r.error === null ? 'ok' : r.error.code)
    assert.deepEqual(outcomes.sort(), ['YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_MEMBER', 'ok'])
  } finally {
    slowUpdates = 0
  }
  const roles = (await bob.client.organization.listMembers({ query: { organizationId: acme.id } })).data!.members.map((m) => m.role).sort()
  assert.deepEqual(roles, ['member', 'owner'])
  await app.tablegate.organizations!.setRole('acme', 'bob@example.com', 'owner')
  await app.tablegate.organizations!.setRole('acme', 'cat@example.com', 'admin')
})

test('delete: owners only; it stops being anyone\'s active organization', async () => {
  await bob.client.organization.setActive({ organizationId: acme.id })
  await cat.client.organization.setActive({ organizationId: acme.id })
  assertError((await cat.client.organization.delete({ organizationId: acme.id })).error, 403, 'YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_ORGANIZATION')
  const foreign = await eve.client.organization.delete({ organizationId: acme.id })
  assertError(foreign.error, 400, 'USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION')
  assertSameRefusal(foreign.error, (await eve.client.organization.delete({ organizationId: 'no-such-organization' })).error)
  const deleted = await bob.client.organization.delete({ organizationId: acme.id })
  assert.equal(deleted.error, null)
  assert.equal(deleted.data!.slug, 'acme')
  assert.equal(await activeOf(bob), null)
  assert.equal(await activeOf(cat), null)
  assert.deepEqual((await cat.client.organization.list()).data, [])
  assert.ok(events.some((e) => e.resource === 'auth.organizations' && e.operation === 'delete' && e.key === acme.id))
})

test('allowUserToCreate: false refuses users; without organizations the routes are not there', async () => {
  const closed = await organizationClients(await buildApp({ databaseUrl, organizations: { allowUserToCreate: false } }))
  const { client } = await closed.signedIn('eve@example.com')
  assertError((await client.organization.create({ name: 'Eve Co', slug: 'eve-co' })).error, 403, 'YOU_ARE_NOT_ALLOWED_TO_CREATE_A_NEW_ORGANIZATION')

  const off = await buildApp({ databaseUrl })
  const response = await off.inject({ method: 'GET', url: '/api/auth/organization/list' })
  assert.equal(response.statusCode, 404)
  assert.equal(JSON.parse(response.body).code, 'NOT_FOUND')
})
