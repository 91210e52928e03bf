// Config `rateLimits`, resolved: each budget text (`600/min`) as a count and a window, and the
// exempt roles checked against the role list. Off (undefined) unless the config has the key.
import { ConfigError } from './validate.js'
import type { Config } from './schema.js'
import { didYouMean } from '../text.js'

/** Which budget a call of a route counts against. */
export type OperationClass = 'read' | 'write' | 'export' | 'aggregate'

/** What a request is counted as: the caller's class of operation, or `anonymous` without a token. */
export type LimitClass = OperationClass | 'anonymous'

export const LIMIT_CLASSES: readonly LimitClass[] = ['read', 'write', 'export', 'aggregate', 'anonymous']

export interface Budget {
  /** Requests per window. */
  readonly max: number
  readonly windowMs: number
}

export interface RateLimitSettings {
  /** The classes that are limited; a class without a budget is not. */
  readonly budgets: Readonly<Partial<Record<LimitClass, Budget>>>
  readonly exempt: readonly string[]
}

/** The budgets `tablegate init` writes into a new config: a person at a screen, or a client app, stays well inside them. */
export const INIT_BUDGETS: Readonly<Record<LimitClass, string>> = { read: '600/min', write: '120/min', export: '10/min', aggregate: '60/min', anonymous: '300/min' }

const UNIT_MS: Readonly<Record<string, number>> = { s: 1000, min: 60_000, h: 3_600_000, d: 86_400_000 }
// A budget's window fits the counter's integer milliseconds (lib/limits/shared-store.ts).
const MAX_WINDOW_MS = 2_147_483_647

/** `'600/min'` → 600 a minute; `'100/10s'` → 100 in 10 seconds. */
export function parseBudget (text: string, path: string): Budget {
  const match = /^([1-9][0-9]*)\/([1-9][0-9]*)?(s|min|h|d)$/.exec(text)
  if (match === null) throw new ConfigError(`${path}: '${text}' is not a budget such as '600/min', '100/10s' or '5000/h' (requests, a slash, then a window in s, min, h or d)`)
  const max = Number(match[1])
  const windowMs = Number(match[2] ?? 1) * UNIT_MS[match[3]!]!
  if (!Number.isSafeInteger(max)) throw new ConfigError(`${path}: '${text}' allows more requests than can be counted`)
  if (windowMs > MAX_WINDOW_MS) throw new ConfigError(`${path}: '${text}' has a window longer than 24 days`)
  return { max, windowMs }
}

export function rateLimitSettings (config: Config, roles: readonly string[]): RateLimitSettings | undefined {
  const limits = config.rateLimits
  if (limits === undefined) return undefined
  const budgets: Partial<Record<LimitClass, Budget>> = {}
  for (const name of LIMIT_CLASSES) {
    const text = limits[name]
    if (text !== undefined) budgets[name] = parseBudget(text, `config.rateLimits.${name}`)
  }
  const exempt = limits.exempt ?? []
  for (const role of exempt) {
    if (!roles.includes(role)) throw new ConfigError(`config.rateLimits.exempt: '${role}' is not a role of config.roles${didYouMean(role, roles)}`)
  }
  return { budgets, exempt }
}
