// The console's one way to the API: the session cookie gives a 15-minute token (GET
// {apiRoot}/auth/token), renewed a minute before it expires and once more on a 401; every answer's
// X-Meta-Version is compared with the one /api/meta was read at, and a change asks for a refetch.
import type { Meta } from './meta.js'

const RENEW_BEFORE_MS = 60_000

function metaContent (name: string, fallback: string): string {
  return document.querySelector<HTMLMetaElement>(`meta[name="${name}"]`)?.content ?? fallback
}

export const apiRoot = metaContent('tablegate-api-root', '/api')
export const basePath = metaContent('tablegate-base-path', '/api/v1')

/** A problem+json's detail, or the status line. */
export class ApiError extends Error {
  constructor (readonly status: number, message: string) { super(message) }
}

async function failure (response: Response): Promise<ApiError> {
  const body = await response.json().catch(() => undefined) as { detail?: string, message?: string } | undefined
  return new ApiError(response.status, body?.detail ?? body?.message ?? `${response.status} ${response.statusText}`)
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
  /** Called when an answer carries another X-Meta-Version than the meta in hand. */
  onMetaChange: () => void = () => {}
  /** Called when the session is gone (signed out elsewhere, expired). */
  onSignedOut: () => void = () => {}

  /**
   * Whether the cookie holds a live session, and if so a token from it. Asked of get-session
   * first, which answers null rather than 401, so a signed-out start logs no failed request.
   */
  async start (): Promise<boolean> {
    const response = await fetch(`${apiRoot}/auth/get-session`, { credentials: 'same-origin', cache: 'no-store' })
    if (!response.ok) throw await failure(response)
    if (await response.json() === null) return false
    return await this.resume()
  }

  /** A token from the session cookie; false without a live session. */
  async resume (): Promise<boolean> {
    const response = await fetch(`${apiRoot}/auth/token`, { credentials: 'same-origin', cache: 'no-store' })
    if (response.status === 401) return false
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
  }

  async signOut (): Promise<void> {
    this.forget()
    await fetch(`${apiRoot}/auth/sign-out`, { method: 'POST', credentials: 'same-origin', headers: { 'content-type': 'application/json' }, body: '{}' })
  }

  async meta (): Promise<Meta> {
    const response = await this.send(`${apiRoot}/meta`)
    this.metaVersion = response.headers.get('x-meta-version') ?? undefined
    return await response.json() as Meta
  }

  async get<T> (path: string): Promise<T> {
    return await (await this.send(path)).json() as T
  }

  private async send (path: string, retried = false): Promise<Response> {
    if (this.token === undefined && !await this.resume()) return this.gone()
    const response = await fetch(path, { headers: { authorization: `Bearer ${this.token}`, accept: 'application/json' }, credentials: 'omit' })
    if (response.status === 401 && !retried) {
      this.token = undefined
      return await this.send(path, true)
    }
    if (response.status === 401) return this.gone()
    const version = response.headers.get('x-meta-version')
    if (this.metaVersion !== undefined && version !== null && version !== this.metaVersion) {
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
    this.metaVersion = undefined
  }
}
