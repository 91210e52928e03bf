// User-store changes are write events (docs/login.md, "User changes are write events"): every
// change, from the library or the admin routes (the CLI: cli.test.ts), runs the write hooks in the
// store's transaction as resource `auth.users`, without password data; the audit log records who
// changed whom; a hook that throws rolls the change back.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { buildApp, bearer, createUser, json, PASSWORD, usersOf } from '../helpers/app.js'
import { cookieOf, USER_KEYS, sorted } from '../helpers/login.js'
import auditLog from '../../plugins/audit-log/index.js'
import { WriteHookError } from '../../hooks/registry.js'
import type { WriteEvent } from '../../hooks/types.js'

const events: WriteEvent[] = []
const recorder = fp(async (app: FastifyInstance) => {
  app.tablegate.addWriteHook((event) => { events.push(event) }, { resources: ['auth.users'] })
}, { name: 'recorder', dependencies: ['tablegate'] })

const app = await buildApp({ plugins: [auditLog, recorder] })

interface AuditRow { resource: string, operation: string, record_key: string, user_id: string, before: any, after: any }

async function auditRows (): Promise<AuditRow[]> {
  return (await usersOf(app).pool.query("SELECT resource, operation, record_key, user_id, before, after FROM tablegate_audit_log WHERE resource = 'auth.users' ORDER BY id")).rows
}

test('every user-store change leaves an audit row naming who changed whom: the caller, or host', async () => {
  await createUser(app, 'admin@example.com')
  const admin = (await usersOf(app).findByEmail('admin@example.com'))!
  const auth = await bearer(app, 'admin@example.com')
  const post = async (url: string, payload: Record<string, unknown>): Promise<any> => {
    const response = await app.inject({ method: 'POST', url: `/api/auth/admin/${url}`, headers: auth, payload })
    assert.equal(response.statusCode, 200, response.body)
    return json(response)
  }
  const created = (await post('create-user', { email: 'worker@example.com', password: PASSWORD, name: 'Worker' })).user
  await post('set-role', { userId: created.id, role: 'admin,user' })
  await post('ban-user', { userId: created.id, banReason: 'holiday' })
  await post('unban-user', { userId: created.id })
  await post('revoke-user-sessions', { userId: created.id })
  await post('remove-user', { userId: created.id })
  await usersOf(app).create({ email: 'host-made@example.com', password: PASSWORD })
  await usersOf(app).setRole('host-made@example.com', 'admin', { by: { user: { id: admin.id, roles: ['admin'] }, tenant: undefined, access: () => { throw new Error('unused') } } })

  const rows = await auditRows()
  assert.deepEqual(rows.map((r) => [r.operation, r.user_id, r.record_key === created.id]), [
    ['create', 'host', false],
    ['create', admin.id, true],
    ['update', admin.id, true],
    ['update', admin.id, true],
    ['update', admin.id, true],
    ['revoke-sessions', admin.id, true],
    ['delete', admin.id, true],
    ['create', 'host', false],
    ['update', admin.id, false],
  ])
  assert.ok(rows.every((r) => r.resource === 'auth.users'))
  const [, create, setRole, ban, unban, revoke, remove] = rows
  assert.equal(create!.before, null)
  assert.equal(create!.after.email, 'worker@example.com')
  assert.deepEqual([setRole!.before.role, setRole!.after.role], ['user', 'admin,user'])
  assert.deepEqual([ban!.before.banned, ban!.after.banned, ban!.after.banReason], [false, true, 'holiday'])
  assert.deepEqual([unban!.before.banned, unban!.after.banned], [true, false])
  assert.deepEqual(revoke!.before, revoke!.after)
  assert.equal(remove!.after, null)
  assert.equal(remove!.before.email, 'worker@example.com')
})

test('hooks get the user as clients see it: never a password hash or a session token', async () => {
  await createUser(app, 'secretive@example.com')
  const cookie = await cookieOf(app, 'secretive@example.com')
  const token = cookie.split('=')[1]!.split('.')[0]!
  await usersOf(app).revokeSessions('secretive@example.com')
  await usersOf(app).delete('secretive@example.com')
  const mine = events.filter((e) => (e.before ?? e.after)!.email === 'secretive@example.com')
  assert.deepEqual(mine.map((e) => e.operation), ['create', 'revoke-sessions', 'delete'])
  for (const event of mine) {
    for (const record of [event.before, event.after]) if (record !== undefined) assert.deepEqual(sorted(record), USER_KEYS)
    const text = JSON.stringify({ ...event, ctx: undefined })
    assert.doesNotMatch(text, /argon2|password/i)
    assert.ok(!text.includes(token))
  }
  const audit = JSON.stringify(await auditRows())
  assert.doesNotMatch(audit, /argon2|password/i)
  assert.ok(!audit.includes(token))
})

test('a hook that throws rolls the user-store change back, over HTTP and in the library alike', async () => {
  let refuse = false
  const guard = fp(async (instance: FastifyInstance) => {
    instance.tablegate.addWriteHook(function refuseUserChanges () { if (refuse) throw new Error('not today') }, { resources: ['auth.users'] })
  }, { name: 'guard', dependencies: ['tablegate'] })
  const guarded = await buildApp({ plugins: [auditLog, guard] })
  await createUser(guarded, 'admin@example.com')
  await createUser(guarded, 'kept@example.com')
  const kept = (await usersOf(guarded).findByEmail('kept@example.com'))!
  const cookie = await cookieOf(guarded, 'kept@example.com')
  refuse = true

  const auth = await bearer(guarded, 'admin@example.com')
  for (const [url, payload] of [
    ['set-role', { userId: kept.id, role: 'admin' }],
    ['ban-user', { userId: kept.id }],
    ['revoke-user-sessions', { userId: kept.id }],
    ['remove-user', { userId: kept.id }],
    ['create-user', { email: 'refused@example.com', password: PASSWORD }],
  ] as const) {
    const response = await guarded.inject({ method: 'POST', url: `/api/auth/admin/${url}`, headers: auth, payload })
    assert.equal(response.statusCode, 500, `${url}: ${response.body}`)
    assert.equal(json(response).type, 'urn:service:problem:internal-error')
  }
  await assert.rejects(usersOf(guarded).create({ email: 'refused@example.com', password: PASSWORD }), WriteHookError)
  await assert.rejects(usersOf(guarded).setBanned('kept@example.com', true), WriteHookError)

  const after = (await usersOf(guarded).findByEmail('kept@example.com'))!
  assert.deepEqual([after.role, after.banned], ['user', false])
  assert.equal(await usersOf(guarded).findByEmail('refused@example.com'), undefined)
  assert.equal((await guarded.inject({ method: 'GET', url: '/api/auth/token', headers: { cookie } })).statusCode, 200, 'the session lives on')
  const { rows } = await usersOf(guarded).pool.query("SELECT operation FROM tablegate_audit_log WHERE resource = 'auth.users'")
  assert.deepEqual(rows.map((r) => r.operation), ['create', 'create'], 'only the changes made before the hook refused')
})
