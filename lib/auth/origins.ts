// Which origins may send cookie-authenticated POSTs: the public URL's, TRUSTED_ORIGINS, and the
// https tunnel wildcard. A pattern's `*` stands for one or more subdomain labels.

function patternMatches (pattern: string, origin: string): boolean {
  if (!pattern.includes('*')) return pattern === origin
  const [scheme, host] = pattern.split('://') as [string, string | undefined]
  if (host === undefined || !host.startsWith('*.')) return false
  const suffix = host.slice(1)
  const prefix = `${scheme}://`
  if (!origin.startsWith(prefix)) return false
  const originHost = origin.slice(prefix.length)
  return originHost.endsWith(suffix) && /^[a-z0-9-]+(\.[a-z0-9-]+)*$/.test(originHost.slice(0, -suffix.length))
}

export function isTrustedOrigin (origin: string, trusted: readonly string[]): boolean {
  let normalized: string
  try {
    normalized = new URL(origin).origin
  } catch {
    return false
  }
  return trusted.some((pattern) => patternMatches(pattern.replace(/\/+$/, ''), normalized))
}
