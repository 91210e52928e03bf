// signUp: 'invitation': only an email holding a pending organization invitation may sign up; the
// account is made and the invitation stays to be accepted once the address is shown to be the
// person's (its verification link), so no one can sign up as an invited address and take the
// invitation (better-auth 1.7's own client throughout).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createUser, PASSWORD } from '../helpers/app.js'
import { accountsApp, assertError, browser, signedIn } from '../helpers/accounts.js'

const { app, base, mailbox } = await accountsApp({ signUp: 'invitation', organizations: {} })
await createUser(app, 'owner@example.com')
const owner = await signedIn(base, 'owner@example.com')
const acme = await owner.client.organization.create({ name: 'Acme', slug: 'acme' })
assert.equal(acme.error, null, JSON.stringify(acme.error))

const DANA_PASSWORD = 'dana-chose-this-one'

test('an email without a pending invitation cannot sign up', async () => {
  const { error } = await browser(base).client.signUp.email({ email: 'stranger@example.com', password: DANA_PASSWORD, name: 'Stranger' })
  assertError(error, 403, 'SIGN_UP_NEEDS_INVITATION')
  assertError((await browser(base).client.signIn.email({ email: 'stranger@example.com', password: DANA_PASSWORD })).error, 401, 'INVALID_EMAIL_OR_PASSWORD')
  assert.equal(await mailbox.noneTo('stranger@example.com'), true)
})

test('an invited email signs up, signs in, verifies the address, and only then sees and accepts its invitation', async () => {
  const invited = await owner.client.organization.inviteMember({ email: 'dana@example.com', role: 'member', organizationId: acme.data!.id })
  assert.equal(invited.error, null, JSON.stringify(invited.error))
  const up = await browser(base).client.signUp.email({ email: 'Dana@example.com', password: DANA_PASSWORD, name: 'Dana' })
  assert.equal(up.error, null, JSON.stringify(up.error))
  assert.equal(up.data!.user.email, 'dana@example.com')
  assert.equal((up.data!.user as { role?: string }).role, 'user')

  const dana = await signedIn(base, 'dana@example.com', DANA_PASSWORD)
  assertError((await dana.client.organization.listUserInvitations()).error, 403, 'EMAIL_VERIFICATION_REQUIRED_FOR_INVITATION')
  assertError((await dana.client.organization.getInvitation({ query: { id: invited.data!.id } })).error, 403, 'EMAIL_VERIFICATION_REQUIRED_FOR_INVITATION')
  assertError((await dana.client.organization.acceptInvitation({ invitationId: invited.data!.id })).error, 403, 'EMAIL_VERIFICATION_REQUIRED_BEFORE_ACCEPTING_OR_REJECTING_INVITATION')
  assertError((await dana.client.organization.rejectInvitation({ invitationId: invited.data!.id })).error, 403, 'EMAIL_VERIFICATION_REQUIRED_BEFORE_ACCEPTING_OR_REJECTING_INVITATION')
  const link = await mailbox.next('dana@example.com')
  assert.equal((await dana.client.verifyEmail({ query: { token: link.token } })).error, null)

  const pending = await dana.client.organization.listUserInvitations()
  assert.deepEqual(pending.data!.map((i) => [i.email, i.status]), [['dana@example.com', 'pending']])
  const accepted = await dana.client.organization.acceptInvitation({ invitationId: invited.data!.id })
  assert.equal(accepted.error, null, JSON.stringify(accepted.error))
  const orgs = await dana.client.organization.list()
  assert.deepEqual(orgs.data!.map((o) => o.slug), ['acme'])
})

test('an accepted or canceled invitation admits no one', async () => {
  // dana's invitation was accepted above: a second sign-up with her email is no sign-up by invitation.
  assertError((await browser(base).client.signUp.email({ email: 'erin@example.com', password: DANA_PASSWORD, name: 'Erin' })).error, 403, 'SIGN_UP_NEEDS_INVITATION')
  const invited = await owner.client.organization.inviteMember({ email: 'erin@example.com', role: 'member', organizationId: acme.data!.id })
  await owner.client.organization.cancelInvitation({ invitationId: invited.data!.id })
  assertError((await browser(base).client.signUp.email({ email: 'erin@example.com', password: DANA_PASSWORD, name: 'Erin' })).error, 403, 'SIGN_UP_NEEDS_INVITATION')
  await signedIn(base, 'owner@example.com', PASSWORD)
})
