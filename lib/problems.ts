// The one table of problem slugs (RFC 9457 bodies, `type: urn:service:problem:<slug>`).
// A slug, once shipped, is never reused: retire one by commenting it out here with the release.

export const PROBLEMS = {
  'invalid-filter': { status: 400, title: 'Invalid filter' },
  'invalid-order-by': { status: 400, title: 'Invalid order_by' },
  'invalid-parameter': { status: 400, title: 'Invalid parameter' },
  'invalid-key': { status: 400, title: 'Invalid key' },
  'invalid-record': { status: 400, title: 'Invalid record' },
  'malformed-json': { status: 400, title: 'Malformed JSON' },
  'malformed-request': { status: 400, title: 'Malformed request' },
  'expensive-query': { status: 400, title: 'Expensive query' },
  'unauthenticated': { status: 401, title: 'Unauthenticated' },
  'access-denied': { status: 403, title: 'Access denied' },
  'tenant-required': { status: 403, title: 'Tenant required' },
  'not-found': { status: 404, title: 'Not found' },
  'conflict': { status: 409, title: 'Conflict' },
  'request-timeout': { status: 408, title: 'Request timeout' },
  'changes-expired': { status: 410, title: 'Changes expired' },
  'precondition-failed': { status: 412, title: 'Precondition failed' },
  'payload-too-large': { status: 413, title: 'Payload too large' },
  'uri-too-long': { status: 414, title: 'URI too long' },
  'unsupported-media-type': { status: 415, title: 'Unsupported media type' },
  'precondition-required': { status: 428, title: 'Precondition required' },
  'too-many-requests': { status: 429, title: 'Too many requests' },
  'headers-too-large': { status: 431, title: 'Request header fields too large' },
  'internal-error': { status: 500, title: 'Internal error' },
  'service-unavailable': { status: 503, title: 'Service unavailable' },
  'statement-timeout': { status: 504, title: 'Statement timeout' },
} as const satisfies Record<string, { status: number, title: string }>

export type ProblemSlug = keyof typeof PROBLEMS

export const PROBLEM_TYPE_PREFIX = 'urn:service:problem:'
export const PROBLEM_CONTENT_TYPE = 'application/problem+json; charset=utf-8'

/** The detail of an unknown route, also given for a resource the caller cannot see at all. */
export const NO_ROUTE_DETAIL = 'No route matches this method and path.'

/** The fixed detail of every 500: nothing about the failure reaches the caller. */
export const INTERNAL_ERROR_DETAIL = 'The server met an unexpected condition. The error has been reported.'

/** Extra members of a problem body (`errors`, `parameter`, `operation`, better-auth's `code`, ...). */
export type ProblemExtras = Readonly<Record<string, unknown>>

// A global brand, not `instanceof`: a plugin loaded through another module instance of tablegate
// (a TypeScript config loaded by tsx gets one) throws Problems of another class object.
const PROBLEM_BRAND = Symbol.for('tablegate.problem')

export class Problem extends Error {
  readonly [PROBLEM_BRAND] = true
  readonly slug: ProblemSlug
  readonly status: number
  readonly title: string
  readonly detail: string
  readonly extras: ProblemExtras
  readonly headers: Readonly<Record<string, string>>

  constructor (slug: ProblemSlug, detail: string, extras: ProblemExtras = {}, headers: Record<string, string> = {}) {
    super(detail)
    this.name = 'Problem'
    this.slug = slug
    this.status = PROBLEMS[slug].status
    this.title = PROBLEMS[slug].title
    this.detail = detail
    this.extras = extras
    this.headers = headers
  }
}

/** Builds a problem; the only way code outside this file names a slug. */
export function problem (slug: ProblemSlug, detail: string, extras?: ProblemExtras, headers?: Record<string, string>): Problem {
  return new Problem(slug, detail, extras, headers)
}

/** The same problem with more members in its body (a batch names the operation that failed). */
export function withExtras (p: Problem, extras: ProblemExtras): Problem {
  return new Problem(p.slug, p.detail, { ...p.extras, ...extras }, { ...p.headers })
}

/** The 404 of a key that addresses no record the caller may see: the same words for reads and writes. */
export function recordNotFound (resource: string): Problem {
  return problem('not-found', `No ${resource} record has this key.`)
}

export function isProblem (value: unknown): value is Problem {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[PROBLEM_BRAND] === true
}

export interface ProblemBody {
  type: string
  title: string
  status: number
  detail: string
  instance: string
  [extra: string]: unknown
}

/** The headers an answer with this problem carries: its own, its media type, and a 401's challenge. */
export function problemHeaders (p: Problem): Record<string, string> {
  const headers: Record<string, string> = { ...p.headers, 'content-type': PROBLEM_CONTENT_TYPE }
  if (p.status === 401) headers['www-authenticate'] ??= 'Bearer'
  return headers
}

export function toProblemBody (p: Problem, instance: string): ProblemBody {
  return {
    ...p.extras,
    type: PROBLEM_TYPE_PREFIX + p.slug,
    title: p.title,
    status: p.status,
    detail: p.detail,
    instance,
  }
}
