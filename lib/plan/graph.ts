// A caller's relation graph (lib/query/paths.ts): from each resource, the relations they may follow
// (lib/access/relations.ts), each with what they may name at the target. And what the plan does
// with a path once it is resolved: the key its check is kept under, which names only what the
// check read (relations and query models, never rows), and each hop's scope, the rows of the
// target the caller may read, attached to the checked value for this caller alone.
import type { AccessPlan } from '../access/types.js'
import { followable } from '../access/relations.js'
import { readRows } from '../access/row-filter.js'
import type { BoundedCache } from '../cache.js'
import { MAX_HOPS, type PathHop, type RelationGraph, type ScopedHop } from '../query/paths.js'
import type { CheckedFilter, RelatedScope } from '../query/filter/checked.js'
import type { ResourceModel } from '../model/types.js'

/** The caller's plan of any resource (RouteInput's `ctx.access`): paths follow relations with it. */
export type AccessOf = (resource: string) => AccessPlan

/** The relations the caller may follow from each resource, each with the target's query model; built as asked. */
export function callerGraph (accessOf: AccessOf): RelationGraph {
  const found = new Map<string, ReadonlyMap<string, PathHop>>()
  return (resource) => {
    let hops = found.get(resource)
    if (hops === undefined) {
      hops = new Map(followable(accessOf(resource), accessOf).map((relation) => {
        const target = accessOf(relation.target)
        return [relation.name, { relation, target: target.model, query: target.query }]
      }))
      found.set(resource, hops)
    }
    return hops
  }
}

/**
 * What resolving a path from `resource` may read of the graph: the relations that may be followed,
 * as deep as a path reaches, and each target's query model. Checks made under one key are the
 * same whoever made them.
 */
function graphKey (resource: string, graph: RelationGraph, hopsLeft: number): string {
  return [...graph(resource)].map(([name, hop]) => hopsLeft === 0 ? name : `${name}(${hop.query.cacheKey}${graphKey(hop.target.name, graph, hopsLeft - 1)})`).join(',')
}

/**
 * graphKey of the caller's graph, kept by caller shape: plans are a function of it
 * (lib/access/resolve.ts), so the key is too, and a repeated request reads no other plan for it.
 */
export function callerGraphKey (access: AccessPlan, accessOf: AccessOf, keys: BoundedCache<string>): string {
  if (access.model.relations.size === 0) return ''
  return keys.getOrCreate(`${access.callerKey}\0${access.resource}`, () => graphKey(access.resource, callerGraph(accessOf), MAX_HOPS))
}

/** The rows of a relation's target the caller may read there: their tenant and the read rule's row filter. */
export function callerScope (target: AccessPlan): RelatedScope {
  return { kind: 'caller', tenant: target.context.tenant, everyTenant: target.context.allTenants, rows: readRows(target) }
}

/** The filter with each related condition not yet scoped given `scopeOf` its target; a rule's (as stored) kept. */
export function withScopes (filter: CheckedFilter, scopeOf: (target: ResourceModel) => RelatedScope): CheckedFilter {
  switch (filter.kind) {
    case 'and':
    case 'or': return { kind: filter.kind, children: filter.children.map((child) => withScopes(child, scopeOf)) }
    case 'not': return { kind: 'not', child: withScopes(filter.child, scopeOf) }
    case 'related': {
      const scope = filter.scope.kind === 'unattached' ? scopeOf(filter.target) : filter.scope
      return { ...filter, scope, condition: withScopes(filter.condition, scopeOf) }
    }
    default: return filter
  }
}

/** The filter with each related condition given the caller's rows of its target. */
export function attachScopes (filter: CheckedFilter, accessOf: AccessOf): CheckedFilter {
  return withScopes(filter, (target) => callerScope(accessOf(target.name)))
}

/** A path's hops, each given the caller's rows of its target. */
export function attachHops (via: readonly ScopedHop[], accessOf: AccessOf): readonly ScopedHop[] {
  return via.map((hop) => hop.scope.kind === 'unattached' ? { ...hop, scope: callerScope(accessOf(hop.target.name)) } : hop)
}
