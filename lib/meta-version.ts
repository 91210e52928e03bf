// `X-Meta-Version`: a hash of the models, of the caller's roles and of their organization roles in
// the active organization (which can add capabilities). A client that sees it change refetches
// /api/meta. Memoised per role set: computing it costs one Map lookup per request.
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

/** The version of a caller's documents, from their service roles and organization roles (none outside an organization). */
export type MetaVersion = (roles: readonly string[], orgRoles?: readonly string[]) => string

export function createMetaVersion (models: unknown): MetaVersion {
  const fingerprint = createHash('sha256').update(stableText(models)).digest('hex')
  const byRoles = new Map<string, string>()
  // A cached principal hands back the same roles array on every request: no sort, no join.
  const byArray = new WeakMap<readonly string[], string>()
  const versionOf = (key: string): string => {
    let version = byRoles.get(key)
    if (version === undefined) {
      version = createHash('sha256').update(fingerprint).update('\n').update(key).digest('base64url').slice(0, 22)
      byRoles.set(key, version)
    }
    return version
  }
  return (roles, orgRoles) => {
    // A caller without an organization keeps the version they had before organizations existed.
    if (orgRoles !== undefined && orgRoles.length > 0) return versionOf(`${[...roles].sort().join(',')}\norg:${[...orgRoles].sort().join(',')}`)
    let version = byArray.get(roles)
    if (version !== undefined) return version
    version = versionOf([...roles].sort().join(','))
    byArray.set(roles, version)
    return version
  }
}
