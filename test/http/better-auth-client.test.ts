// better-auth 1.7's own client (createAuthClient with jwtClient and adminClient), in Node, against
// a listening tablegate: every call asserts the client's own `data` / `error`, as an app using it
// would read them. Each "browser" keeps its cookies, sends the Origin a page on the public URL
// sends, and reaches the server through a proxy on loopback that names it in x-forwarded-for.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createAuthClient } from 'better-auth/client'
import { adminClient, jwtClient } from 'better-auth/client/plugins'
import { createRemoteJWKSet, jwtVerify } from 'jose'
import { buildApp, createUser, PASSWORD } from '../helpers/app.js'
import { freshDatabase, runSql } from '../helpers/db.js'
import { browserFetch } from '../helpers/browser-fetch.js'

const PUBLIC_URL = 'http://localhost:5173'

const databaseUrl = await freshDatabase()
await runSql(databaseUrl, 'CREATE TABLE notes (id bigserial PRIMARY KEY, title text NOT NULL)')
const app = await buildApp({
  databaseUrl,
  resources: { notes: { fields: { id: { type: 'bigint', readOnly: true, dbDefault: true }, title: { type: 'string', required: true } } } },
})
await createUser(app, 'admin@example.com')
const base = await app.listen({ port: 0, host: '127.0.0.1' })

function browser (address: string) {
  const { fetch: cookieFetch, jar } = browserFetch(PUBLIC_URL, address)
  const client = createAuthClient({
    baseURL: `${base}/api/auth`,
    plugins: [jwtClient(), adminClient()],
    fetchOptions: { customFetchImpl: cookieFetch },
  })
  return { client, jar }
}

type Browser = ReturnType<typeof browser>

// Every browser comes from its own address, so only the limit test meets the limit.
let addresses = 0
function nextAddress (): string {
  addresses += 1
  return `203.0.113.${addresses}`
}

async function signedIn (email: string): Promise<Browser & { id: string }> {
  const b = browser(nextAddress())
  const { data, error } = await b.client.signIn.email({ email, password: PASSWORD })
  assert.equal(error, null, JSON.stringify(error))
  return { ...b, id: data!.user.id }
}

function assertError (error: { status: number, code?: string | undefined, message?: string | undefined } | null, status: number, code: string): void {
  assert.ok(error !== null, `expected ${code}`)
  assert.equal(error.status, status, JSON.stringify(error))
  assert.equal(error.code, code)
  assert.equal(typeof error.message, 'string')
}

let admin: Browser & { id: string }
let plainId: string

test('sign-in, getSession, token() verified against jwks(), and a protected API call', async () => {
  const b = browser(nextAddress())
  const signIn = await b.client.signIn.email({ email: 'admin@example.com', password: PASSWORD })
  assert.equal(signIn.error, null)
  assert.equal(signIn.data!.redirect, false)
  assert.equal(signIn.data!.user.email, 'admin@example.com')
  assert.equal(signIn.data!.user.role, 'admin')
  assert.ok(b.jar.has('better-auth.session_token'))

  const session = await b.client.getSession()
  assert.equal(session.error, null)
  assert.equal(session.data!.user.id, signIn.data!.user.id)
  assert.equal(session.data!.session.userId, signIn.data!.user.id)
  const lasts = Date.parse(String(session.data!.session.expiresAt)) - Date.now()
  assert.ok(lasts > 6.9 * 24 * 3600_000 && lasts <= 7 * 24 * 3600_000, String(lasts))

  const token = await b.client.token()
  assert.equal(token.error, null)
  const jwks = await b.client.jwks()
  assert.equal(jwks.error, null)
  assert.equal(jwks.data!.keys[0]!.alg, 'EdDSA')
  const { payload, protectedHeader } = await jwtVerify(token.data!.token, createRemoteJWKSet(new URL(`${base}/api/auth/jwks`)), { issuer: PUBLIC_URL, audience: PUBLIC_URL })
  assert.equal(protectedHeader.alg, 'EdDSA')
  assert.equal(payload.sub, signIn.data!.user.id)
  assert.equal(payload.role, 'admin')

  const authorization = `Bearer ${token.data!.token}`
  const created = await fetch(`${base}/api/v1/notes`, { method: 'POST', headers: { authorization, 'content-type': 'application/json' }, body: JSON.stringify({ title: 'first' }) })
  assert.equal(created.status, 201)
  const listed = await fetch(`${base}/api/v1/notes`, { headers: { authorization } })
  assert.equal(listed.status, 200)
  assert.deepEqual((await listed.json() as { items: Array<{ title: string }> }).items.map((n) => n.title), ['first'])
  assert.equal((await fetch(`${base}/api/v1/notes`)).status, 401)
  admin = { ...b, id: signIn.data!.user.id }
})

test('a sign-in with callbackURL answers redirect: true toward a trusted place, and refuses others', async () => {
  const b = browser(nextAddress())
  const here = await b.client.signIn.email({ email: 'admin@example.com', password: PASSWORD, callbackURL: '/dashboard' })
  assert.equal(here.error, null)
  assert.equal(here.data!.redirect, true)
  assert.equal(here.data!.url, '/dashboard')
  const elsewhere = await b.client.signIn.email({ email: 'admin@example.com', password: PASSWORD, callbackURL: 'https://evil.example.com/' })
  assertError(elsewhere.error, 403, 'INVALID_CALLBACK_URL')
})

test('admin.createUser: an admin creates users; a taken email and a non-admin are refused with better-auth\'s codes', async () => {
  const created = await admin.client.admin.createUser({ email: 'plain@example.com', password: PASSWORD, name: 'Plain', role: 'user' })
  assert.equal(created.error, null)
  assert.equal(created.data!.user.email, 'plain@example.com')
  assert.equal(created.data!.user.role, 'user')
  plainId = created.data!.user.id

  const taken = await admin.client.admin.createUser({ email: 'PLAIN@example.com', password: PASSWORD, name: 'Again' })
  assertError(taken.error, 400, 'USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL')
  const ghost = await admin.client.admin.createUser({ email: 'ghost@example.com', password: PASSWORD, name: 'Ghost', role: 'ghost' as 'user' })
  assertError(ghost.error, 400, 'YOU_ARE_NOT_ALLOWED_TO_SET_NON_EXISTENT_VALUE')

  const plain = await signedIn('plain@example.com')
  const refused = await plain.client.admin.createUser({ email: 'other@example.com', password: PASSWORD, name: 'Other' })
  assertError(refused.error, 403, 'YOU_ARE_NOT_ALLOWED_TO_CREATE_USERS')
})

test('admin.listUsers pages, searches, filters and sorts; a non-admin is refused', async () => {
  await admin.client.admin.createUser({ email: 'zed@example.com', password: PASSWORD, name: 'Zed' })
  const all = await admin.client.admin.listUsers({ query: { sortBy: 'email', sortDirection: 'desc' } })
  assert.equal(all.error, null)
  assert.deepEqual(all.data!.users.map((u) => u.email), ['zed@example.com', 'plain@example.com', 'admin@example.com'])
  assert.equal(all.data!.total, 3)

  const page = await admin.client.admin.listUsers({ query: { limit: 1, offset: 1, sortBy: 'email' } })
  assert.deepEqual(page.data!.users.map((u) => u.email), ['plain@example.com'])
  assert.equal(page.data!.total, 3)
  const searched = await admin.client.admin.listUsers({ query: { searchValue: 'ze', searchField: 'name', searchOperator: 'starts_with' } })
  assert.deepEqual(searched.data!.users.map((u) => u.email), ['zed@example.com'])
  const filtered = await admin.client.admin.listUsers({ query: { filterField: 'role', filterValue: 'admin', filterOperator: 'eq' } })
  assert.deepEqual(filtered.data!.users.map((u) => u.email), ['admin@example.com'])
  assert.equal(filtered.data!.total, 1)

  const plain = await signedIn('plain@example.com')
  assertError((await plain.client.admin.listUsers({ query: {} })).error, 403, 'YOU_ARE_NOT_ALLOWED_TO_LIST_USERS')
})

test('admin.setRole, banUser (ends the sessions), unbanUser; non-admins are refused', async () => {
  const plain = await signedIn('plain@example.com')
  assertError((await plain.client.admin.setRole({ userId: plain.id, role: 'admin' })).error, 403, 'YOU_ARE_NOT_ALLOWED_TO_CHANGE_USERS_ROLE')
  assertError((await plain.client.admin.banUser({ userId: admin.id })).error, 403, 'YOU_ARE_NOT_ALLOWED_TO_BAN_USERS')

  const role = await admin.client.admin.setRole({ userId: plainId, role: ['user', 'admin'] })
  assert.equal(role.error, null)
  assert.equal(role.data!.user.role, 'user,admin')
  assert.equal((await admin.client.admin.setRole({ userId: plainId, role: 'user' })).data!.user.role, 'user')
  assertError((await admin.client.admin.setRole({ userId: 'no-such-id', role: 'user' })).error, 404, 'USER_NOT_FOUND')

  const banned = await admin.client.admin.banUser({ userId: plainId, banReason: 'spam' })
  assert.equal(banned.error, null)
  assert.equal(banned.data!.user.banned, true)
  assert.equal(banned.data!.user.banReason, 'spam')
  assert.equal((await plain.client.getSession()).data, null)
  assertError((await plain.client.token()).error, 401, 'UNAUTHORIZED')
  assertError((await plain.client.signIn.email({ email: 'plain@example.com', password: PASSWORD })).error, 403, 'BANNED_USER')

  const unbanned = await admin.client.admin.unbanUser({ userId: plainId })
  assert.equal(unbanned.error, null)
  assert.equal(unbanned.data!.user.banned, false)
  assert.equal(unbanned.data!.user.banReason, null)
  const back = await signedIn('plain@example.com')
  assert.equal((await back.client.getSession()).data!.user.email, 'plain@example.com')

  const revoked = await admin.client.admin.revokeUserSessions({ userId: plainId })
  assert.equal(revoked.error, null)
  assert.equal(revoked.data!.success, true)
  assert.equal((await back.client.getSession()).data, null)
})

test('the last active admin cannot be demoted, banned or removed', async () => {
  assertError((await admin.client.admin.setRole({ userId: admin.id, role: 'user' })).error, 409, 'LAST_ADMIN')
  assertError((await admin.client.admin.banUser({ userId: admin.id })).error, 400, 'YOU_CANNOT_BAN_YOURSELF')
  assertError((await admin.client.admin.removeUser({ userId: admin.id })).error, 400, 'YOU_CANNOT_REMOVE_YOURSELF')
  // A banned admin is no active admin: with the only other admin banned, demotion is still refused.
  await admin.client.admin.setRole({ userId: plainId, role: 'admin' })
  assert.equal((await admin.client.admin.banUser({ userId: plainId })).error, null)
  assertError((await admin.client.admin.setRole({ userId: admin.id, role: 'user' })).error, 409, 'LAST_ADMIN')
  const session = await admin.client.getSession()
  assert.equal(session.data!.user.role, 'admin')
})

test('admin.removeUser removes a user; a non-admin is refused', async () => {
  const zed = await signedIn('zed@example.com')
  assertError((await zed.client.admin.removeUser({ userId: plainId })).error, 403, 'YOU_ARE_NOT_ALLOWED_TO_DELETE_USERS')
  const removed = await admin.client.admin.removeUser({ userId: plainId })
  assert.equal(removed.error, null)
  assert.equal(removed.data!.success, true)
  assertError((await admin.client.admin.removeUser({ userId: plainId })).error, 404, 'USER_NOT_FOUND')
  const left = await admin.client.admin.listUsers({ query: {} })
  assert.deepEqual(left.data!.users.map((u) => u.email).sort(), ['admin@example.com', 'zed@example.com'])
})

test('signOut ends the session: getSession is null and token() fails afterwards', async () => {
  const b = await signedIn('zed@example.com')
  assert.equal((await b.client.token()).error, null)
  const out = await b.client.signOut()
  assert.equal(out.error, null)
  assert.equal(out.data!.success, true)
  assert.equal(b.jar.size, 0)
  assert.equal((await b.client.getSession()).data, null)
  assertError((await b.client.token()).error, 401, 'UNAUTHORIZED')
})

test('sign-in is limited per client: the sixth attempt in a minute is 429 TOO_MANY_REQUESTS', async () => {
  const b = browser(nextAddress())
  for (let attempt = 1; attempt <= 5; attempt += 1) {
    assertError((await b.client.signIn.email({ email: 'zed@example.com', password: 'not-the-password' })).error, 401, 'INVALID_EMAIL_OR_PASSWORD')
  }
  const limited = await b.client.signIn.email({ email: 'zed@example.com', password: PASSWORD })
  assertError(limited.error, 429, 'TOO_MANY_REQUESTS')
  assert.equal(limited.data, null)
  // Another client is not held back.
  assert.equal((await browser(nextAddress()).client.signIn.email({ email: 'zed@example.com', password: PASSWORD })).error, null)
})
