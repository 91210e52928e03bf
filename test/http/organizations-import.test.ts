// Existing tenants as organizations through the host library (docs/organizations.md, "Moving an
// existing multi-tenant database"): `create({ id })` keeps a given id and refuses a bad or taken one;
// `import(entries)` makes many at once, all or none, and a second run changes nothing. The CLI:
// organizations-import-cli.test.ts; the tenant columns: organization-existing-tenants.test.ts.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { buildApp, createUser, usersOf } from '../helpers/app.js'
import { OrganizationStoreError } from '../../lib/auth/organizations.js'
import type { WriteEvent } from '../../hooks/types.js'
import { WriteHookError } from '../../hooks/registry.js'

function refused (code: OrganizationStoreError['code'], message: string, entry?: number) {
  return (err: unknown): boolean => {
    assert.ok(err instanceof OrganizationStoreError, `expected an OrganizationStoreError, got ${String(err)}`)
    assert.deepEqual([err.code, err.message, err.entry], [code, message, entry])
    return true
  }
}

const events: WriteEvent[] = []
const recorder = fp(async (instance: FastifyInstance) => {
  instance.tablegate.addWriteHook(async (event) => {
    events.push(event)
    if (event.after?.slug === 'refused-by-hook') throw new Error('a hook says no')
  }, { resources: ['auth.organizations', 'auth.members'] })
}, { name: 'import-recorder', dependencies: ['tablegate'] })
const app = await buildApp({ roles: ['admin', 'user'], organizations: {}, plugins: [recorder] })
const orgs = app.tablegate.organizations!
for (const email of ['ann@example.com', 'bob@example.com', 'cid@example.com']) await createUser(app, email, 'user')

/** Every organization with its members, as stored. */
async function stored (): Promise<Array<[string, string, string, string]>> {
  const { rows } = await usersOf(app).pool.query(`SELECT o.id, o.name, o.slug, string_agg(u.email || ':' || m.role, ' ' ORDER BY u.email) AS members
    FROM auth_organization o JOIN auth_member m ON m.organization_id = o.id JOIN auth_user u ON u.id = m.user_id GROUP BY o.id ORDER BY o.id`)
  return rows.map((r) => [r.id, r.name, r.slug, r.members])
}

test('create keeps a given id, its events keyed by it; without one the id is a new random one', async () => {
  events.length = 0
  const kept = await orgs.create({ id: '42', name: 'Acme', slug: 'acme', owner: 'ann@example.com' })
  assert.equal(kept.id, '42')
  assert.deepEqual(events.map((e) => [e.resource, e.key, e.after!.organizationId ?? e.after!.id]), [['auth.organizations', '42', '42'], ['auth.members', events[1]!.after!.id, '42']])
  const uuid = await orgs.create({ id: '6f1c7b9e-2d4a-4c8e-9b1f-3a5d7e9c0b2a', name: 'Uuid', slug: 'uuid', owner: 'ann@example.com' })
  assert.equal(uuid.id, '6f1c7b9e-2d4a-4c8e-9b1f-3a5d7e9c0b2a')
  assert.equal((await orgs.create({ id: 'x'.repeat(128), name: 'Long', slug: 'long', owner: 'ann@example.com' })).id, 'x'.repeat(128))
  assert.match((await orgs.create({ name: 'Random', slug: 'random', owner: 'ann@example.com' })).id, /^[A-Za-z0-9_-]{22}$/)
})

test('a bad or taken id is refused, saying what is wrong, and nothing is made', async () => {
  const before = await stored()
  for (const [id, code, message] of [
    ['', 'invalid-id', 'id must not be empty'],
    ['x'.repeat(129), 'invalid-id', 'id must have at most 128 characters, not 129'],
    ['a\tb', 'invalid-id', 'id must not contain control characters'],
    ['a\u0000b', 'invalid-id', 'id must not contain control characters'],
    [' 42', 'invalid-id', 'id must not start or end with whitespace'],
    [42 as unknown as string, 'invalid-id', 'id must be text'],
    ['42', 'id-taken', 'the id 42 is taken by another organization'],
  ] as const) {
    await assert.rejects(orgs.create({ id, name: 'Other', slug: 'other', owner: 'bob@example.com' }), refused(code, message), JSON.stringify(id))
  }
  // A taken id is named even where the slug is taken too.
  await assert.rejects(orgs.create({ id: '42', name: 'Acme', slug: 'acme', owner: 'bob@example.com' }), refused('id-taken', 'the id 42 is taken by another organization'))
  await assert.rejects(orgs.create({ id: '43', name: 'Acme', slug: 'acme', owner: 'bob@example.com' }), refused('slug-taken', 'the slug acme is taken by another organization'))
  assert.deepEqual(await stored(), before)
})

test('import makes the organizations with their ids and owners; a second run changes nothing and says so', async () => {
  const bob = (await usersOf(app).findByEmail('bob@example.com'))!
  const entries = [
    { id: '7', name: 'Globex', slug: 'globex', owner: 'Bob@Example.com' },
    { id: '8', name: 'Initech, Inc.', slug: 'initech', owner: { id: bob.id } },
    { id: '42', name: 'Acme', slug: 'acme', owner: 'ann@example.com' },
  ]
  events.length = 0
  assert.deepEqual(await orgs.import(entries), { created: ['7', '8'], unchanged: ['42'] })
  assert.deepEqual(events.map((e) => `${e.resource}:${e.operation}:${e.ctx.user === null ? 'host' : 'user'}`), [
    'auth.organizations:create:host', 'auth.members:create:host', 'auth.organizations:create:host', 'auth.members:create:host',
  ])
  const after = await stored()
  assert.deepEqual(after.filter(([id]) => ['7', '8', '42'].includes(id)), [
    ['42', 'Acme', 'acme', 'ann@example.com:owner'],
    ['7', 'Globex', 'globex', 'bob@example.com:owner'],
    ['8', 'Initech, Inc.', 'initech', 'bob@example.com:owner'],
  ])
  events.length = 0
  assert.deepEqual(await orgs.import(entries), { created: [], unchanged: ['7', '8', '42'] })
  assert.deepEqual(events, [])
  assert.deepEqual(await stored(), after)
  // Another owner beside the entry's does not make it differ.
  await orgs.addMember({ id: '7' }, 'cid@example.com', 'owner,admin')
  assert.deepEqual(await orgs.import([entries[0]!]), { created: [], unchanged: ['7'] })
  assert.deepEqual(await orgs.import([]), { created: [], unchanged: [] })
})

test('one refused entry imports none; the refusal names the entry and the field', async () => {
  const before = await stored()
  const good = { id: '100', name: 'Good', slug: 'good', owner: 'ann@example.com' }
  for (const [bad, code, message] of [
    [{ id: '', name: 'X', slug: 'x', owner: 'ann@example.com' }, 'invalid-id', 'entry 2, id: id must not be empty'],
    [{ id: '101', name: ' ', slug: 'x', owner: 'ann@example.com' }, 'invalid-name', 'entry 2, name: name must be text, neither empty nor with control characters'],
    [{ id: '101', name: 'X', slug: 'Not A Slug', owner: 'ann@example.com' }, 'invalid-slug', 'entry 2, slug: slug must be lowercase letters, digits and dashes, start and end with a letter or digit, and have at most 64 characters'],
    [{ id: '101', name: 'X', slug: 'x', owner: 'nobody@example.com' }, 'unknown-user', 'entry 2, owner: no user with email nobody@example.com'],
    [{ id: '101', name: 'X', slug: 'x', owner: 'no email' }, 'invalid-email', 'entry 2, owner: email must be a valid email address'],
    [{ id: '100', name: 'Again', slug: 'again', owner: 'ann@example.com' }, 'duplicate-id', 'entry 2, id: the id 100 is also on entry 1'],
    [{ id: '101', name: 'Again', slug: 'good', owner: 'ann@example.com' }, 'duplicate-slug', 'entry 2, slug: the slug good is also on entry 1'],
    [{ id: '101', name: 'X', slug: 'acme', owner: 'ann@example.com' }, 'slug-taken', 'entry 2, slug: the slug acme is taken by another organization'],
    [{ id: '42', name: 'Acme Inc', slug: 'acme', owner: 'ann@example.com' }, 'organization-differs', 'entry 2, name: organization 42 exists, and its name is \'Acme\': an import changes no organization that exists'],
    [{ id: '42', name: 'Acme', slug: 'acme-inc', owner: 'bob@example.com' }, 'organization-differs', 'entry 2, slug: organization 42 exists, and its slug is acme and bob@example.com is not one of its owners: an import changes no organization that exists'],
    [{ id: '7', name: 'Globex', slug: 'globex', owner: 'ann@example.com' }, 'organization-differs', 'entry 2, owner: organization 7 exists, and ann@example.com is not one of its owners: an import changes no organization that exists'],
  ] as const) {
    await assert.rejects(orgs.import([good, bad]), refused(code, message, 1), message)
  }
  // A label names entries as the caller counts them (the CLI: the file's lines).
  await assert.rejects(orgs.import([good, { ...good, id: '101' }], { label: (i) => `line ${i + 2}` }),
    refused('duplicate-slug', 'line 3, slug: the slug good is also on line 2', 1))
  // A hook that throws undoes the organizations made before it too.
  await assert.rejects(orgs.import([good, { id: '102', name: 'Hooked', slug: 'refused-by-hook', owner: 'ann@example.com' }]), WriteHookError)
  assert.deepEqual(await stored(), before)
})
