// Relation paths: `customer.name`, `lines.sku`, `task.project.org_id`. The one resolver behind every
// place a path is named: `fields`, `filter`, `order_by`, the aggregates, `:export`, and the filters
// of access rules. A path is resolved against a RelationGraph, which says what may be followed
// from each resource and what may be named at its target. A caller's graph (lib/plan/graph.ts)
// holds only the relations they may follow and the fields they may use there, so a hidden field or
// relation fails exactly like a misspelt one and a did-you-mean offers only what would work; a
// rule's graph (lib/access/rule-graph.ts) is the schema as stored. One depth limit, one
// did-you-mean, for all of them.
//
// Resolving records relations only: which rows of a target a hop reads (the caller's there, or the
// rows as stored) is attached later, by the plan or the rule compiler (RelatedScope).
import { nearest } from '../text.js'
import type { FieldModel, RelationModel, ResourceModel } from '../model/types.js'
import type { QueryModel, RelatedScope } from './filter/checked.js'

/** Relations a path may follow: `customer.region.name` and `task.project.name` follow two. */
export const MAX_HOPS = 2

/** A relation a path follows: the relation, its target, and what may be named there. */
export interface PathHop {
  readonly relation: RelationModel
  readonly target: ResourceModel
  readonly query: QueryModel
}

/** A hop with the rows it reads at its target (lib/sql/path.ts joins them). */
export interface ScopedHop extends PathHop {
  readonly scope: RelatedScope
}

/** The relations that may be followed from a resource, by name; one that may not is absent. */
export type RelationGraph = (resource: string) => ReadonlyMap<string, PathHop>

export const NO_RELATIONS: RelationGraph = () => new Map()

/** What a path is for: which fields may end it, and which steps it may take. */
export interface PathPurpose {
  /** The fields a path may end on at a resource (or go into, with `keys`). */
  readonly fields: (query: QueryModel) => ReadonlyMap<string, FieldModel>
  /** Through to-many relations too (filters, embeds); else to-one only (order_by, aggregates, CSV). */
  readonly toMany: boolean
  /** May end on a relation (an embed of the whole record); else it must name a field there. */
  readonly endOnRelation: boolean
  /** A field may be followed by more steps, keys into it (a filter's json path). */
  readonly keys: boolean
}

/** A path resolved: the hops from the resource, then a field (none where it ends on a relation). */
export interface ResolvedPath {
  readonly hops: readonly PathHop[]
  readonly field: FieldModel | undefined
  /** Steps after the field: keys into it, where the purpose takes them. */
  readonly keys: readonly string[]
}

/**
 * Why a path failed, at which step (`at`, an index into the steps), with `written` the path up to
 * and including it. `unknown`: no field or relation by that name for this purpose, which is also
 * what a hidden one is; `suggestion` is the nearest path that would work from there, `fields`
 * what may be named at that step. `relation`: it ends on a relation where a field is needed
 * (`example`, a field of it). `to-many`: it goes through a to-many relation where only to-one
 * ones may be followed. `too-deep`: through more than MAX_HOPS relations.
 */
export type PathFailure =
  | { readonly reason: 'unknown', readonly at: number, readonly written: string, readonly fields: readonly string[], readonly suggestion: string | undefined }
  | { readonly reason: 'relation', readonly at: number, readonly written: string, readonly example: string | undefined }
  | { readonly reason: 'to-many', readonly at: number, readonly written: string }
  | { readonly reason: 'too-deep', readonly at: number, readonly written: string }

export type PathResult = { readonly ok: true, readonly path: ResolvedPath } | { readonly ok: false, readonly failure: PathFailure }

/** Every path that works from `query` for the purpose, through at most `hops` more relations: a did-you-mean's candidates. */
export function pathsFrom (query: QueryModel, graph: RelationGraph, purpose: PathPurpose, hops = MAX_HOPS, prefix = ''): string[] {
  const paths = [...purpose.fields(query).keys()].map((name) => prefix + name)
  if (hops === 0) return paths
  for (const [name, hop] of graph(query.resource)) {
    if (hop.relation.kind === 'many' && !purpose.toMany) continue
    if (purpose.endOnRelation) paths.push(prefix + name)
    paths.push(...pathsFrom(hop.query, graph, purpose, hops - 1, `${prefix}${name}.`))
  }
  return paths
}

/**
 * `steps` (a path split at its dots) as a path from the resource of `query`. At each step a field
 * comes first (names never clash: lib/model/relations.ts), then a relation that may be followed.
 */
export function resolvePath (steps: readonly string[], query: QueryModel, graph: RelationGraph, purpose: PathPurpose): PathResult {
  const hops: PathHop[] = []
  let at = query
  // Every step returns or goes one relation on, and the last one returns.
  for (let i = 0; ; i++) {
    const step = steps[i]!
    const last = i === steps.length - 1
    const written = steps.slice(0, i + 1).join('.')
    const field = last || purpose.keys ? purpose.fields(at).get(step) : undefined
    if (field !== undefined) return { ok: true, path: { hops, field, keys: steps.slice(i + 1) } }
    const hop = graph(at.resource).get(step)
    if (hop === undefined) {
      const prefix = steps.slice(0, i).map((s) => `${s}.`).join('')
      const fields = [...purpose.fields(at).keys()].map((name) => prefix + name)
      const candidates = pathsFrom(at, graph, purpose, MAX_HOPS - hops.length, prefix)
      return { ok: false, failure: { reason: 'unknown', at: i, written, fields, suggestion: nearest(steps.join('.'), candidates) ?? nearest(written, candidates) } }
    }
    if (hop.relation.kind === 'many' && !purpose.toMany) return { ok: false, failure: { reason: 'to-many', at: i, written } }
    if (last && !purpose.endOnRelation) return { ok: false, failure: { reason: 'relation', at: i, written, example: purpose.fields(hop.query).keys().next().value } }
    if (hops.length === MAX_HOPS) return { ok: false, failure: { reason: 'too-deep', at: i, written } }
    hops.push(hop)
    if (last) return { ok: true, path: { hops, field: undefined, keys: [] } }
    at = hop.query
  }
}

/** A path's name from its relations and field: `customer.region.name`. */
export function pathName (field: FieldModel, hops: readonly { readonly relation: RelationModel }[] | undefined): string {
  return hops === undefined || hops.length === 0 ? field.name : `${hops.map((hop) => hop.relation.name).join('.')}.${field.name}`
}
