// Host-side user operations (docs/login.md, "Host-side user operations")
// through `app.tablegate.users`, against a real database.
import { test } from 'node:test'
import { runtimeOf } from '../../lib/runtime.js'
import assert from 'node:assert/strict'
import { decodeJwt } from 'jose'
import type { FastifyInstance } from 'fastify'
import { buildApp, usersOf, signIn, sessionCookie, json, PASSWORD } from '../helpers/app.js'
import { UserStoreError } from '../../lib/auth/users.js'

function refused (code: UserStoreError['code'], message?: RegExp) {
  return (err: unknown): boolean => {
    assert.ok(err instanceof UserStoreError, `expected a UserStoreError, got ${String(err)}`)
    assert.equal(err.code, code, err.message)
    if (message !== undefined) assert.match(err.message, message)
    return true
  }
}

async function count (app: FastifyInstance, table: string, userId: string): Promise<number> {
  const result = await runtimeOf(app).db.admin.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE user_id = $1`, [userId])
  return result.rows[0]!.n
}

test('a plugin gets the host-side operations and the login store\'s database, never the store\'s pool, tables or signing keys', async () => {
  const app = await buildApp()
  const users = app.tablegate.users as unknown as Record<string, unknown>
  assert.deepEqual(Object.keys(users).sort(), ['create', 'delete', 'findByEmail', 'hasUsers', 'issueToken', 'list', 'migrate', 'revokeSessions', 'roleChoices', 'setBanned', 'setRole'])
  for (const inside of ['pool', 'tables', 'keys']) assert.equal(users[inside], undefined, inside)
  assert.ok(Object.isFrozen(users))
  assert.equal((await app.tablegate.authDb!.query('SELECT 1 AS one')).rows[0].one, 1)
  const created = await app.tablegate.users!.create({ email: 'through-the-view@example.com', password: PASSWORD })
  assert.equal((await usersOf(app).findByEmail('through-the-view@example.com'))!.id, created.id)
})

test('the first user is always admin; later users get the default role', async () => {
  const app = await buildApp()
  const users = usersOf(app)
  assert.equal(await users.hasUsers(), false)
  const first = await users.create({ email: 'first@example.com', password: PASSWORD, role: 'user' })
  assert.equal(first.role, 'admin,user')
  assert.equal(await users.hasUsers(), true)
  const second = await users.create({ email: 'second@example.com', password: PASSWORD })
  assert.equal(second.role, 'user')
  const third = await users.create({ email: 'third@example.com', password: PASSWORD, role: 'admin' })
  assert.equal(third.role, 'admin')
  assert.deepEqual(users.roleChoices(), ['admin', 'user'])
})

test('the first user created without a role is admin only', async () => {
  const users = usersOf(await buildApp())
  const first = await users.create({ email: 'Boss@Example.com ', password: PASSWORD, name: 'Boss' })
  assert.equal(first.role, 'admin')
  assert.equal(first.email, 'boss@example.com')
  assert.equal(first.name, 'Boss')
})

test('roles outside the list, several roles, and a missing role without a default', async () => {
  const app = await buildApp({ roles: ['admin', 'editor', 'viewer'] })
  const users = usersOf(app)
  assert.deepEqual(users.roleChoices(), ['admin', 'editor', 'viewer'])
  await users.create({ email: 'admin@example.com', password: PASSWORD })
  await assert.rejects(users.create({ email: 'nobody@example.com', password: PASSWORD }),
    refused('role-required', /editor, viewer/))
  const both = await users.create({ email: 'both@example.com', password: PASSWORD, role: 'editor, viewer' })
  assert.equal(both.role, 'editor,viewer')
  const listed = await users.create({ email: 'listed@example.com', password: PASSWORD, role: ['viewer'] })
  assert.equal(listed.role, 'viewer')
  await assert.rejects(users.create({ email: 'ghost@example.com', password: PASSWORD, role: 'ghost' }),
    refused('invalid-role', /'ghost'.*admin, editor, viewer/))
  await assert.rejects(users.create({ email: 'ghost@example.com', password: PASSWORD, role: 'editor,user' }),
    refused('invalid-role', /'user'/))
  assert.equal(await users.findByEmail('ghost@example.com'), undefined)

  const updated = await users.setRole('listed@example.com', 'viewer,editor')
  assert.equal(updated.role, 'viewer,editor')
  await assert.rejects(users.setRole('listed@example.com', 'user'), refused('invalid-role', /choose from admin, editor, viewer/))
  await assert.rejects(users.setRole('listed@example.com', ''), refused('role-required'))
  assert.equal((await users.findByEmail('listed@example.com'))!.role, 'viewer,editor')
  await assert.rejects(users.setRole('nobody@example.com', 'viewer'), refused('unknown-user'))
})

test('with one role besides admin, that role is the default', async () => {
  const users = usersOf(await buildApp({ roles: ['admin', 'editor'] }))
  await users.create({ email: 'admin@example.com', password: PASSWORD })
  const editor = await users.create({ email: 'editor@example.com', password: PASSWORD })
  assert.equal(editor.role, 'editor')
  assert.deepEqual(users.roleChoices(), ['admin', 'editor'])
})

test('defaultRole is what a new user gets', async () => {
  const users = usersOf(await buildApp({ roles: ['admin', 'editor', 'viewer'], defaultRole: 'viewer' }))
  await users.create({ email: 'admin@example.com', password: PASSWORD })
  assert.equal((await users.create({ email: 'v@example.com', password: PASSWORD })).role, 'viewer')
})

test('weak passwords, invalid and duplicate emails are refused', async () => {
  const users = usersOf(await buildApp())
  await assert.rejects(users.create({ email: 'short@example.com', password: '12345678901' }), refused('weak-password', /12/))
  await assert.rejects(users.create({ email: 'short@example.com', password: '' }), refused('weak-password'))
  assert.equal(await users.hasUsers(), false)
  await users.create({ email: 'ok@example.com', password: '123456789012' })
  for (const email of ['not-an-email', 'a@b', 'two words@example.com', '', '@example.com']) {
    await assert.rejects(users.create({ email, password: PASSWORD }), refused('invalid-email'), email)
  }
  await assert.rejects(users.create({ email: 'ok@example.com', password: PASSWORD }), refused('email-taken'))
  await assert.rejects(users.create({ email: ' OK@Example.COM', password: PASSWORD }), refused('email-taken'))
  assert.equal((await users.list()).length, 1)
})

test('list returns summaries and never a password', async () => {
  const app = await buildApp()
  const users = usersOf(app)
  assert.deepEqual(await users.list(), [])
  await users.create({ email: 'a@example.com', password: PASSWORD, name: 'Ann' })
  await users.create({ email: 'b@example.com', password: PASSWORD })
  const list = await users.list()
  assert.equal(list.length, 2)
  for (const entry of list) {
    assert.deepEqual(Object.keys(entry).sort(), ['banned', 'createdAt', 'email', 'id', 'role'])
    assert.equal(typeof entry.id, 'string')
    assert.ok(entry.id.length > 0)
    assert.equal(entry.banned, false)
    assert.equal(new Date(entry.createdAt).toISOString(), entry.createdAt)
    assert.ok(!JSON.stringify(entry).includes(PASSWORD))
    assert.ok(!JSON.stringify(entry).includes('$argon2'))
  }
  assert.deepEqual(list.map((u) => [u.email, u.role]), [['a@example.com', 'admin'], ['b@example.com', 'user']])
})

test('the last active admin cannot be deleted, demoted or banned', async () => {
  const users = usersOf(await buildApp())
  await users.create({ email: 'root@example.com', password: PASSWORD })
  await users.create({ email: 'plain@example.com', password: PASSWORD })
  const lastAdmin = refused('last-admin', /root@example\.com/)
  await assert.rejects(users.delete('root@example.com'), lastAdmin)
  await assert.rejects(users.setRole('root@example.com', 'user'), lastAdmin)
  await assert.rejects(users.setBanned('root@example.com', true), lastAdmin)
  assert.equal((await users.findByEmail('root@example.com'))!.role, 'admin')
  assert.equal((await users.findByEmail('root@example.com'))!.banned, false)

  // Keeping admin among several roles is not a demotion; changing a non-admin is always allowed.
  assert.equal((await users.setRole('root@example.com', 'user,admin')).role, 'user,admin')
  assert.equal((await users.setRole('plain@example.com', 'user')).role, 'user')
  assert.equal((await users.setBanned('plain@example.com', true)).banned, true)

  // A banned second admin is not an active one.
  await users.setRole('plain@example.com', 'admin')
  await assert.rejects(users.delete('root@example.com'), lastAdmin)
  await assert.rejects(users.setRole('root@example.com', 'user'), lastAdmin)
  await assert.rejects(users.setBanned('root@example.com', true), lastAdmin)

  // Once it is active, the first admin may go.
  await users.setBanned('plain@example.com', false)
  assert.equal((await users.setBanned('root@example.com', true)).banned, true)
  assert.equal((await users.setBanned('root@example.com', false)).banned, false)
  assert.equal((await users.setRole('root@example.com', 'user')).role, 'user')
  await assert.rejects(users.delete('plain@example.com'), refused('last-admin', /plain@example\.com/))
  await users.setRole('root@example.com', 'admin')
  await users.delete('root@example.com')
  assert.equal(await users.findByEmail('root@example.com'), undefined)
  assert.deepEqual((await users.list()).map((u) => [u.email, u.role]), [['plain@example.com', 'admin']])
  await assert.rejects(users.delete('root@example.com'), refused('unknown-user'))
  await assert.rejects(users.setBanned('root@example.com', true), refused('unknown-user'))
})

test('a banned admin may be demoted or deleted while another admin is active', async () => {
  const users = usersOf(await buildApp())
  await users.create({ email: 'root@example.com', password: PASSWORD })
  await users.create({ email: 'second@example.com', password: PASSWORD, role: 'admin' })
  await users.setBanned('second@example.com', true)
  assert.equal((await users.setRole('second@example.com', 'user')).role, 'user')
  await users.setRole('second@example.com', 'admin')
  await users.delete('second@example.com')
  assert.equal(await users.findByEmail('second@example.com'), undefined)
})

test('banning ends the user\'s sessions and blocks sign-in; delete removes sessions and accounts', async () => {
  const app = await buildApp()
  const users = usersOf(app)
  await users.create({ email: 'root@example.com', password: PASSWORD })
  const user = await users.create({ email: 'user@example.com', password: PASSWORD })
  const first = await signIn(app, 'user@example.com')
  assert.equal(first.statusCode, 200, first.body)
  await signIn(app, 'user@example.com')
  const cookie = sessionCookie(first)
  assert.equal((await app.inject({ method: 'GET', url: '/api/auth/token', headers: { cookie } })).statusCode, 200)
  assert.equal(await count(app, 'auth_session', user.id), 2)

  assert.equal((await users.setBanned('user@example.com', true)).banned, true)
  assert.equal(await count(app, 'auth_session', user.id), 0)
  assert.equal((await app.inject({ method: 'GET', url: '/api/auth/token', headers: { cookie } })).statusCode, 401)
  const blocked = await signIn(app, 'user@example.com')
  assert.equal(blocked.statusCode, 403)
  assert.equal(blocked.headers['set-cookie'], undefined)
  assert.equal(await count(app, 'auth_session', user.id), 0)
  assert.equal((await users.list()).find((u) => u.email === 'user@example.com')!.banned, true)

  assert.equal((await users.setBanned('user@example.com', false)).banned, false)
  assert.equal((await signIn(app, 'user@example.com')).statusCode, 200)
  assert.equal(await count(app, 'auth_session', user.id), 1)
  assert.equal(await count(app, 'auth_account', user.id), 1)

  await users.delete('user@example.com')
  assert.equal(await users.findByEmail('user@example.com'), undefined)
  assert.equal(await count(app, 'auth_session', user.id), 0)
  assert.equal(await count(app, 'auth_account', user.id), 0)
  assert.equal((await signIn(app, 'user@example.com')).statusCode, 401)
  assert.deepEqual((await users.list()).map((u) => u.email), ['root@example.com'])
})

test('issueToken: 15 minutes by default, at most 24 hours, never for banned or unknown users', async () => {
  const app = await buildApp()
  const users = usersOf(app)
  const admin = await users.create({ email: 'root@example.com', password: PASSWORD })
  await users.create({ email: 'user@example.com', password: PASSWORD })

  const issued = await users.issueToken('root@example.com')
  assert.deepEqual(Object.keys(issued).sort(), ['expiresAt', 'token'])
  const claims = decodeJwt(issued.token)
  assert.equal(claims.exp! - claims.iat!, 900)
  assert.equal(claims.sub, admin.id)
  assert.equal(claims.role, 'admin')
  assert.equal(issued.expiresAt, new Date(claims.exp! * 1000).toISOString())
  assert.ok(Math.abs(claims.iat! - Date.now() / 1000) < 10)

  const day = await users.issueToken('ROOT@example.com', { ttlSeconds: 86400 })
  const dayClaims = decodeJwt(day.token)
  assert.equal(dayClaims.exp! - dayClaims.iat!, 86400)
  assert.equal(day.expiresAt, new Date(dayClaims.exp! * 1000).toISOString())

  const ok = await app.inject({ method: 'GET', url: '/api/meta', headers: { authorization: `Bearer ${day.token}` } })
  assert.notEqual(ok.statusCode, 401, ok.body)

  for (const ttlSeconds of [86401, 0, -5, 1.5, Number.NaN]) {
    await assert.rejects(users.issueToken('root@example.com', { ttlSeconds }), refused('invalid-ttl'), String(ttlSeconds))
  }
  await assert.rejects(users.issueToken('ghost@example.com'), refused('unknown-user'))
  await users.setBanned('user@example.com', true)
  await assert.rejects(users.issueToken('user@example.com'), refused('banned'))
  await users.setBanned('user@example.com', false)
  assert.equal(decodeJwt((await users.issueToken('user@example.com')).token).role, 'user')
})

test('migrate is safe to repeat', async () => {
  const app = await buildApp()
  const users = usersOf(app)
  await users.create({ email: 'root@example.com', password: PASSWORD })
  await users.migrate()
  await users.migrate()
  await Promise.all([users.migrate(), users.migrate()])
  assert.equal((await users.list()).length, 1)
  assert.equal((await signIn(app, 'root@example.com')).statusCode, 200)
})

test('with authSchema the auth tables live in that schema', async () => {
  const app = await buildApp({ authSchema: 'auth' })
  const users = usersOf(app)
  await users.migrate()
  await users.create({ email: 'root@example.com', password: PASSWORD })
  const tables = await runtimeOf(app).db.admin.query<{ table_schema: string, table_name: string }>(
    `SELECT table_schema, table_name FROM information_schema.tables WHERE table_name LIKE 'auth\\_%' ORDER BY table_name`)
  assert.deepEqual(tables.rows, [
    { table_schema: 'auth', table_name: 'auth_account' },
    { table_schema: 'auth', table_name: 'auth_invitation' },
    { table_schema: 'auth', table_name: 'auth_key' },
    { table_schema: 'auth', table_name: 'auth_member' },
    { table_schema: 'auth', table_name: 'auth_one_time_token' },
    { table_schema: 'auth', table_name: 'auth_organization' },
    { table_schema: 'auth', table_name: 'auth_rate_limit' },
    { table_schema: 'auth', table_name: 'auth_revocation' },
    { table_schema: 'auth', table_name: 'auth_session' },
    { table_schema: 'auth', table_name: 'auth_user' },
  ])
  const stored = await runtimeOf(app).db.admin.query('SELECT email, role FROM auth.auth_user')
  assert.deepEqual(stored.rows, [{ email: 'root@example.com', role: 'admin' }])
  const signedIn = await signIn(app, 'root@example.com')
  assert.equal(signedIn.statusCode, 200)
  assert.equal((await runtimeOf(app).db.admin.query('SELECT hits FROM auth.auth_rate_limit')).rows.length, 1)
  const token = await app.inject({ method: 'GET', url: '/api/auth/token', headers: { cookie: sessionCookie(signedIn) } })
  assert.equal(token.statusCode, 200)
  assert.equal(typeof json(token).token, 'string')
})
