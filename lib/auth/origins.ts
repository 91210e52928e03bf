// Which origins may send cookie-authenticated POSTs: the public URL's, TRUSTED_ORIGINS, and the
// https tunnel wildcard. A pattern's `*` stands for one or more subdomain labels.

/** The origin of a URL, or undefined when it is not one. */
export function originOf (url: string): string | undefined {
  try {
    return new URL(url).origin
  } catch {
    return undefined
  }
}

// Entries are compared as origins, so case, a default port or a trailing path never stop a match.
function patternMatches (pattern: string, origin: string): boolean {
  if (!pattern.includes('*')) return originOf(pattern) === origin
  const [scheme, host] = pattern.toLowerCase().split('://') as [string, string | undefined]
  if (host === undefined || !host.startsWith('*.')) return false
  const suffix = host.slice(1)
  const prefix = `${scheme}://`
  if (!origin.startsWith(prefix)) return false
  const originHost = origin.slice(prefix.length)
  return originHost.endsWith(suffix) && /^[a-z0-9-]+(\.[a-z0-9-]+)*$/.test(originHost.slice(0, -suffix.length))
}

export function isTrustedOrigin (origin: string, trusted: readonly string[]): boolean {
  const normalized = originOf(origin)
  if (normalized === undefined || normalized === 'null') return false
  return trusted.some((pattern) => patternMatches(pattern.replace(/\/+$/, ''), normalized))
}

// A path on this server: not `//host` or `/\host` (which browsers read as another host), no
// control characters, no encoded slashes that a router may decode into one.
function isSafeRelativeURL (url: string): boolean {
  if (!url.startsWith('/') || url.startsWith('//') || url.includes('\\') || /[\u0000-\u001f\u007f]/.test(url)) return false
  if (/%2f|%5c/i.test(url.split(/[?#]/)[0]!)) return false
  const base = 'http://callback.invalid'
  try {
    return new URL(url, base).origin === base
  } catch {
    return false
  }
}

/** A sign-in's `callbackURL` is answered only toward a trusted origin or a path here: no open redirect. */
export function isSafeCallbackURL (url: string, trusted: readonly string[]): boolean {
  return url.startsWith('/') ? isSafeRelativeURL(url) : isTrustedOrigin(url, trusted)
}
