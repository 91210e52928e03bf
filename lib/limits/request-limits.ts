// Request limits (config `rateLimits`, docs/rate-limits.md) without Fastify: which class a request
// counts against, under which key, the IETF RateLimit fields of an answer
// (draft-ietf-httpapi-ratelimit-headers-09: `RateLimit-Policy` and `RateLimit`, structured
// fields), the 429, and the exempt callers' log. The plugin (plugins/rate-limits) counts with
// @fastify/rate-limit in the counters' table made here.
import { sql } from '../sql/sql.js'
import { query, rows, type Queryable } from '../db/query.js'
import { problem, type Problem } from '../problems.js'
import { createCounterTable } from './shared-store.js'
import type { Budget, LimitClass, OperationClass } from '../config/rate-limits.js'
import type { CallerOrganization, CallerUser } from '../principal.js'

/** The counters of every process on the database, one row per caller and class. */
export const REQUEST_COUNTERS = sql.ident('tablegate_limits', 'requests')

export async function migrateRequestCounters (db: Queryable): Promise<void> {
  await query(db, sql`CREATE SCHEMA IF NOT EXISTS "tablegate_limits"`)
  await createCounterTable(db, REQUEST_COUNTERS)
}

/**
 * How many requests a process takes from a caller's count at once (lib/limits/shared-store.ts):
 * a hundredth of the budget, at most 100. A budget under 200 is counted request by request; at
 * most a hundredth per other process goes unused at the window's end (docs/decisions.md).
 */
export function requestLease (max: number): number {
  return Math.min(100, Math.max(1, Math.floor(max / 100)))
}

/** Whether the counters' table is there: without it (no migration run) a start is refused. */
export async function requestCountersExist (db: Queryable): Promise<boolean> {
  const [found] = await rows<{ exists: boolean }>(db, sql`SELECT to_regclass(${'tablegate_limits.requests'}) IS NOT NULL AS exists`)
  return found!.exists
}

/** How a route counts: its own class, one chosen by the request's path (record routes that share a method), else by method. */
export type RouteClass = OperationClass | ((url: string) => OperationClass | undefined)

const READ_METHODS = new Set(['GET', 'HEAD'])

export function requestClass (declared: RouteClass | undefined, method: string, url: string): OperationClass {
  const chosen = typeof declared === 'function' ? declared(url) : declared
  return chosen ?? (READ_METHODS.has(method) ? 'read' : 'write')
}

/**
 * The counter's key: per class, the caller (user id, and the active organization, whose members
 * each have their own budget in it), or for a request without a token its client address. JSON,
 * so no id can run into the next part.
 */
export function limitKey (limitClass: LimitClass, user: CallerUser | null, org: CallerOrganization | undefined, address: string): string {
  return user === null ? JSON.stringify([limitClass, 'address', address]) : JSON.stringify([limitClass, 'user', user.id, org?.id ?? null])
}

/** What a caller's requests count with: their keys by class, and the exempt roles they hold. */
export interface CallerLimits {
  /** The caller's exempt roles: with any, none of their requests is counted. */
  readonly exemptRoles: readonly string[]
  key (limitClass: LimitClass): string
}

interface CallerEntry extends CallerLimits {
  readonly org: CallerOrganization | undefined
}

/**
 * Each caller's limits, worked out once per verified caller rather than per request: the verifier
 * hands the same user object for every request of a token it remembers (lib/auth/verifier.ts), and
 * a role or membership change makes a new user or organization object, so a new entry.
 */
export class Callers {
  readonly #entries = new WeakMap<CallerUser, CallerEntry>()

  constructor (private readonly exempt: ReadonlySet<string>) {}

  of (user: CallerUser, org: CallerOrganization | undefined): CallerLimits {
    const entry = this.#entries.get(user)
    if (entry !== undefined && entry.org === org) return entry
    const keys = new Map<LimitClass, string>()
    const made: CallerEntry = {
      org,
      exemptRoles: user.roles.filter((role) => this.exempt.has(role)),
      key: (limitClass) => {
        let key = keys.get(limitClass)
        if (key === undefined) keys.set(limitClass, key = limitKey(limitClass, user, org, ''))
        return key
      },
    }
    this.#entries.set(user, made)
    return made
  }
}

/** `RateLimit-Policy`: the class's quota and window in seconds. No partition key: it would name the caller's counter. */
export function policyField (limitClass: LimitClass, budget: Budget): string {
  return `"${limitClass}";q=${budget.max};w=${Math.ceil(budget.windowMs / 1000)}`
}

/** `RateLimit`: what is left of the quota and the seconds until the window ends. */
export function rateLimitField (limitClass: LimitClass, remaining: number, resetSeconds: number): string {
  return `"${limitClass}";r=${remaining};t=${resetSeconds}`
}

const CLASS_WORDS: Readonly<Record<LimitClass, string>> = {
  read: 'reads',
  write: 'writes',
  export: 'exports',
  aggregate: 'aggregate requests',
  anonymous: 'requests without a token',
}

function windowText (windowMs: number): string {
  const units: Array<[number, string]> = [[86_400_000, 'day'], [3_600_000, 'hour'], [60_000, 'minute'], [1000, 'second']]
  const [size, name] = units.find(([ms]) => windowMs % ms === 0)!
  const count = windowMs / size
  return count === 1 ? `a ${name}` : `${count} ${name}s`
}

/** The 429: said of the caller's own budget only (or the address's, without a token). */
export function overBudget (limitClass: LimitClass, budget: Budget, retryAfterSeconds: number, headers: Record<string, string>): Problem {
  const who = limitClass === 'anonymous' ? 'This client address has used its' : 'You have used your'
  const wait = `${retryAfterSeconds} second${retryAfterSeconds === 1 ? '' : 's'}`
  return problem('too-many-requests', `${who} budget of ${budget.max} ${CLASS_WORDS[limitClass]} in ${windowText(budget.windowMs)}: try again in ${wait}.`, {}, { ...headers, 'retry-after': String(retryAfterSeconds) })
}

const EXEMPT_LOG_EVERY_MS = 60_000
const EXEMPT_CALLERS_KEPT = 10_000

/** How often an exempt caller's requests are logged: the first, then at most one line a minute per caller and process. */
export class ExemptLog {
  readonly #since = new Map<string, { at: number, requests: number }>()

  constructor (private readonly now: () => number = Date.now) {}

  /** Counts one request of the caller; returns the requests to log (the caller's since the last line), or undefined while it is not time. */
  note (userId: string): number | undefined {
    const now = this.now()
    const entry = this.#since.get(userId)
    if (entry !== undefined && now - entry.at < EXEMPT_LOG_EVERY_MS) {
      entry.requests++
      return undefined
    }
    if (this.#since.size >= EXEMPT_CALLERS_KEPT) this.#since.clear()
    this.#since.set(userId, { at: now, requests: 0 })
    return (entry?.requests ?? 0) + 1
  }
}
