// Host-side organization operations (docs/organizations.md) through `app.tablegate.organizations`,
// against a real database: the refusals, the last-owner rule (under concurrency too), and the
// write events of every change. The CLI: organizations-cli.test.ts; the store's migration:
// organizations-store.test.ts.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { setTimeout as sleep } from 'node:timers/promises'
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { buildApp, createUser, signIn, sessionCookie, usersOf } from '../helpers/app.js'
import { OrganizationStoreError, type OrganizationOperations } from '../../lib/auth/organizations.js'
import type { WriteEvent } from '../../hooks/types.js'
import { WriteHookError } from '../../hooks/registry.js'

function refused (code: OrganizationStoreError['code'], message?: RegExp) {
  return (err: unknown): boolean => {
    assert.ok(err instanceof OrganizationStoreError, `expected an OrganizationStoreError, got ${String(err)}`)
    assert.equal(err.code, code, err.message)
    if (message !== undefined) assert.match(err.message, message)
    return true
  }
}

const events: WriteEvent[] = []
// While `slowMembers` is set, each membership change waits inside its transaction after its write,
// telling `onHold` (once) that it holds its locks.
let slowMembers = 0
let onHold: (() => void) | undefined
const recorder = fp(async (instance: FastifyInstance) => {
  instance.tablegate.addWriteHook(async (event) => {
    events.push(event)
    if (event.resource === 'auth.members' && slowMembers > 0) {
      onHold?.()
      onHold = undefined
      await sleep(slowMembers)
    }
    if (event.after?.slug === 'refused-by-hook' || event.after?.role === 'viewer') throw new Error('a hook says no')
  }, { resources: ['auth.organizations', 'auth.members'] })
}, { name: 'org-recorder', dependencies: ['tablegate'] })

const app = await buildApp({ roles: ['admin', 'user'], organizations: { roles: ['owner', 'admin', 'member', 'viewer'] }, plugins: [recorder] })
const orgs = app.tablegate.organizations!
for (const email of ['ann@example.com', 'bob@example.com', 'cid@example.com', 'dee@example.com']) await createUser(app, email, 'user')

async function membersOf (slug: string): Promise<Array<[string, string]>> {
  const { rows } = await usersOf(app).pool.query(`SELECT u.email, m.role FROM auth_member m JOIN auth_user u ON u.id = m.user_id
    JOIN auth_organization o ON o.id = m.organization_id WHERE o.slug = $1 ORDER BY u.email`, [slug])
  return rows.map((r) => [r.email, r.role])
}

test('the decorator holds the operations only, frozen; it is undefined when organizations are off', async () => {
  assert.deepEqual(Object.keys(orgs).sort(), ['addMember', 'create', 'import', 'list', 'removeMember', 'roleChoices', 'setRole'])
  assert.ok(Object.isFrozen(orgs))
  assert.deepEqual(orgs.roleChoices(), ['owner', 'admin', 'member', 'viewer'])
  const off = await buildApp()
  assert.equal(off.tablegate.organizations, undefined)
  // Without organizations their event names do not exist for hooks.
  assert.throws(() => { off.tablegate.addWriteHook(async () => {}, { resources: ['auth.members'] }) }, { code: 'TG_ERR_HOOK_UNKNOWN_RESOURCE' })
})

test('create: the owner is the first member; list counts members; name, logo and metadata are kept', async () => {
  const created = await orgs.create({ name: '  Acme Inc ', slug: 'acme', owner: 'Ann@Example.com', logo: 'https://acme.test/logo.png', metadata: { plan: 'pro' } })
  assert.deepEqual([created.name, created.slug, created.logo, created.metadata], ['Acme Inc', 'acme', 'https://acme.test/logo.png', { plan: 'pro' }])
  assert.deepEqual(await membersOf('acme'), [['ann@example.com', 'owner']])
  await orgs.addMember({ id: created.id }, 'bob@example.com', 'member')
  const listed = (await orgs.list()).find((o) => o.slug === 'acme')
  assert.deepEqual(listed, { id: created.id, name: 'Acme Inc', slug: 'acme', members: 2, createdAt: created.created_at.toISOString() })
})

test('slugs: lowercase letters, digits and dashes; a taken slug is refused and nothing is made', async () => {
  await orgs.create({ name: 'Slugs', slug: 'a-1-b2', owner: 'ann@example.com' })
  await orgs.create({ name: 'One letter', slug: 'x', owner: 'ann@example.com' })
  for (const slug of ['Acme', 'acme corp', '-acme', 'acme-', 'acme_corp', 'acmé', '', 'a'.repeat(65), 'a/b']) {
    await assert.rejects(orgs.create({ name: 'Bad', slug, owner: 'ann@example.com' }), refused('invalid-slug', /lowercase letters, digits and dashes/), slug)
  }
  await orgs.create({ name: 'Long', slug: 'a'.repeat(64), owner: 'ann@example.com' })
  await orgs.create({ name: 'Taken', slug: 'taken', owner: 'ann@example.com' })
  await assert.rejects(orgs.create({ name: 'Again', slug: 'taken', owner: 'bob@example.com' }), refused('slug-taken', /^the slug taken is taken by another organization$/))
  assert.deepEqual(await membersOf('taken'), [['ann@example.com', 'owner']])
  // Two creates of one slug at once: one organization.
  const both = await Promise.allSettled([1, 2].map(async (n) => await orgs.create({ name: `Race ${n}`, slug: 'race', owner: 'ann@example.com' })))
  assert.deepEqual(both.map((r) => r.status).sort(), ['fulfilled', 'rejected'])
  assert.equal((await orgs.list()).filter((o) => o.slug === 'race').length, 1)
})

test('unknown users, organizations and roles are refused with one clear message, and change nothing', async () => {
  await orgs.create({ name: 'Refusals', slug: 'refusals', owner: 'ann@example.com' })
  const cases: Array<[() => Promise<unknown>, OrganizationStoreError['code'], RegExp]> = [
    [async () => await orgs.create({ name: 'X', slug: 'nobody-owns', owner: 'nobody@example.com' }), 'unknown-user', /^no user with email nobody@example\.com$/],
    [async () => await orgs.create({ name: 'X', slug: 'bad-owner', owner: 'not an email' }), 'invalid-email', /valid email/],
    [async () => await orgs.create({ name: ' ', slug: 'blank', owner: 'ann@example.com' }), 'invalid-name', /name/],
    [async () => await orgs.create({ name: 'X', slug: 'meta', owner: 'ann@example.com', metadata: [1] as never }), 'invalid-metadata', /JSON object/],
    [async () => await orgs.addMember('nope', 'bob@example.com', 'member'), 'unknown-organization', /^no organization with slug nope$/],
    [async () => await orgs.addMember({ id: 'no-such-id' }, 'bob@example.com', 'member'), 'unknown-organization', /^no organization with id no-such-id$/],
    [async () => await orgs.addMember('refusals', 'nobody@example.com', 'member'), 'unknown-user', /^no user with email nobody@example\.com$/],
    [async () => await orgs.addMember('refusals', { id: 'ghost' }, 'member'), 'unknown-user', /^no user with id ghost$/],
    // The service roles are another namespace: `user` is not an organization role.
    [async () => await orgs.addMember('refusals', 'bob@example.com', 'user'), 'invalid-role', /^organization role 'user' is not one of owner, admin, member, viewer$/],
    [async () => await orgs.addMember('refusals', 'bob@example.com', ' , '), 'role-required', /choose from owner, admin, member, viewer/],
    [async () => await orgs.addMember('refusals', 'ann@example.com', 'member'), 'already-member', /^ann@example\.com is already a member of refusals$/],
    [async () => await orgs.removeMember('refusals', 'bob@example.com'), 'not-a-member', /^bob@example\.com is not a member of refusals$/],
    [async () => await orgs.setRole('refusals', 'bob@example.com', 'admin'), 'not-a-member', /not a member/],
    [async () => await orgs.setRole('refusals', 'ann@example.com', 'ghost'), 'invalid-role', /'ghost'/],
    [async () => await orgs.setRole('nope', 'ann@example.com', 'admin'), 'unknown-organization', /nope/],
  ]
  for (const [attempt, code, message] of cases) await assert.rejects(attempt(), refused(code, message), message.source)
  assert.deepEqual(await membersOf('refusals'), [['ann@example.com', 'owner']])
  assert.equal((await orgs.list()).filter((o) => ['nobody-owns', 'bad-owner', 'blank', 'meta'].includes(o.slug)).length, 0)
})

test('the last owner can be neither removed nor demoted; another owner makes both possible', async () => {
  await orgs.create({ name: 'Owners', slug: 'owners', owner: 'ann@example.com' })
  await assert.rejects(orgs.removeMember('owners', 'ann@example.com'), refused('last-owner', /^cannot remove ann@example\.com: the last owner of owners$/))
  await assert.rejects(orgs.setRole('owners', 'ann@example.com', 'admin'), refused('last-owner', /^cannot demote ann@example\.com: the last owner of owners$/))
  await orgs.setRole('owners', 'ann@example.com', 'owner,admin')
  await orgs.addMember('owners', 'bob@example.com', 'admin, member')
  assert.deepEqual(await membersOf('owners'), [['ann@example.com', 'owner,admin'], ['bob@example.com', 'admin,member']])
  await orgs.setRole('owners', 'bob@example.com', ['owner'])
  await orgs.setRole('owners', 'ann@example.com', 'member')
  await assert.rejects(orgs.removeMember('owners', 'bob@example.com'), refused('last-owner'))
  await orgs.removeMember('owners', 'ann@example.com')
  assert.deepEqual(await membersOf('owners'), [['bob@example.com', 'owner']])
})

test('concurrent demotions or removals of the only two owners leave one owner', async () => {
  const { pool } = usersOf(app)
  for (const [slug, change] of [
    ['race-demote', async (o: OrganizationOperations, s: string, email: string) => await o.setRole(s, email, 'member')],
    ['race-remove', async (o: OrganizationOperations, s: string, email: string) => { await o.removeMember(s, email) }],
  ] as const) {
    await orgs.create({ name: slug, slug, owner: 'cid@example.com' })
    await orgs.addMember(slug, 'dee@example.com', 'owner')
    // The first change waits inside its transaction after its write: without the organization's
    // lock the second would find the first owner still there and go ahead too.
    slowMembers = 300
    try {
      const holding = new Promise<void>((resolve) => { onHold = resolve })
      const first = change(orgs, slug, 'cid@example.com')
      await holding
      const results = await Promise.allSettled([first, change(orgs, slug, 'dee@example.com')])
      assert.equal(results[0].status, 'fulfilled', slug)
      assert.equal(results[1].status, 'rejected', slug)
      assert.ok(refused('last-owner')((results[1] as PromiseRejectedResult).reason))
    } finally {
      slowMembers = 0
    }
    const { rows } = await pool.query(`SELECT count(*)::int AS n FROM auth_member m JOIN auth_organization o ON o.id = m.organization_id
      WHERE o.slug = $1 AND 'owner' = ANY (string_to_array(m.role, ','))`, [slug])
    assert.equal(rows[0].n, 1, slug)
  }
})

test('removing a member clears the organization as their sessions\' active one', async () => {
  const created = await orgs.create({ name: 'Active', slug: 'active', owner: 'ann@example.com' })
  const other = await orgs.create({ name: 'Other', slug: 'active-other', owner: 'ann@example.com' })
  await orgs.addMember('active', 'bob@example.com', 'member')
  await orgs.addMember('active-other', 'bob@example.com', 'member')
  assert.ok(sessionCookie(await signIn(app, 'bob@example.com')))
  assert.ok(sessionCookie(await signIn(app, 'bob@example.com')))
  const { pool } = usersOf(app)
  const bob = (await usersOf(app).findByEmail('bob@example.com'))!
  const [first, second] = (await pool.query('SELECT id FROM auth_session WHERE user_id = $1', [bob.id])).rows.map((r) => r.id as string)
  await pool.query('UPDATE auth_session SET active_organization_id = $1 WHERE id = $2', [created.id, first])
  await pool.query('UPDATE auth_session SET active_organization_id = $1 WHERE id = $2', [other.id, second])
  await orgs.removeMember('active', 'bob@example.com')
  const { rows } = await pool.query('SELECT id, active_organization_id FROM auth_session WHERE user_id = $1', [bob.id])
  assert.deepEqual(Object.fromEntries(rows.map((r) => [r.id, r.active_organization_id])), { [first!]: null, [second!]: other.id })
})

test('every change is a write event in better-auth\'s shapes, with the host as its caller; a hook that throws undoes it', async () => {
  events.length = 0
  const created = await orgs.create({ name: 'Events', slug: 'events', owner: 'ann@example.com' })
  await orgs.addMember('events', 'bob@example.com', 'member')
  await orgs.setRole('events', 'bob@example.com', 'admin')
  await orgs.removeMember('events', 'bob@example.com')
  assert.deepEqual(events.map((e) => [e.resource, e.operation]), [
    ['auth.organizations', 'create'], ['auth.members', 'create'], ['auth.members', 'create'], ['auth.members', 'update'], ['auth.members', 'delete'],
  ])
  assert.ok(events.every((e) => e.ctx.user === null))
  assert.deepEqual(events[0]!.after, { id: created.id, name: 'Events', slug: 'events', logo: null, metadata: null, createdAt: created.created_at.toISOString() })
  assert.equal(events[0]!.key, created.id)
  const bob = (await usersOf(app).findByEmail('bob@example.com'))!
  const update = events[3]!
  assert.deepEqual(Object.keys(update.after!).sort(), ['createdAt', 'id', 'organizationId', 'role', 'userId'])
  assert.deepEqual([update.before!.role, update.after!.role, update.after!.userId, update.after!.organizationId, update.key], ['member', 'admin', bob.id, created.id, update.after!.id])
  assert.equal(events[4]!.after, undefined)

  await assert.rejects(orgs.create({ name: 'No', slug: 'refused-by-hook', owner: 'ann@example.com' }), WriteHookError)
  assert.equal((await orgs.list()).find((o) => o.slug === 'refused-by-hook'), undefined)
  await assert.rejects(orgs.addMember('events', 'bob@example.com', 'viewer'), WriteHookError)
  assert.deepEqual(await membersOf('events'), [['ann@example.com', 'owner']])
})
