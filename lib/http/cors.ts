// Cross-origin requests from trusted origins (config `trustedOrigins`, and the public URL's): a
// page there may sign in with `credentials: 'include'`, take its token and call the API, and read
// the headers it needs (ETag, Location, ...). Other origins get no CORS header, so a browser
// keeps their scripts from reading any answer. A request without Origin (no browser) pays nothing.
import { isTrustedOrigin, originOf } from '../auth/origins.js'
import { TUNNEL_ORIGIN } from '../config/resolve.js'

const METHODS = 'GET, HEAD, POST, PATCH, DELETE'
const REQUEST_HEADERS = 'authorization, content-type, if-match, if-none-match, prefer'
const EXPOSED_HEADERS = 'etag, location, retry-after, server-timing, www-authenticate, x-meta-version, x-service-warning, content-disposition'
/** How long a browser may keep a preflight's answer, in seconds. */
const PREFLIGHT_MAX_AGE = '600'

export interface CorsAnswer {
  /** Headers every answer to this request carries. */
  readonly headers: Readonly<Record<string, string>>
  /** A preflight from a trusted origin: answer 204 with these headers, before authentication. */
  readonly preflight: boolean
}

/**
 * The CORS policy of an app. The tunnel wildcard is left out: a page behind a quick tunnel is
 * served from the API's own origin and needs no CORS, and anyone can open such a subdomain.
 */
export function corsPolicy (trustedOrigins: readonly string[]): (origin: string, method: string, requestMethod: string | undefined) => CorsAnswer | undefined {
  const trusted = trustedOrigins.filter((o) => o !== TUNNEL_ORIGIN)
  return (origin, method, requestMethod) => {
    // Browsers send an origin exactly as it serialises; anything else is not one to echo back.
    if (originOf(origin) !== origin || !isTrustedOrigin(origin, trusted)) return undefined
    const headers = { 'access-control-allow-origin': origin, 'access-control-allow-credentials': 'true', 'access-control-expose-headers': EXPOSED_HEADERS }
    if (method !== 'OPTIONS' || requestMethod === undefined) return { headers, preflight: false }
    return {
      headers: { ...headers, 'access-control-allow-methods': METHODS, 'access-control-allow-headers': REQUEST_HEADERS, 'access-control-max-age': PREFLIGHT_MAX_AGE },
      preflight: true,
    }
  }
}

/** `Vary` with `Origin` added: an answer to a request with Origin depends on it. */
export function varyOnOrigin (vary: string | undefined): string {
  return vary === undefined || vary === '' ? 'Origin' : /(^|,)\s*origin\s*(,|$)/i.test(vary) ? vary : `${vary}, Origin`
}
