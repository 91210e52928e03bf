// The routes better-auth 1.7's client calls beyond sign-in (docs/login.md, "Routes"): get-session,
// sign-out, sign-in's callbackURL, and the admin plugin's routes, with better-auth's shapes and
// codes.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import type { LightMyRequestResponse } from 'fastify'
import { buildApp, bearer, createUser, json, PASSWORD, usersOf } from '../helpers/app.js'
import { assertAuthProblem, assertAuthUser, assertInvalidRecord, assertProblem, AUTH_PROBLEM_KEYS, cookieOf, freshClient, ISO, login, sorted } from '../helpers/login.js'

const ORIGIN = 'http://localhost:5173'
const app = await buildApp({ roles: ['admin', 'user', 'editor'], defaultRole: 'user', revocationPollMs: 50 })
await createUser(app, 'admin@example.com')
const adminToken = await bearer(app, 'admin@example.com')
const adminId = (await usersOf(app).findByEmail('admin@example.com'))!.id

async function post (url: string, headers: Record<string, string>, payload: Record<string, unknown> = {}): Promise<LightMyRequestResponse> {
  return await app.inject({ method: 'POST', url, headers, payload })
}

async function getSession (cookie?: string): Promise<LightMyRequestResponse> {
  return await app.inject({ method: 'GET', url: '/api/auth/get-session', headers: cookie === undefined ? {} : { cookie } })
}

async function userId (email: string): Promise<string> {
  return (await usersOf(app).findByEmail(email))!.id
}

// --- get-session and sign-out --------------------------------------------------------------------

test('get-session: the session and user of a live cookie; null (200) without one', async () => {
  await createUser(app, 'session@example.com')
  const cookie = await cookieOf(app, 'session@example.com', { 'user-agent': 'test-agent/1.0' })
  const response = await getSession(cookie)
  assert.equal(response.statusCode, 200)
  assert.equal(response.headers['cache-control'], 'no-store')
  const body = json(response)
  assert.deepEqual(sorted(body), ['session', 'user'])
  assertAuthUser(body.user, { email: 'session@example.com', role: 'user' })
  // The session token stays in its HttpOnly cookie: the session shape has no `token`.
  assert.deepEqual(sorted(body.session), ['createdAt', 'expiresAt', 'id', 'ipAddress', 'updatedAt', 'userAgent', 'userId'])
  assert.equal(body.session.userId, body.user.id)
  assert.equal(body.session.userAgent, 'test-agent/1.0')
  assert.match(body.session.ipAddress, /^198\.51\./)
  for (const key of ['createdAt', 'expiresAt', 'updatedAt']) assert.match(body.session[key], ISO)
  assert.doesNotMatch(response.body, new RegExp(cookie.split('=')[1]!.split('.')[0]!))

  for (const none of [undefined, 'better-auth.session_token=made-up.signature', 'other=1']) {
    const anonymous = await getSession(none)
    assert.equal(anonymous.statusCode, 200)
    assert.equal(anonymous.body, 'null')
  }
})

test('sign-out deletes the session row, clears the cookie, and that cookie yields no token afterwards', async () => {
  await createUser(app, 'leaving@example.com')
  const cookie = await cookieOf(app, 'leaving@example.com')
  const other = await cookieOf(app, 'leaving@example.com')
  const sessions = async (): Promise<number> => Number((await usersOf(app).pool.query('SELECT count(*) FROM auth_session WHERE user_id = $1', [await userId('leaving@example.com')])).rows[0].count)
  assert.equal(await sessions(), 2)

  // A cookie POST needs its Origin, as every cookie-authenticated POST does.
  assertAuthProblem(await post('/api/auth/sign-out', { cookie }), 403, 'access-denied', 'MISSING_OR_NULL_ORIGIN')
  const out = await post('/api/auth/sign-out', { cookie, origin: ORIGIN })
  assert.equal(out.statusCode, 200, out.body)
  assert.deepEqual(json(out), { success: true })
  assert.match(String(out.headers['set-cookie']), /^better-auth\.session_token=; Max-Age=0; Path=\/; Expires=[^;]+; HttpOnly; SameSite=Lax$/)
  assert.equal(await sessions(), 1, 'only the signed-out session ended')

  assert.equal((await getSession(cookie)).body, 'null')
  assertAuthProblem(await app.inject({ method: 'GET', url: '/api/auth/token', headers: { cookie } }), 401, 'unauthenticated', 'UNAUTHORIZED')
  assert.equal((await app.inject({ method: 'GET', url: '/api/auth/token', headers: { cookie: other } })).statusCode, 200)

  // Signing out again, or without a session, is still a success.
  assert.deepEqual(json(await post('/api/auth/sign-out', { cookie, origin: ORIGIN })), { success: true })
  assert.deepEqual(json(await post('/api/auth/sign-out', {})), { success: true })
  // And with no body at all, as `curl -X POST` sends it.
  const bare = await app.inject({ method: 'POST', url: '/api/auth/sign-out', headers: { cookie: other, origin: ORIGIN } })
  assert.equal(bare.statusCode, 200, bare.body)
})

// --- callbackURL -----------------------------------------------------------------------------------

test('sign-in with callbackURL: redirect true and the URL (and Location) toward a path here or a trusted origin', async () => {
  for (const callbackURL of ['/dashboard?tab=1#top', `${ORIGIN}/app`, `${ORIGIN}`]) {
    const withCallback = await app.inject({ method: 'POST', url: '/api/auth/sign-in/email', headers: freshClient(), payload: { email: 'admin@example.com', password: PASSWORD, callbackURL } })
    assert.equal(withCallback.statusCode, 200, withCallback.body)
    const body = json(withCallback)
    assert.equal(body.redirect, true)
    assert.equal(body.url, callbackURL)
    assert.equal(body.token, null)
    assert.equal(withCallback.headers.location, callbackURL)
  }
  const plain = json(await login(app, 'admin@example.com'))
  assert.equal(plain.redirect, false)
  assert.equal(plain.url, null)
})

test('callbackURL toward any other place is 403 INVALID_CALLBACK_URL, and no session starts (no open redirect)', async () => {
  const refused = [
    'https://evil.example.com/',
    '//evil.example.com/path',
    '/\\evil.example.com',
    '/%2F%2Fevil.example.com',
    'javascript:alert(1)',
    'http://localhost:5174/',
    'https://abc.trycloudflare.com/',
    '/next\nLocation: https://evil.example.com',
  ]
  for (const callbackURL of refused) {
    const response = await app.inject({ method: 'POST', url: '/api/auth/sign-in/email', headers: freshClient(), payload: { email: 'admin@example.com', password: PASSWORD, callbackURL } })
    assertAuthProblem(response, 403, 'access-denied', 'INVALID_CALLBACK_URL')
    assert.equal(response.headers['set-cookie'], undefined, callbackURL)
    assert.equal(response.headers.location, undefined, callbackURL)
  }
})

test('a trusted origin from the config is a place callbackURL may lead', async () => {
  const other = await buildApp({ trustedOrigins: ['https://app.example.com'] })
  await createUser(other, 'admin@example.com')
  const response = await other.inject({ method: 'POST', url: '/api/auth/sign-in/email', headers: freshClient(), payload: { email: 'admin@example.com', password: PASSWORD, callbackURL: 'https://app.example.com/home' } })
  assert.equal(json(response).url, 'https://app.example.com/home')
})

// --- admin routes: who may call them --------------------------------------------------------------

const ADMIN_ROUTES: Array<['GET' | 'POST', string, string]> = [
  ['GET', '/api/auth/admin/list-users', 'YOU_ARE_NOT_ALLOWED_TO_LIST_USERS'],
  ['POST', '/api/auth/admin/set-role', 'YOU_ARE_NOT_ALLOWED_TO_CHANGE_USERS_ROLE'],
  ['POST', '/api/auth/admin/ban-user', 'YOU_ARE_NOT_ALLOWED_TO_BAN_USERS'],
  ['POST', '/api/auth/admin/unban-user', 'YOU_ARE_NOT_ALLOWED_TO_BAN_USERS'],
  ['POST', '/api/auth/admin/remove-user', 'YOU_ARE_NOT_ALLOWED_TO_DELETE_USERS'],
  ['POST', '/api/auth/admin/revoke-user-sessions', 'YOU_ARE_NOT_ALLOWED_TO_REVOKE_USERS_SESSIONS'],
  ['POST', '/api/auth/admin/create-user', 'YOU_ARE_NOT_ALLOWED_TO_CREATE_USERS'],
]

test('admin routes: 401 UNAUTHORIZED without a credential, 403 with better-auth\'s code for a non-admin; nothing changes', async () => {
  await createUser(app, 'editor@example.com', 'editor,user')
  const target = await userId('editor@example.com')
  const payload = { userId: target, role: 'admin', email: 'new@example.com', password: PASSWORD }
  const editorCookie = await cookieOf(app, 'editor@example.com')
  for (const [method, url, code] of ADMIN_ROUTES) {
    const send = async (headers: Record<string, string>): Promise<LightMyRequestResponse> =>
      await app.inject({ method, url, headers, ...(method === 'POST' ? { payload } : {}) })
    assertAuthProblem(await send({}), 401, 'unauthenticated', 'UNAUTHORIZED')
    assertProblem(await send({ authorization: 'Bearer not-a-token' }), 401, 'unauthenticated')
    assertAuthProblem(await send(await bearer(app, 'editor@example.com')), 403, 'access-denied', code)
    assertAuthProblem(await send({ cookie: editorCookie, origin: ORIGIN }), 403, 'access-denied', code)
    if (method === 'POST') {
      // The caller is judged before the body: its rules (fields, limits) are for admins to learn.
      const emptyBody = async (headers: Record<string, string>): Promise<LightMyRequestResponse> => await app.inject({ method, url, headers, payload: {} })
      assertAuthProblem(await emptyBody({}), 401, 'unauthenticated', 'UNAUTHORIZED')
      assertAuthProblem(await emptyBody(await bearer(app, 'editor@example.com')), 403, 'access-denied', code)
    }
  }
  const editor = (await usersOf(app).findByEmail('editor@example.com'))!
  assert.equal(editor.role, 'editor,user')
  assert.equal(editor.banned, false)
  assert.equal(await usersOf(app).findByEmail('new@example.com'), undefined)
})

test('admin routes accept an admin\'s session cookie from a trusted origin as well as a bearer token', async () => {
  await createUser(app, 'cookie-target@example.com')
  const cookie = await cookieOf(app, 'admin@example.com')
  const response = await post('/api/auth/admin/set-role', { cookie, origin: ORIGIN }, { userId: await userId('cookie-target@example.com'), role: 'editor' })
  assert.equal(response.statusCode, 200, response.body)
  assertAuthUser(json(response).user, { email: 'cookie-target@example.com', role: 'editor' })
  assertAuthProblem(await post('/api/auth/admin/set-role', { cookie }, { userId: await userId('cookie-target@example.com'), role: 'user' }), 403, 'access-denied', 'MISSING_OR_NULL_ORIGIN')
})

// --- admin routes: what they do -------------------------------------------------------------------

test('set-role: one role, several (string or array); outside the list 400; unknown user 404; bad body 400', async () => {
  await createUser(app, 'roles@example.com')
  const id = await userId('roles@example.com')
  const set = async (role: unknown, user = id): Promise<LightMyRequestResponse> => await post('/api/auth/admin/set-role', adminToken, { userId: user, role })
  assert.deepEqual(sorted(json(await set('editor'))), ['user'])
  assert.equal(json(await set('editor, user')).user.role, 'editor,user')
  assert.equal(json(await set(['user', 'editor'])).user.role, 'user,editor')
  const outside = assertInvalidRecord(await set('superuser'), 'role', 'invalid-role')
  assert.equal(outside.code, 'YOU_ARE_NOT_ALLOWED_TO_SET_NON_EXISTENT_VALUE')
  assert.equal(assertInvalidRecord(await set(''), 'role', 'role-required').code, 'ROLE_REQUIRED')
  assertAuthProblem(await set('user', 'no-such-id'), 404, 'not-found', 'USER_NOT_FOUND')
  assertProblem(await post('/api/auth/admin/set-role', adminToken, { role: 'user' }), 400, 'invalid-record')
  assertProblem(await post('/api/auth/admin/set-role', adminToken, { userId: id, role: 42 }), 400, 'invalid-record')
  assert.equal((await usersOf(app).findByEmail('roles@example.com'))!.role, 'user,editor')
})

test('ban-user ends the user\'s sessions and tokens, keeps the reason; unban-user lifts it; self and timed bans are refused', async () => {
  await createUser(app, 'banned@example.com')
  const id = await userId('banned@example.com')
  const cookie = await cookieOf(app, 'banned@example.com')
  const token = await bearer(app, 'banned@example.com')
  const banned = await post('/api/auth/admin/ban-user', adminToken, { userId: id, banReason: 'spam' })
  assert.equal(banned.statusCode, 200, banned.body)
  assert.equal(json(banned).user.banned, true)
  assert.equal(json(banned).user.banReason, 'spam')
  assert.equal((await getSession(cookie)).body, 'null')
  assert.equal(Number((await usersOf(app).pool.query('SELECT count(*) FROM auth_session WHERE user_id = $1', [id])).rows[0].count), 0)
  await new Promise((resolve) => setTimeout(resolve, 200))
  assertProblem(await app.inject({ method: 'GET', url: '/api/v1/anything', headers: token }), 401, 'unauthenticated')
  assertAuthProblem(await login(app, 'banned@example.com'), 403, 'access-denied', 'BANNED_USER')

  const unbanned = await post('/api/auth/admin/unban-user', adminToken, { userId: id })
  assert.equal(json(unbanned).user.banned, false)
  assert.equal(json(unbanned).user.banReason, null)
  assert.equal((await login(app, 'banned@example.com')).statusCode, 200)

  const noReason = await post('/api/auth/admin/ban-user', adminToken, { userId: id })
  assert.equal(json(noReason).user.banReason, 'No reason')
  assertAuthProblem(await post('/api/auth/admin/ban-user', adminToken, { userId: adminId }), 400, 'invalid-record', 'YOU_CANNOT_BAN_YOURSELF')
  const timed = await post('/api/auth/admin/ban-user', adminToken, { userId: id, banExpiresIn: 3600 })
  assert.equal(assertProblem(timed, 400, 'invalid-record').errors[0].field, 'banExpiresIn')
  assertAuthProblem(await post('/api/auth/admin/unban-user', adminToken, { userId: 'no-such-id' }), 404, 'not-found', 'USER_NOT_FOUND')
})

test('revoke-user-sessions ends every session of the user and the tokens issued from them', async () => {
  await createUser(app, 'revoked@example.com')
  const first = await cookieOf(app, 'revoked@example.com')
  const second = await cookieOf(app, 'revoked@example.com')
  const revoked = await post('/api/auth/admin/revoke-user-sessions', adminToken, { userId: await userId('revoked@example.com') })
  assert.equal(revoked.statusCode, 200)
  assert.deepEqual(json(revoked), { success: true })
  for (const cookie of [first, second]) assert.equal((await getSession(cookie)).body, 'null')
  assert.equal((await login(app, 'revoked@example.com')).statusCode, 200, 'the user may sign in again')
  assertAuthProblem(await post('/api/auth/admin/revoke-user-sessions', adminToken, { userId: 'no-such-id' }), 404, 'not-found', 'USER_NOT_FOUND')
})

test('remove-user removes the user with sessions and accounts; self 400, unknown 404', async () => {
  await createUser(app, 'removed@example.com')
  const id = await userId('removed@example.com')
  const cookie = await cookieOf(app, 'removed@example.com')
  const removed = await post('/api/auth/admin/remove-user', adminToken, { userId: id })
  assert.deepEqual(json(removed), { success: true })
  assert.equal(await usersOf(app).findByEmail('removed@example.com'), undefined)
  assert.equal((await getSession(cookie)).body, 'null')
  assert.equal((await usersOf(app).pool.query('SELECT count(*)::int AS n FROM auth_account WHERE user_id = $1', [id])).rows[0].n, 0)
  assertAuthProblem(await post('/api/auth/admin/remove-user', adminToken, { userId: id }), 404, 'not-found', 'USER_NOT_FOUND')
  assertAuthProblem(await post('/api/auth/admin/remove-user', adminToken, { userId: adminId }), 400, 'invalid-record', 'YOU_CANNOT_REMOVE_YOURSELF')
})

test('the last active admin rule holds over HTTP: demoting the only active admin is 409 LAST_ADMIN', async () => {
  const solo = await buildApp()
  await createUser(solo, 'solo@example.com')
  const soloId = (await usersOf(solo).findByEmail('solo@example.com'))!.id
  const auth = await bearer(solo, 'solo@example.com')
  const demote = await solo.inject({ method: 'POST', url: '/api/auth/admin/set-role', headers: auth, payload: { userId: soloId, role: 'user' } })
  const body = assertAuthProblem(demote, 409, 'conflict', 'LAST_ADMIN')
  assert.match(body.message, /last active admin/)
  // A second admin, then banned: still no other active admin.
  await usersOf(solo).create({ email: 'second@example.com', password: PASSWORD, role: 'admin' })
  await usersOf(solo).setBanned('second@example.com', true)
  assertAuthProblem(await solo.inject({ method: 'POST', url: '/api/auth/admin/set-role', headers: auth, payload: { userId: soloId, role: 'user' } }), 409, 'conflict', 'LAST_ADMIN')
  await usersOf(solo).setBanned('second@example.com', false)
  const allowed = await solo.inject({ method: 'POST', url: '/api/auth/admin/set-role', headers: auth, payload: { userId: soloId, role: 'admin,user' } })
  assert.equal(json(allowed).user.role, 'admin,user')
})

// --- list-users ------------------------------------------------------------------------------------

test('list-users: { users, total, limit, offset } with paging, search, filter and sort', async () => {
  const listApp = await buildApp()
  await createUser(listApp, 'admin@example.com')
  const people: Array<[string, string]> = [['ann@example.com', 'Ann Lee'], ['bob@example.org', 'Bob'], ['cy_x@example.com', 'Cy']]
  for (const [email, name] of people) {
    await usersOf(listApp).create({ email, password: PASSWORD, name })
  }
  await usersOf(listApp).setBanned('bob@example.org', true)
  const auth = await bearer(listApp, 'admin@example.com')
  const list = async (query: string): Promise<LightMyRequestResponse> => await listApp.inject({ method: 'GET', url: `/api/auth/admin/list-users${query}`, headers: auth })
  const emails = async (query: string): Promise<string[]> => json(await list(query)).users.map((u: { email: string }) => u.email)

  const all = await list('')
  assert.equal(all.statusCode, 200)
  const body = json(all)
  assert.deepEqual(sorted(body), ['limit', 'offset', 'total', 'users'])
  assert.deepEqual([body.total, body.limit, body.offset], [4, 100, 0])
  assert.deepEqual(body.users.map((u: { email: string }) => u.email), ['admin@example.com', 'ann@example.com', 'bob@example.org', 'cy_x@example.com'])
  assertAuthUser(body.users[1], { email: 'ann@example.com', name: 'Ann Lee', role: 'user' })
  assert.doesNotMatch(all.body, /argon2|password/i)

  assert.deepEqual(await emails('?sortBy=email&sortDirection=desc&limit=2&offset=1'), ['bob@example.org', 'ann@example.com'])
  const paged = json(await list('?limit=2&offset=1'))
  assert.deepEqual([paged.total, paged.limit, paged.offset], [4, 2, 1])
  assert.equal(json(await list('?limit=100000')).limit, 500)
  assert.deepEqual(await emails('?searchValue=ANN'), ['ann@example.com'])
  assert.deepEqual(await emails('?searchValue=b&searchField=name&searchOperator=starts_with'), ['bob@example.org'])
  assert.deepEqual(await emails('?searchValue=.org&searchOperator=ends_with'), ['bob@example.org'])
  // `_` and `%` are letters here, not wildcards.
  assert.deepEqual(await emails('?searchValue=y_x'), ['cy_x@example.com'])
  assert.deepEqual(await emails('?searchValue=%25'), [])
  assert.deepEqual(await emails('?filterField=banned&filterValue=true'), ['bob@example.org'])
  assert.deepEqual(await emails('?filterField=role&filterValue=admin&filterOperator=ne'), ['ann@example.com', 'bob@example.org', 'cy_x@example.com'])
  assert.deepEqual(await emails('?filterField=name&filterValue=Ann%20Lee,Cy&filterOperator=in'), ['ann@example.com', 'cy_x@example.com'])
  assert.deepEqual(await emails('?filterField=name&filterValue=Cy&filterValue=Bob&filterOperator=not_in'), ['admin@example.com', 'ann@example.com'])
  assert.deepEqual(await emails('?filterField=email&filterValue=example.com&filterOperator=contains&searchValue=n'), ['admin@example.com', 'ann@example.com'])
  assert.deepEqual(await emails('?filterField=createdAt&filterValue=2000-01-01T00:00:00Z&filterOperator=lt'), [])
  const filtered = json(await list('?filterField=banned&filterValue=false&limit=1'))
  assert.deepEqual([filtered.total, filtered.users.length], [3, 1])
})

test('list-users: a bad option is 400 invalid-parameter naming it (VALIDATION_ERROR), never a 500', async () => {
  const cases: Array<[string, string]> = [
    ['?sortBy=password', 'sortBy'],
    ['?sortDirection=up', 'sortDirection'],
    ['?limit=abc', 'limit'],
    ['?limit=0', 'limit'],
    ['?offset=-1', 'offset'],
    ['?searchValue=a&searchField=role', 'searchField'],
    ['?searchValue=a&searchOperator=eq', 'searchOperator'],
    ['?filterField=password&filterValue=x', 'filterField'],
    ['?filterField=email&filterValue=x&filterOperator=like', 'filterOperator'],
    ['?filterField=banned&filterValue=maybe', 'filterValue'],
    ['?filterField=banned&filterValue=true&filterOperator=contains', 'filterOperator'],
    ['?filterField=createdAt&filterValue=yesterday&filterOperator=gt', 'filterValue'],
    ['?limit=1&limit=2', 'limit'],
    ['?searchValue=%00', 'searchValue'],
    ['?filterField=email&filterValue=a%00b', 'filterValue'],
    ['?filterField=email&filterValue=a,b%00&filterOperator=in', 'filterValue'],
  ]
  for (const [query, parameter] of cases) {
    const response = await app.inject({ method: 'GET', url: `/api/auth/admin/list-users${query}`, headers: adminToken })
    const body = assertProblem(response, 400, 'invalid-parameter', [...AUTH_PROBLEM_KEYS, 'errors'])
    assert.equal(body.code, 'VALIDATION_ERROR', query)
    assert.deepEqual(body.errors.map((e: { parameter: string }) => e.parameter), [parameter], query)
  }
})
