// The console's one way to the API: the session cookie gives a 15-minute token (GET
// {apiRoot}/auth/token), renewed a minute before it expires and once more on a 401; every answer's
// X-Meta-Version is compared with the one /api/meta was read at, and a change asks for a refetch.
// With organizations on, the session's active organization is the caller's tenant: switching it
// (set-active) takes a fresh token, which carries the new one.
import type { Meta } from './meta.js'
import { parseAccounts, type OwnSession } from './account-forms.js'

const RENEW_BEFORE_MS = 60_000

function metaContent (name: string, fallback: string): string {
  return document.querySelector<HTMLMetaElement>(`meta[name="${name}"]`)?.content ?? fallback
}

export const apiRoot = metaContent('tablegate-api-root', '/api')
export const basePath = metaContent('tablegate-base-path', '/api/v1')
export const accounts = parseAccounts(document.querySelector<HTMLMetaElement>('meta[name="tablegate-accounts"]')?.content)

/** A problem+json: its `type` slug, and per-field `errors` where the API gives them (docs/resources.md). */
export interface Problem {
  readonly type?: string
  readonly title?: string
  readonly detail?: string
  readonly errors?: ReadonlyArray<{ readonly field: string, readonly code?: string, readonly message: string }>
  readonly [more: string]: unknown
}

/** A refused request: its status, the problem's detail as the message, the problem whole. */
export class ApiError extends Error {
  constructor (readonly status: number, message: string, readonly problem: Problem = {}) { super(message) }
}

async function failure (response: Response): Promise<ApiError> {
  const body = await response.json().catch(() => undefined) as (Problem & { message?: string }) | undefined
  return new ApiError(response.status, body?.detail ?? body?.message ?? `${response.status} ${response.statusText}`, body ?? {})
}

export interface RequestOptions {
  readonly method?: 'GET' | 'POST' | 'PATCH' | 'DELETE'
  /** Sent as JSON. */
  readonly body?: unknown
  readonly headers?: Readonly<Record<string, string>>
  /** Aborts the request, or a stream being read. */
  readonly signal?: AbortSignal | undefined
}

/** How Session sends a request: `readsMeta` for the read of /api/meta, whose answer tells of no change. */
interface SendOptions extends RequestOptions {
  readonly readsMeta?: boolean
}

/** An answer the API gave: its JSON body (undefined for 204) and headers (ETag, X-Meta-Version…). */
export interface Answer<T> {
  readonly status: number
  readonly body: T
  readonly headers: Headers
}

/** One of the session's organizations, as `GET {apiRoot}/auth/organization/list` gives it. */
export interface Organization {
  readonly id: string
  readonly name: string
  readonly slug: string
}

/**
 * A live session as get-session describes it. better-auth's organization plugin adds
 * `activeOrganizationId` to the session (null for none): its presence says organizations are on.
 */
export interface SessionInfo {
  readonly organizations: boolean
  readonly activeOrganizationId: string | null
}

/** The signed-in user as get-session gives them. */
export interface User {
  readonly id: string
  readonly email: string
  readonly name: string
}

/**
 * A login route that needs no session (a reset, a verification link asked for again), POSTed with
 * `body`; a refusal throws ApiError, its problem holding better-auth's `code`.
 */
export async function publicAuth (route: string, body: unknown): Promise<void> {
  const response = await fetch(`${apiRoot}/auth/${route}`, {
    method: 'POST', credentials: 'same-origin', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body),
  })
  if (!response.ok) throw await failure(response)
}

function expiryOf (token: string): number {
  const payload = token.split('.')[1] ?? ''
  const claims = JSON.parse(atob(payload.replace(/-/g, '+').replace(/_/g, '/'))) as { exp?: number }
  return (claims.exp ?? 0) * 1000
}

export class Session {
  private token: string | undefined
  private renewal: ReturnType<typeof setTimeout> | undefined
  private metaVersion: string | undefined
  /**
   * Reads of /api/meta begun so far. The meta read's own answer is the meta in hand, and an answer
   * to a request sent before the latest read began is older than it: neither tells of a change.
   * Either could set off a second read, whose render could land in the middle of what the caller
   * does next (a sign-out, a click on the menu).
   */
  private metaReads = 0
  /**
   * From a sign-out until the next sign-in: a request finds the session ended, and no token is
   * taken from the cookie meanwhile (one taken while the sign-out is on its way would outlive it,
   * and one asked for after it is a 401).
   */
  private signedOut = false
  /** The cookie's session (its id is what list-sessions calls `token`) and user, as start() last read them. */
  sessionId: string | undefined
  user: User | undefined
  /** Called when an answer carries another X-Meta-Version than the meta in hand. */
  onMetaChange: () => void = () => {}
  /** Called when the session is gone (signed out elsewhere, expired). */
  onSignedOut: () => void = () => {}

  /**
   * The cookie's live session, with a token from it; undefined without one. Asked of get-session
   * first, which answers null rather than 401, so a signed-out start logs no failed request.
   */
  async start (): Promise<SessionInfo | undefined> {
    const response = await fetch(`${apiRoot}/auth/get-session`, { credentials: 'same-origin', cache: 'no-store' })
    if (!response.ok) throw await failure(response)
    const found = await response.json() as { session: { id: string, activeOrganizationId?: string | null }, user: User } | null
    if (found === null || !await this.resume()) return undefined
    this.sessionId = found.session.id
    this.user = found.user
    const active = found.session.activeOrganizationId
    return { organizations: active !== undefined, activeOrganizationId: active ?? null }
  }

  /** A token from the session cookie; false without a live session, or once signed out meanwhile. */
  async resume (): Promise<boolean> {
    const response = await fetch(`${apiRoot}/auth/token`, { credentials: 'same-origin', cache: 'no-store' })
    if (response.status === 401 || this.signedOut) return false
    if (!response.ok) throw await failure(response)
    const { token } = await response.json() as { token: string }
    this.keep(token)
    return true
  }

  /** Sets the session cookie; start() then takes a token from it. */
  async signIn (email: string, password: string): Promise<void> {
    const response = await fetch(`${apiRoot}/auth/sign-in/email`, {
      method: 'POST', credentials: 'same-origin', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password }),
    })
    if (!response.ok) throw await failure(response)
    this.signedOut = false
  }

  async signOut (): Promise<void> {
    this.signedOut = true
    this.forget()
    await fetch(`${apiRoot}/auth/sign-out`, { method: 'POST', credentials: 'same-origin', headers: { 'content-type': 'application/json' }, body: '{}' })
  }

  /**
   * Sets a new password. With `signOutOthers`, every other session ends, and every token issued
   * before: this one takes a fresh one from its cookie.
   */
  async changePassword (currentPassword: string, newPassword: string, signOutOthers: boolean): Promise<void> {
    await this.auth('change-password', { currentPassword, newPassword, revokeOtherSessions: signOutOthers })
    if (signOutOthers && !await this.resume()) this.gone()
  }

  async updateName (name: string): Promise<void> {
    await this.auth('update-user', { name })
    if (this.user !== undefined) this.user = { ...this.user, name }
  }

  /** The caller's live sessions. */
  async ownSessions (): Promise<OwnSession[]> {
    return await (await this.auth('list-sessions')).json() as OwnSession[]
  }

  /** Ends one of the caller's other sessions, by the id list-sessions gave it. */
  async endSession (id: string): Promise<void> {
    await this.auth('revoke-session', { token: id })
  }

  /** Ends every other session of the caller and every token issued before: this one takes a fresh one. */
  async endOtherSessions (): Promise<void> {
    await this.auth('revoke-other-sessions', {})
    if (!await this.resume()) this.gone()
  }

  /** The session's organizations (with organizations on). */
  async organizations (): Promise<Organization[]> {
    return await (await this.auth('organization/list')).json() as Organization[]
  }

  /** Makes `organizationId` the session's active organization (null: none), then takes a token that carries it. */
  async switchOrganization (organizationId: string | null): Promise<void> {
    await this.auth('organization/set-active', { organizationId })
    if (!await this.resume()) this.gone()
  }

  async meta (): Promise<Meta> {
    this.metaReads++
    const response = await this.send(`${apiRoot}/meta`, { readsMeta: true })
    this.metaVersion = response.headers.get('x-meta-version') ?? undefined
    return await response.json() as Meta
  }

  async get<T> (path: string): Promise<T> {
    return await (await this.send(path)).json() as T
  }

  /**
   * Any API call as the caller, JSON in and out. A refusal throws ApiError, with the problem in
   * it (a 412's, a 400's field errors), so a form can show it where it belongs.
   */
  async request<T> (path: string, options: RequestOptions = {}): Promise<Answer<T>> {
    const response = await this.send(path, options)
    const text = await response.text()
    return { status: response.status, body: (text === '' ? undefined : JSON.parse(text)) as T, headers: response.headers }
  }

  /** A file the API streams (an :export), as a Blob the page can offer for download. */
  async download (path: string): Promise<Blob> {
    return await (await this.send(path, { headers: { accept: '*/*' } })).blob()
  }

  /**
   * A stream of Server-Sent Events (a `:changes` feed), its body unread; a refusal to open it
   * throws ApiError, as any request's. A token the server ended the stream for has expired: the
   * next stream takes a fresh one, as any request does on its 401.
   */
  async stream (path: string, headers: Readonly<Record<string, string>>, signal: AbortSignal): Promise<Response> {
    return await this.send(path, { headers: { ...headers, accept: 'text/event-stream' }, signal })
  }

  /** A login route with the session cookie: a GET, or a POST of `body`. */
  private async auth (route: string, body?: unknown): Promise<Response> {
    const response = await fetch(`${apiRoot}/auth/${route}`, body === undefined
      ? { credentials: 'same-origin', cache: 'no-store' }
      : { method: 'POST', credentials: 'same-origin', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
    if (response.status === 401) return this.gone()
    if (!response.ok) throw await failure(response)
    return response
  }

  private async send (path: string, options: SendOptions = {}, retried = false): Promise<Response> {
    if (this.token === undefined && (this.signedOut || !await this.resume())) return this.gone()
    const metaReads = this.metaReads
    const headers: Record<string, string> = { accept: 'application/json', ...options.headers, authorization: `Bearer ${this.token}` }
    if (options.body !== undefined) headers['content-type'] = 'application/json'
    const response = await fetch(path, {
      method: options.method ?? 'GET',
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      credentials: 'omit',
      signal: options.signal,
    })
    if (response.status === 401 && !retried) {
      this.token = undefined
      return await this.send(path, options, true)
    }
    if (response.status === 401) return this.gone()
    const version = response.headers.get('x-meta-version')
    if (options.readsMeta !== true && metaReads === this.metaReads && this.metaVersion !== undefined && version !== null && version !== this.metaVersion) {
      this.metaVersion = version
      this.onMetaChange()
    }
    if (!response.ok) throw await failure(response)
    return response
  }

  private gone (): never {
    this.forget()
    this.onSignedOut()
    throw new ApiError(401, 'Your session has ended: sign in again.')
  }

  private keep (token: string): void {
    this.token = token
    clearTimeout(this.renewal)
    const wait = Math.max(5_000, expiryOf(token) - Date.now() - RENEW_BEFORE_MS)
    this.renewal = setTimeout(() => { this.resume().catch(() => { this.token = undefined }) }, wait)
  }

  private forget (): void {
    clearTimeout(this.renewal)
    this.token = undefined
    this.sessionId = undefined
    this.user = undefined
    this.metaVersion = undefined
  }
}
