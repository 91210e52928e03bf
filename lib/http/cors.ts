// Cross-origin requests from trusted origins (config `trustedOrigins`, and the public URL's): a
// page there may sign in with `credentials: 'include'`, take its token and call the API, and read
// the headers it needs (ETag, Location, ...). Other origins get no CORS header, so a browser
// keeps their scripts from reading any answer. A request without Origin (no browser) pays nothing.
import { isTrustedOrigin, originOf } from '../auth/origins.js'
import { BoundedCache } from '../cache.js'

const METHODS = 'GET, HEAD, POST, PATCH, DELETE'
const REQUEST_HEADERS = 'authorization, content-type, if-match, if-none-match, prefer'
const EXPOSED_HEADERS = 'etag, location, retry-after, server-timing, www-authenticate, x-meta-version, x-service-warning, content-disposition, ratelimit-policy, ratelimit'
/** How long a browser may keep a preflight's answer, in seconds. */
const PREFLIGHT_MAX_AGE = '600'

export interface CorsAnswer {
  /** Headers every answer to this request carries. */
  readonly headers: Readonly<Record<string, string>>
  /** A preflight from a trusted origin: answer 204 with these headers, before authentication. */
  readonly preflight: boolean
}

interface OriginAnswers { readonly request: CorsAnswer, readonly preflight: CorsAnswer }

/**
 * The CORS policy of an app, over its page origins (config `pageOrigins`: the trusted ones but the
 * quick-tunnel wildcard; a page behind a tunnel is on the API's own origin and needs no CORS).
 * An origin's answers are made once: a browser sends the same Origin on every request.
 */
export function corsPolicy (pageOrigins: readonly string[]): (origin: string, method: string, requestMethod: string | undefined) => CorsAnswer | undefined {
  const known = new BoundedCache<OriginAnswers | null>(1_000)
  const answersFor = (origin: string): OriginAnswers | null => {
    // Browsers send an origin exactly as it serialises; anything else is not one to echo back.
    if (originOf(origin) !== origin || !isTrustedOrigin(origin, pageOrigins)) return null
    const headers = { 'access-control-allow-origin': origin, 'access-control-allow-credentials': 'true', 'access-control-expose-headers': EXPOSED_HEADERS }
    return {
      request: { headers, preflight: false },
      preflight: {
        headers: { ...headers, 'access-control-allow-methods': METHODS, 'access-control-allow-headers': REQUEST_HEADERS, 'access-control-max-age': PREFLIGHT_MAX_AGE },
        preflight: true,
      },
    }
  }
  return (origin, method, requestMethod) => {
    const answers = known.getOrCreate(origin, () => answersFor(origin))
    if (answers === null) return undefined
    return method === 'OPTIONS' && requestMethod !== undefined ? answers.preflight : answers.request
  }
}

/** `Vary` with `Origin` added: an answer to a request with Origin depends on it. */
export function varyOnOrigin (vary: string | undefined): string {
  return vary === undefined || vary === '' ? 'Origin' : /(^|,)\s*origin\s*(,|$)/i.test(vary) ? vary : `${vary}, Origin`
}
