// What the login tests check again and again: problem+json answers with better-auth's `code`,
// better-auth's user shape, and sign-ins from addresses of their own (the limiter keys on them).
import assert from 'node:assert/strict'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { json, PASSWORD, sessionCookie, signIn } from './app.js'

const PROBLEM_JSON = 'application/problem+json; charset=utf-8'
export const USER_KEYS = ['banExpires', 'banReason', 'banned', 'createdAt', 'email', 'emailVerified', 'id', 'image', 'name', 'role', 'updatedAt']
export const AUTH_PROBLEM_KEYS = ['code', 'detail', 'instance', 'message', 'status', 'title', 'type']
export const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

// Sign-ins are rate limited per client, which app.inject's loopback peer names in x-forwarded-for:
// every sign-in outside the limiter tests comes from its own address so no test runs into the
// limit by accident.
let addresses = 0
export function freshClient (): Record<string, string> {
  addresses += 1
  return { 'x-forwarded-for': `198.51.${Math.floor(addresses / 250)}.${(addresses % 250) + 1}` }
}

export async function login (app: FastifyInstance, email: string, password = PASSWORD, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
  return await signIn(app, email, password, { ...freshClient(), ...headers })
}

export async function cookieOf (app: FastifyInstance, email: string, headers: Record<string, string> = {}): Promise<string> {
  const response = await login(app, email, PASSWORD, headers)
  assert.equal(response.statusCode, 200, response.body)
  return sessionCookie(response)
}

export function sorted (object: object): string[] {
  return Object.keys(object).sort()
}

/** Asserts a problem+json answer: status, slug, the RFC 9457 members, and exactly `keys` when given. */
export function assertProblem (response: LightMyRequestResponse, status: number, slug: string, keys?: readonly string[]): any {
  assert.equal(response.statusCode, status, response.body)
  assert.equal(response.headers['content-type'], PROBLEM_JSON)
  const body = json(response)
  assert.equal(body.type, `urn:service:problem:${slug}`)
  assert.equal(body.status, status)
  assert.equal(typeof body.title, 'string')
  assert.equal(typeof body.detail, 'string')
  assert.equal(body.instance, response.raw.req.url)
  if (keys !== undefined) assert.deepEqual(sorted(body), [...keys].sort())
  if (status === 401) assert.match(String(response.headers['www-authenticate']), /^Bearer\b/)
  return body
}

/** A better-auth error: the problem plus better-auth's `code` and `message`. */
export function assertAuthProblem (response: LightMyRequestResponse, status: number, slug: string, code: string): any {
  const body = assertProblem(response, status, slug, AUTH_PROBLEM_KEYS)
  assert.equal(body.code, code)
  assert.equal(body.message, body.detail)
  return body
}

export function assertInvalidRecord (response: LightMyRequestResponse, field: string, code: string): any {
  const body = assertProblem(response, 400, 'invalid-record', [...AUTH_PROBLEM_KEYS, 'errors'])
  assert.equal(body.errors.length, 1)
  assert.deepEqual(sorted(body.errors[0]), ['code', 'field', 'message'])
  assert.equal(body.errors[0].field, field)
  assert.equal(body.errors[0].code, code)
  assert.equal(typeof body.errors[0].message, 'string')
  assert.notEqual(body.errors[0].message, '')
  return body
}

export function assertAuthUser (user: any, expected: { id?: string, email: string, name?: string, role: string }): void {
  assert.deepEqual(sorted(user), USER_KEYS)
  assert.equal(typeof user.id, 'string')
  assert.notEqual(user.id, '')
  if (expected.id !== undefined) assert.equal(user.id, expected.id)
  assert.equal(user.email, expected.email)
  assert.equal(user.name, expected.name ?? '')
  assert.equal(user.image, null)
  assert.equal(user.emailVerified, false)
  assert.match(user.createdAt, ISO)
  assert.match(user.updatedAt, ISO)
  assert.equal(user.role, expected.role)
  assert.equal(user.banned, false)
  assert.equal(user.banReason, null)
  assert.equal(user.banExpires, null)
}
