// `X-Meta-Version`: a hash of the models and of the caller's roles. A client that sees it change
// refetches /api/meta. Memoised per role set: computing it costs one Map lookup per request.
import { createHash } from 'node:crypto'

function stableText (value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (typeof v === 'function') return `fn:${v.toString()}`
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
      return Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0))
    }
    return v
  })
}

export function createMetaVersion (models: unknown): (roles: readonly string[]) => string {
  const fingerprint = createHash('sha256').update(stableText(models)).digest('hex')
  const byRoles = new Map<string, string>()
  // A cached principal hands back the same roles array on every request: no sort, no join.
  const byArray = new WeakMap<readonly string[], string>()
  return (roles) => {
    let version = byArray.get(roles)
    if (version !== undefined) return version
    const key = [...roles].sort().join(',')
    version = byRoles.get(key)
    if (version === undefined) {
      version = createHash('sha256').update(fingerprint).update('\n').update(key).digest('base64url').slice(0, 22)
      byRoles.set(key, version)
    }
    byArray.set(roles, version)
    return version
  }
}
