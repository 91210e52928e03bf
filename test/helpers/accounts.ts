// The account tests' app (sign-up, verification, reset) with a mailbox in place of the mail hooks,
// and "browsers" driving better-auth 1.7's own client against it, each from its own address.
import assert from 'node:assert/strict'
import { createAuthClient } from 'better-auth/client'
import { jwtClient, organizationClient } from 'better-auth/client/plugins'
import type { FastifyInstance } from 'fastify'
import type { Config } from '../../lib/config/schema.js'
import type { AccountMail } from '../../lib/config/functions.js'
import fp from 'fastify-plugin'
import { buildApp, PASSWORD } from './app.js'
import { browserFetch } from './browser-fetch.js'
import { freshDatabase, runSql } from './db.js'
import type { WriteEvent } from '../../hooks/types.js'

export const PUBLIC_URL = 'http://localhost:5173'

export interface Mail extends AccountMail {
  readonly kind: 'verification' | 'reset' | 'existing'
}

/** The mails the hooks were handed, and a wait for the next one to an address. */
export class Mailbox {
  readonly sent: Mail[] = []
  private readonly waiting: Array<{ to: string, resolve: (mail: Mail) => void }> = []

  deliver (mail: Mail): void {
    this.sent.push(mail)
    const index = this.waiting.findIndex((w) => w.to === mail.user.email)
    if (index >= 0) this.waiting.splice(index, 1)[0]!.resolve(mail)
  }

  /** The next mail to `to` (one already sent and not yet taken first). */
  async next (to: string): Promise<Mail> {
    const index = this.sent.findIndex((m) => m.user.email === to)
    if (index >= 0) return this.sent.splice(index, 1)[0]!
    return await new Promise((resolve, reject) => {
      const timer = setTimeout(() => { reject(new Error(`no mail to ${to} within 5 s`)) }, 5000)
      this.waiting.push({ to, resolve: (mail) => { clearTimeout(timer); this.sent.splice(this.sent.indexOf(mail), 1); resolve(mail) } })
    })
  }

  /** Waits a moment for hooks that run after the answer, then says whether any mail went to `to`. */
  async noneTo (to: string): Promise<boolean> {
    await new Promise((resolve) => setTimeout(resolve, 100))
    return !this.sent.some((m) => m.user.email === to)
  }
}

/**
 * A listening app with every account flow on (sign-up open, verification and reset handing their
 * mails to a mailbox) and a `notes` resource to try tokens on; `events` are its `auth.users` write events.
 */
export async function accountsApp (config: Config = {}, options: { readonly verificationRequired?: boolean } = {}): Promise<{ app: FastifyInstance, mailbox: Mailbox, base: string, events: WriteEvent[], databaseUrl: string }> {
  const mailbox = new Mailbox()
  const events: WriteEvent[] = []
  const recorder = fp(async (app: FastifyInstance) => {
    app.tablegate.addWriteHook((event) => { events.push(event) }, { resources: ['auth.users'] })
  }, { name: 'account-events', dependencies: ['tablegate'] })
  const databaseUrl = config.databaseUrl ?? await freshDatabase()
  await runSql(databaseUrl, 'CREATE TABLE IF NOT EXISTS notes (id bigserial PRIMARY KEY, title text NOT NULL)')
  const app = await buildApp({
    databaseUrl,
    resources: { notes: { fields: { id: { type: 'bigint', readOnly: true, dbDefault: true }, title: { type: 'string', required: true } } } },
    plugins: [recorder],
    signUp: 'open',
    signInPerMinute: 1000,
    emailVerification: { required: options.verificationRequired ?? false, onSend: (mail) => { mailbox.deliver({ ...mail, kind: 'verification' }) } },
    passwordReset: { onSend: (mail) => { mailbox.deliver({ ...mail, kind: 'reset' }) } },
    onExistingUserSignUp: ({ user }) => { mailbox.deliver({ user, url: '', token: '', kind: 'existing' }) },
    ...config,
  })
  const base = await app.listen({ port: 0, host: '127.0.0.1' })
  return { app, mailbox, base, events, databaseUrl }
}

let addresses = 0

export function browser (base: string, address?: string) {
  addresses += 1
  const { fetch, jar } = browserFetch(PUBLIC_URL, address ?? `198.51.100.${addresses}`)
  const client = createAuthClient({ baseURL: `${base}/api/auth`, plugins: [jwtClient(), organizationClient()], fetchOptions: { customFetchImpl: fetch } })
  return { client, jar, fetch }
}

export type Browser = ReturnType<typeof browser>

export async function signedIn (base: string, email: string, password = PASSWORD): Promise<Browser & { id: string }> {
  const b = browser(base)
  const { data, error } = await b.client.signIn.email({ email, password })
  assert.equal(error, null, JSON.stringify(error))
  return { ...b, id: data!.user.id }
}

export function assertError (error: { status: number, code?: string | undefined, message?: string | undefined } | null, status: number, code: string): void {
  assert.ok(error !== null, `expected ${code}`)
  assert.equal(error.status, status, JSON.stringify(error))
  assert.equal(error.code, code, JSON.stringify(error))
  assert.equal(typeof error.message, 'string')
}

/** Whether a bearer token is still accepted by the API. */
export async function tokenWorks (base: string, token: string): Promise<boolean> {
  const response = await fetch(`${base}/api/v1/notes`, { headers: { authorization: `Bearer ${token}` } })
  return response.status === 200
}
