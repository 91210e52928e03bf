// Builds a tablegate app on a fresh database, plus the login steps tests repeat.
import { after } from 'node:test'
import assert from 'node:assert/strict'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { createServer } from '../../lib/server.js'
import type { Config } from '../../lib/config/schema.js'
import { freshDatabase, releaseBeforeDrop } from './db.js'
import { runtimeOf } from '../../lib/runtime.js'
import type { UserStore } from '../../lib/auth/users.js'

export const TEST_SECRET = 'test-secret-that-is-long-enough-0123456789'
export const PASSWORD = 'correct-horse-battery'

/** A started app on its own database (or `databaseUrl` when given); closed after the test file. */
export async function buildApp (config: Config = {}): Promise<FastifyInstance> {
  const databaseUrl = config.databaseUrl ?? await freshDatabase()
  const app = await createServer({ authSecret: TEST_SECRET, ...config, databaseUrl })
  after(releaseBeforeDrop(databaseUrl, async () => { await app.close() }))
  return app
}

/** The app's whole user store (its pool and keys too, which plugins do not get). */
export function usersOf (app: FastifyInstance): UserStore {
  const users = runtimeOf(app).users
  if (users === undefined) throw new Error('this app has no built-in auth server')
  return users
}

export async function createUser (app: FastifyInstance, email: string, role?: string): Promise<void> {
  await usersOf(app).create({ email, password: PASSWORD, role })
}

export async function bearer (app: FastifyInstance, email: string): Promise<Record<string, string>> {
  const { token } = await usersOf(app).issueToken(email)
  return { authorization: `Bearer ${token}` }
}

/** The user id a bearer token names (its `sub`): what rules see as `ctx.user.id`. */
export function subjectOf (auth: Record<string, string>): string {
  return (JSON.parse(Buffer.from(auth.authorization!.split('.')[1]!, 'base64url').toString()) as { sub: string }).sub
}

export async function signIn (app: FastifyInstance, email: string, password = PASSWORD, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
  return await app.inject({ method: 'POST', url: '/api/auth/sign-in/email', headers, payload: { email, password } })
}

/** The `name=value` pair of the session cookie a sign-in response set, for a Cookie header. */
export function sessionCookie (response: LightMyRequestResponse): string {
  const header = response.headers['set-cookie']
  const first = Array.isArray(header) ? header[0] : header
  if (first === undefined) throw new Error('no cookie was set')
  return first.split(';')[0]!
}

export function json (response: LightMyRequestResponse): any {
  return JSON.parse(response.body)
}

export interface CallResult {
  status: number
  headers: LightMyRequestResponse['headers']
  body: any
}

/** A request function bound to an app and a caller's headers; `body` is parsed JSON or undefined. */
export function caller (app: FastifyInstance, auth: Record<string, string>) {
  return async (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, options: { payload?: unknown, headers?: Record<string, string> } = {}): Promise<CallResult> => {
    const response = await app.inject({ method, url, headers: { ...auth, ...options.headers }, ...(options.payload === undefined ? {} : { payload: options.payload as object }) })
    return { status: response.statusCode, headers: response.headers, body: response.body === '' ? undefined : json(response) }
  }
}

/** A 400 invalid-parameter naming exactly `parameter` in `errors`, its message matching `message` when given. */
export function assertParameterError (response: CallResult, parameter: string, message?: RegExp): void {
  assert.equal(response.status, 400, JSON.stringify(response.body))
  assert.equal(response.body.type, 'urn:service:problem:invalid-parameter')
  assert.deepEqual(response.body.errors.map((e: { parameter: string }) => e.parameter), [parameter])
  if (message !== undefined) assert.match(response.body.errors[0].message, message)
}

/** The titles of the rows a filtered list answers with, after checking it answered 200. */
export async function filteredTitles (call: ReturnType<typeof caller>, list: string, filter: string, extra = ''): Promise<string[]> {
  const response = await call('GET', `${list}?page_size=500&filter=${encodeURIComponent(filter)}${extra}`)
  assert.equal(response.status, 200, `${filter}: ${JSON.stringify(response.body)}`)
  return response.body.items.map((item: { title: string }) => item.title)
}
