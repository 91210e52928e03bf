// better-auth 1.7's own client with organizationClient() (and jwtClient(), for token()) against a listening tablegate: signed-in
// "browsers" (each from its own address) and the assertions the organization route tests share.
import assert from 'node:assert/strict'
import type { FastifyInstance } from 'fastify'
import { createAuthClient } from 'better-auth/client'
import { jwtClient, organizationClient } from 'better-auth/client/plugins'
import { PASSWORD } from './app.js'
import { browserFetch } from './browser-fetch.js'

export const PUBLIC_URL = 'http://localhost:5173'

let addresses = 0

function clientFor (base: string) {
  addresses += 1
  const { fetch } = browserFetch(PUBLIC_URL, `203.0.113.${addresses}`)
  return createAuthClient({ baseURL: `${base}/api/auth`, plugins: [organizationClient(), jwtClient()], fetchOptions: { customFetchImpl: fetch } })
}

export type OrganizationClient = ReturnType<typeof clientFor>
export interface SignedIn { readonly client: OrganizationClient, readonly id: string }

/** The app listening on loopback, and a way to sign its users in. */
export async function organizationClients (app: FastifyInstance) {
  const base = await app.listen({ port: 0, host: '127.0.0.1' })
  return {
    base,
    anonymous: () => clientFor(base),
    signedIn: async (email: string): Promise<SignedIn> => {
      const client = clientFor(base)
      const { data, error } = await client.signIn.email({ email, password: PASSWORD })
      assert.equal(error, null, JSON.stringify(error))
      return { client, id: data!.user.id }
    },
  }
}

/** The session's active organization, as get-session gives it. */
export async function activeOf (who: SignedIn): Promise<string | null | undefined> {
  return ((await who.client.getSession()).data!.session as { activeOrganizationId?: string | null }).activeOrganizationId
}

export function assertError (error: { status: number, code?: string | undefined, message?: string | undefined } | null, status: number, code: string): void {
  assert.ok(error !== null, `expected ${code}`)
  assert.equal(error.status, status, JSON.stringify(error))
  assert.equal(error.code, code, JSON.stringify(error))
  assert.equal(typeof error.message, 'string')
}

/** Two refusals alike in everything but the path they answer (`instance`). */
export function assertSameRefusal (a: object | null, b: object | null): void {
  assert.ok(a !== null && b !== null)
  const { instance: _a, ...first } = a as Record<string, unknown>
  const { instance: _b, ...second } = b as Record<string, unknown>
  assert.deepEqual(first, second)
}
