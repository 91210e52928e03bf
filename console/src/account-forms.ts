// The account screens' rules, free of the DOM so the unit tests run them in Node: what the server
// offers (the page's `tablegate-accounts` meta tag), a new password checked against the policy
// before it is sent, the words for the login routes' refusals, where a reset link landed, and the
// caller's sessions as the account page lists them.

/** The account flows the server has on, and its password policy (docs/console.md, "Accounts"). */
export interface Accounts {
  readonly passwordReset: boolean
  readonly emailVerification: boolean
  readonly passwordMinLength: number
  readonly passwordMaxLength: number
}

/** What to assume of a page without the tag: no flows, the server's default policy. */
const FALLBACK: Accounts = { passwordReset: false, emailVerification: false, passwordMinLength: 12, passwordMaxLength: 128 }

/** The meta tag's JSON; anything it lacks or gets wrong is taken as off, with better-auth's bounds. */
export function parseAccounts (content: string | undefined): Accounts {
  let raw: unknown
  try { raw = JSON.parse(content ?? '') } catch { return FALLBACK }
  if (typeof raw !== 'object' || raw === null) return FALLBACK
  const given = raw as Record<string, unknown>
  const length = (name: 'passwordMinLength' | 'passwordMaxLength'): number => {
    const value = given[name]
    return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : FALLBACK[name]
  }
  return { passwordReset: given.passwordReset === true, emailVerification: given.emailVerification === true, passwordMinLength: length('passwordMinLength'), passwordMaxLength: length('passwordMaxLength') }
}

export function policyHint (accounts: Accounts): string {
  return `${accounts.passwordMinLength} to ${accounts.passwordMaxLength} characters.`
}

/** Errors by field (`newPassword`, `repeat`); empty when the new password may be sent. */
export type PasswordErrors = Partial<Record<'newPassword' | 'repeat', string>>

/**
 * The new password against the policy, and its repetition against it. Lengths count code points,
 * as the server does (an emoji is one character, not two).
 */
export function checkNewPassword (accounts: Accounts, newPassword: string, repeat: string): PasswordErrors {
  const errors: { newPassword?: string, repeat?: string } = {}
  const length = [...newPassword].length
  if (length < accounts.passwordMinLength) errors.newPassword = `Too short: at least ${accounts.passwordMinLength} characters.`
  else if (length > accounts.passwordMaxLength) errors.newPassword = `Too long: at most ${accounts.passwordMaxLength} characters.`
  if (repeat !== newPassword) errors.repeat = 'The two passwords differ.'
  return errors
}

export const RESET_LINK_UNUSABLE = 'This link has expired or has been used already. Ask for a new one.'
export const RESET_REQUESTED = 'If an account has this email, a link to set a new password is on its way to it.'
export const VERIFICATION_SENT = 'If this account still needs verifying, a new link is on its way to its email.'
export const NOT_VERIFIED = 'Your email is not verified yet: follow the link in the email you were sent, then sign in.'

/** A refusal of a login route in the console's words, by better-auth's `code`; else the server's own message. */
export function messageOf (code: unknown, fallback: string, accounts: Accounts): string {
  switch (code) {
    case 'INVALID_TOKEN': case 'TOKEN_EXPIRED': return RESET_LINK_UNUSABLE
    case 'PASSWORD_TOO_SHORT': return `The new password is too short: at least ${accounts.passwordMinLength} characters.`
    case 'PASSWORD_TOO_LONG': return `The new password is too long: at most ${accounts.passwordMaxLength} characters.`
    case 'INVALID_PASSWORD': return 'The current password is wrong.'
    case 'EMAIL_NOT_VERIFIED': return NOT_VERIFIED
    case 'TOO_MANY_REQUESTS': return 'Too many requests: wait a minute, then try again.'
    default: return fallback
  }
}

/**
 * Where a link landed, read from the URL's query: the server's redirect puts the reset token
 * (`?token=`) or why the link cannot be used (`?error=`) there, before the hash.
 */
export type Landing = { readonly kind: 'token', readonly token: string } | { readonly kind: 'error', readonly code: string } | { readonly kind: 'none' }

export function landingOf (search: string): Landing {
  const query = new URLSearchParams(search)
  const error = query.get('error')
  if (error !== null && error !== '') return { kind: 'error', code: error }
  const token = query.get('token')
  return token !== null && token !== '' ? { kind: 'token', token } : { kind: 'none' }
}

/** A session as `GET /auth/list-sessions` gives it: `token` is its id, which revoke-session takes. */
export interface OwnSession {
  readonly token: string
  readonly createdAt: string
  readonly expiresAt: string
  readonly ipAddress?: string | null
  readonly userAgent?: string | null
}

export interface SessionRow {
  readonly id: string
  readonly device: string
  readonly address: string
  readonly signedIn: string
  readonly current: boolean
}

const BROWSERS: ReadonlyArray<readonly [RegExp, string]> = [
  [/\bEdg\//, 'Edge'], [/\bFirefox\//, 'Firefox'], [/Chrom(e|ium)\//, 'Chrome'], [/\bSafari\//, 'Safari'],
]
// Android's agent names Linux too.
const SYSTEMS: ReadonlyArray<readonly [RegExp, string]> = [
  [/\bAndroid\b/, 'Android'], [/\biPhone\b/, 'iPhone'], [/\biPad\b/, 'iPad'], [/\bWindows\b/, 'Windows'],
  [/\bMac OS X\b/, 'macOS'], [/\bCrOS\b/, 'ChromeOS'], [/\bLinux\b/, 'Linux'],
]

/** A user agent in a few words: the browser and the system it names, else the text as it came. */
export function deviceOf (userAgent: string | null | undefined): string {
  if (userAgent === null || userAgent === undefined || userAgent.trim() === '') return 'Unknown device'
  // Chrome's agent names Safari too, and Edge's names Chrome: the first of these found is the browser.
  const browser = BROWSERS.find(([pattern]) => pattern.test(userAgent))?.[1]
  const system = SYSTEMS.find(([pattern]) => pattern.test(userAgent))?.[1]
  if (browser === undefined) return userAgent.length > 60 ? `${userAgent.slice(0, 57)}…` : userAgent
  return system === undefined ? browser : `${browser} on ${system}`
}

/** `2026-03-04 05:06 UTC`: to the minute, which tells two sign-ins apart well enough. */
function minuteOf (iso: string): string {
  const date = new Date(iso)
  return Number.isNaN(date.getTime()) ? iso : `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`
}

/** The caller's sessions, this one first, then the latest sign-in first. */
export function sessionRows (sessions: readonly OwnSession[], currentId: string | undefined): SessionRow[] {
  return [...sessions]
    .sort((a, b) => Number(b.token === currentId) - Number(a.token === currentId) || b.createdAt.localeCompare(a.createdAt) || a.token.localeCompare(b.token))
    .map((session) => ({
      id: session.token,
      device: deviceOf(session.userAgent),
      address: session.ipAddress ?? '',
      signedIn: minuteOf(session.createdAt),
      current: session.token === currentId,
    }))
}
