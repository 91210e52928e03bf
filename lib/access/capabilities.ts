// Capability bundles (`orders.read.own`, `*.read`, `orders.*`, `*`) → what an operation needs.
// A role list means no bundles: then only explicit rules and `defaultAccess` decide.
// Export follows read until a bundle names `export` for the resource (`orders.export`,
// `*.export`): from then on exporting it takes an export capability (docs/decisions.md).
import type { Operation } from './types.js'

export type CapabilityGrant = 'all' | 'own' | 'none'

/** The capabilities a caller holds: the union of their roles' bundles; admin holds `*` unless given a bundle. */
export function capabilitiesOf (roles: readonly string[], bundles: Readonly<Record<string, readonly string[]>>): readonly string[] {
  const held = new Set<string>()
  for (const role of roles) {
    const bundle = bundles[role] ?? (role === 'admin' ? ['*'] : [])
    for (const capability of bundle) held.add(capability)
  }
  return [...held]
}

function matches (pattern: string | undefined, value: string): boolean {
  return pattern === '*' || pattern === value
}

/** How a caller's capabilities grant an operation on a resource: fully, only their own rows, or not. */
export function grantFor (capabilities: readonly string[], resource: string, operation: Operation): CapabilityGrant {
  // Undelete is a kind of delete: a capability for delete grants it.
  const wanted = operation === 'undelete' ? ['undelete', 'delete'] : [operation]
  let grant: CapabilityGrant = 'none'
  for (const capability of capabilities) {
    if (capability === '*') return 'all'
    const [target, op, scope, extra] = capability.split('.')
    if (extra !== undefined || !matches(target, resource) || !wanted.some((w) => matches(op, w))) continue
    if (scope === undefined) return 'all'
    if (scope === 'own') grant = 'own'
  }
  return grant
}

/**
 * Whether some bundle names the export operation for the resource (`orders.export[.own]`,
 * `*.export`): then read no longer grants export there. `orders.*` and `*` grant export without
 * naming it, so admin's implied `*` changes nothing.
 */
export function bundlesNameExport (bundles: Readonly<Record<string, readonly string[]>>, resource: string): boolean {
  return Object.values(bundles).some((bundle) => bundle.some((capability) => {
    const [target, op] = capability.split('.')
    return op === 'export' && matches(target, resource)
  }))
}
