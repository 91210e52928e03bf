// The example shop's invitation sign-up (`npm start`'s config): an owner invites, the shop's mail
// hook logs the invitation and the verification link, the invitee signs up with that email, follows
// the link, signs in and accepts; an uninvited email cannot sign up. better-auth 1.7's own client.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { join } from 'node:path'
import shop from '../../examples/shop/tablegate.config.js'
import { buildApp, createUser } from '../helpers/app.js'
import { freshDatabase } from '../helpers/db.js'
import { root } from '../helpers/cli.js'
import { assertError, browser, signedIn } from '../helpers/accounts.js'

const databaseUrl = await freshDatabase()
const app = await buildApp({ ...shop, databaseUrl, migrations: join(root, 'examples', 'shop', 'migrations') })
const base = await app.listen({ port: 0, host: '127.0.0.1' })
for (const email of ['admin@example.com', 'ann@example.com']) await createUser(app, email)
await app.tablegate.organizations!.create({ name: 'Acme', slug: 'acme', owner: 'ann@example.com' })

test('invited by email, dana signs up, confirms, signs in and joins Acme; the mails are logged', async (t) => {
  const logged: string[] = []
  t.mock.method(console, 'log', (line: string) => { logged.push(line) })
  const mailTo = async (to: string, subject: string): Promise<string> => {
    for (let i = 0; i < 50; i++) {
      const line = logged.find((l) => l.startsWith(`mail to ${to}: ${subject} `))
      if (line !== undefined) return line.slice(`mail to ${to}: ${subject} `.length)
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    throw new Error(`no mail '${subject}' to ${to} in ${JSON.stringify(logged)}`)
  }

  assertError((await browser(base).client.signUp.email({ email: 'dana@example.com', password: 'dana-picks-a-passphrase', name: 'Dana' })).error, 403, 'SIGN_UP_NEEDS_INVITATION')
  const ann = await signedIn(base, 'ann@example.com')
  await ann.client.organization.setActive({ organizationSlug: 'acme' })
  const invited = await ann.client.organization.inviteMember({ email: 'dana@example.com', role: 'member' })
  assert.equal(invited.error, null, JSON.stringify(invited.error))
  assert.match(await mailTo('dana@example.com', 'Join Acme'), new RegExp(`accept invitation ${invited.data!.id}\\)$`))

  const up = await browser(base).client.signUp.email({ email: 'dana@example.com', password: 'dana-picks-a-passphrase', name: 'Dana' })
  assert.equal(up.error, null, JSON.stringify(up.error))
  const link = new URL(await mailTo('dana@example.com', 'Confirm your email'))
  assert.equal(link.pathname, '/api/auth/verify-email')
  assert.equal((await browser(base).client.verifyEmail({ query: { token: link.searchParams.get('token')! } })).error, null)

  const dana = await signedIn(base, 'dana@example.com', 'dana-picks-a-passphrase')
  assert.equal((await dana.client.getSession()).data!.user.emailVerified, true)
  assert.equal((await dana.client.organization.acceptInvitation({ invitationId: invited.data!.id })).error, null)
  assert.deepEqual((await dana.client.organization.list()).data!.map((o) => o.slug), ['acme'])
})
