// Invitations through better-auth 1.7's own client with organizationClient(): invite-member (and
// onInvitation), get-invitation, list-invitations, list-user-invitations, accept, reject, cancel;
// only the signed-in user with the invited email answers one, and they expire.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildApp, createUser } from '../helpers/app.js'
import { freshDatabase, withClient } from '../helpers/db.js'
import { activeOf, assertError, assertSameRefusal, organizationClients } from '../helpers/organization-client.js'
import type { InvitationNotice } from '../../lib/config/functions.js'

const databaseUrl = await freshDatabase()
const notices: InvitationNotice[] = []
const app = await buildApp({
  databaseUrl,
  organizations: {
    invitationExpiresIn: 3600,
    onInvitation: async (invitation) => {
      if (invitation.email === 'refused@example.com') throw new Error('the mailer refuses this address')
      notices.push(invitation)
    },
  },
})
for (const email of ['ann@example.com', 'bob@example.com', 'cat@example.com', 'eve@example.com', 'dan@example.com']) await createUser(app, email)
const { signedIn } = await organizationClients(app)
const ann = await signedIn('ann@example.com')
const bob = await signedIn('bob@example.com')
const cat = await signedIn('cat@example.com')
const eve = await signedIn('eve@example.com')
const dan = await signedIn('dan@example.com')
const globex = (await ann.client.organization.create({ name: 'Globex', slug: 'globex' })).data!
let bobInvitation: string

test('invite-member: owners and admins invite an email with a role; onInvitation gets it', async () => {
  const before = Date.now()
  const { data, error } = await ann.client.organization.inviteMember({ email: 'Bob@Example.com', role: 'member' })
  assert.equal(error, null, JSON.stringify(error))
  assert.equal(data!.email, 'bob@example.com')
  assert.equal(data!.role, 'member')
  assert.equal(data!.status, 'pending')
  assert.equal(data!.organizationId, globex.id)
  assert.equal(data!.inviterId, ann.id)
  const lasts = Date.parse(String(data!.expiresAt)) - before
  assert.ok(lasts > 3590_000 && lasts <= 3601_000, String(lasts))
  bobInvitation = data!.id
  assert.equal(notices.length, 1)
  assert.deepEqual({ ...notices[0]!, expiresAt: undefined }, {
    id: bobInvitation, email: 'bob@example.com', role: 'member', expiresAt: undefined,
    organization: { id: globex.id, name: 'Globex', slug: 'globex' },
    inviter: { id: ann.id, email: 'ann@example.com', name: '' },
  })
  assert.ok(notices[0]!.expiresAt instanceof Date)

  assertError((await ann.client.organization.inviteMember({ email: 'bob@example.com', role: 'member' })).error, 400, 'USER_IS_ALREADY_INVITED_TO_THIS_ORGANIZATION')
  const resent = await ann.client.organization.inviteMember({ email: 'bob@example.com', role: 'member', resend: true })
  assert.equal(resent.data!.id, bobInvitation)
  assert.equal(notices.length, 2)
  assertError((await ann.client.organization.inviteMember({ email: 'ann@example.com', role: 'member' })).error, 400, 'USER_IS_ALREADY_A_MEMBER_OF_THIS_ORGANIZATION')
  const ghost = await ann.client.organization.inviteMember({ email: 'x@example.com', role: 'ghost' as 'member' })
  assertError(ghost.error, 400, 'ROLE_NOT_FOUND')
  assert.equal(ghost.error!.message, 'ROLE_NOT_FOUND: ghost')
  assertError((await ann.client.organization.inviteMember({ email: 'not-an-email', role: 'member' })).error, 400, 'INVALID_EMAIL')
  assertError((await eve.client.organization.inviteMember({ email: 'x@example.com', role: 'member', organizationId: globex.id })).error, 400, 'MEMBER_NOT_FOUND')
  assertError((await eve.client.organization.inviteMember({ email: 'x@example.com', role: 'member' })).error, 400, 'ORGANIZATION_NOT_FOUND')
})

test('an invitation onInvitation cannot take is not made', async () => {
  const refused = await ann.client.organization.inviteMember({ email: 'refused@example.com', role: 'member' })
  assert.equal(refused.error!.status, 500)
  const listed = await ann.client.organization.listInvitations()
  assert.deepEqual(listed.data!.map((i) => i.email), ['bob@example.com'])
})

test('only the invited user sees an invitation; members with the right list them', async () => {
  const mine = await bob.client.organization.listUserInvitations()
  assert.equal(mine.error, null, JSON.stringify(mine.error))
  assert.deepEqual(mine.data!.map((i) => [i.id, i.organizationName]), [[bobInvitation, 'Globex']])
  assert.deepEqual((await eve.client.organization.listUserInvitations()).data, [])
  const details = await bob.client.organization.getInvitation({ query: { id: bobInvitation } })
  assert.equal(details.error, null, JSON.stringify(details.error))
  assert.equal(details.data!.organizationName, 'Globex')
  assert.equal(details.data!.organizationSlug, 'globex')
  assert.equal(details.data!.inviterEmail, 'ann@example.com')
  assertError((await eve.client.organization.getInvitation({ query: { id: bobInvitation } })).error, 403, 'YOU_ARE_NOT_THE_RECIPIENT_OF_THE_INVITATION')
  assertError((await eve.client.organization.getInvitation({ query: { id: 'no-such-invitation' } })).error, 400, 'INVITATION_NOT_FOUND')
  assertError((await eve.client.organization.acceptInvitation({ invitationId: bobInvitation })).error, 403, 'YOU_ARE_NOT_THE_RECIPIENT_OF_THE_INVITATION')
  assertError((await eve.client.organization.rejectInvitation({ invitationId: bobInvitation })).error, 403, 'YOU_ARE_NOT_THE_RECIPIENT_OF_THE_INVITATION')

  const foreign = await eve.client.organization.listInvitations({ query: { organizationId: globex.id } })
  assertError(foreign.error, 403, 'YOU_ARE_NOT_A_MEMBER_OF_THIS_ORGANIZATION')
  assertSameRefusal(foreign.error, (await eve.client.organization.listInvitations({ query: { organizationId: 'no-such-organization' } })).error)
  assertError((await eve.client.organization.listInvitations()).error, 400, 'NO_ACTIVE_ORGANIZATION')
})

test('accept-invitation makes the invited user a member, working in it; accepting twice is refused', async () => {
  assert.equal(await activeOf(bob), null)
  const accepted = await bob.client.organization.acceptInvitation({ invitationId: bobInvitation })
  assert.equal(accepted.error, null, JSON.stringify(accepted.error))
  assert.equal(accepted.data!.invitation.status, 'accepted')
  assert.equal(accepted.data!.member.userId, bob.id)
  assert.equal(accepted.data!.member.role, 'member')
  assert.equal(await activeOf(bob), globex.id)
  assert.equal((await bob.client.organization.getActiveMember()).data!.role, 'member')
  assertError((await bob.client.organization.acceptInvitation({ invitationId: bobInvitation })).error, 400, 'INVITATION_NOT_FOUND')
  assertError((await bob.client.organization.listInvitations()).error, 403, 'YOU_ARE_NOT_ALLOWED_TO_LIST_INVITATIONS')
  assertError((await bob.client.organization.inviteMember({ email: 'x@example.com', role: 'member' })).error, 403, 'YOU_ARE_NOT_ALLOWED_TO_INVITE_USERS_TO_THIS_ORGANIZATION')
})

test('reject-invitation: the invited user declines; nothing is joined', async () => {
  const invited = await ann.client.organization.inviteMember({ email: 'cat@example.com', role: 'admin' })
  const rejected = await cat.client.organization.rejectInvitation({ invitationId: invited.data!.id })
  assert.equal(rejected.error, null, JSON.stringify(rejected.error))
  assert.equal(rejected.data!.invitation!.status, 'rejected')
  assert.equal(rejected.data!.member, null)
  assert.deepEqual((await cat.client.organization.listUserInvitations()).data, [])
  assert.deepEqual((await cat.client.organization.list()).data, [])
  assertError((await cat.client.organization.acceptInvitation({ invitationId: invited.data!.id })).error, 400, 'INVITATION_NOT_FOUND')
})

test('cancel-invitation and the owner role: only an owner invites owners, sees and cancels those invitations', async () => {
  const bobMember = (await bob.client.organization.getActiveMember()).data!.id
  assert.equal((await ann.client.organization.updateMemberRole({ memberId: bobMember, role: 'admin' })).error, null)
  assertError((await bob.client.organization.inviteMember({ email: 'eve@example.com', role: 'owner' })).error, 403, 'YOU_ARE_NOT_ALLOWED_TO_INVITE_USER_WITH_THIS_ROLE')
  const owner = await ann.client.organization.inviteMember({ email: 'eve@example.com', role: 'owner' })
  assert.equal(owner.error, null)
  assert.ok(!(await bob.client.organization.listInvitations()).data!.some((i) => i.id === owner.data!.id))
  assert.ok((await ann.client.organization.listInvitations()).data!.some((i) => i.id === owner.data!.id))
  assertError((await bob.client.organization.cancelInvitation({ invitationId: owner.data!.id })).error, 403, 'YOU_ARE_NOT_ALLOWED_TO_CANCEL_THIS_INVITATION')
  // Someone outside the organization is told what naming no invitation tells.
  const foreign = await dan.client.organization.cancelInvitation({ invitationId: owner.data!.id })
  assertError(foreign.error, 400, 'INVITATION_NOT_FOUND')
  assertSameRefusal(foreign.error, (await dan.client.organization.cancelInvitation({ invitationId: 'no-such-invitation' })).error)

  const canceled = await ann.client.organization.cancelInvitation({ invitationId: owner.data!.id })
  assert.equal(canceled.error, null)
  assert.equal(canceled.data!.status, 'canceled')
  assertError((await eve.client.organization.acceptInvitation({ invitationId: owner.data!.id })).error, 400, 'INVITATION_NOT_FOUND')
  const bobs = await bob.client.organization.inviteMember({ email: 'eve@example.com', role: 'member' })
  assert.equal((await bob.client.organization.cancelInvitation({ invitationId: bobs.data!.id })).data!.status, 'canceled')
})

test('an expired invitation can be neither seen nor accepted, and no longer blocks a new one', async () => {
  const invited = await ann.client.organization.inviteMember({ email: 'dan@example.com', role: 'member' })
  await withClient(databaseUrl, async (client) => await client.query("UPDATE auth_invitation SET expires_at = now() - interval '1 second' WHERE id = $1", [invited.data!.id]))
  assertError((await dan.client.organization.getInvitation({ query: { id: invited.data!.id } })).error, 400, 'INVITATION_NOT_FOUND')
  assertError((await dan.client.organization.acceptInvitation({ invitationId: invited.data!.id })).error, 400, 'INVITATION_NOT_FOUND')
  assert.deepEqual((await dan.client.organization.listUserInvitations()).data, [])
  const again = await ann.client.organization.inviteMember({ email: 'dan@example.com', role: 'member' })
  assert.equal(again.error, null)
  assert.notEqual(again.data!.id, invited.data!.id)
  assert.equal((await dan.client.organization.acceptInvitation({ invitationId: again.data!.id })).error, null)
})
