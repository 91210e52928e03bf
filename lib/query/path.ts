// A field reached through to-one relations (`customer.name`, `customer.region.name`): what
// order_by and the aggregates (`:facets`, `:histogram`, `:series`) take besides a field of the
// resource's own (docs/relations.md, "Ordering" and "Aggregates"). Each step is resolved against
// what the caller may use at that step: the relations they may follow from there (RelationsOf)
// and, at the end, the target's fields the caller's query model offers for the purpose. A hidden
// field or a relation they may not follow is not offered, so it fails like a misspelt name, and
// the candidates a did-you-mean picks from are only paths that would have worked.
import type { FieldModel } from '../model/types.js'
import type { FilterRelation, QueryModel, RelationsOf } from './filter/checked.js'
import { MAX_HOPS } from './filter/checker.js'

/** A field of the resource, or of the record its to-one relations lead to. */
export interface FieldPath {
  /** As written: `customer.name`. */
  readonly name: string
  readonly field: FieldModel
  /** The to-one relations followed, the first from the resource; empty for a field of its own. */
  readonly via: readonly FilterRelation[]
}

/** The fields a purpose takes from a query model: `sortable` for order_by, filterable ones of some types for an aggregate. */
export type FieldsOf = (query: QueryModel) => ReadonlyMap<string, FieldModel>

/**
 * Why a path failed. `unknown`: no such field or relation for this caller, which is also what a
 * hidden one is; `relation`: it ends on a relation the caller may follow; `to-many`: it goes
 * through a to-many relation; `too-deep`: through more than MAX_HOPS relations. `prefix` is the
 * path up to the step that failed (`customer.`), `fields` what the caller may name at that step.
 */
export type PathFailure =
  | { readonly reason: 'unknown', readonly prefix: string, readonly fields: readonly string[], readonly candidates: readonly string[] }
  | { readonly reason: 'relation' | 'to-many', readonly relation: string, readonly example: string | undefined }
  | { readonly reason: 'too-deep' }

export type PathResult = { readonly ok: true, readonly path: FieldPath } | { readonly ok: false, readonly failure: PathFailure }

/** Every path that works from `query` through at most `hops` more to-one relations: a did-you-mean's candidates. */
export function pathsFrom (query: QueryModel, relationsOf: RelationsOf, fieldsOf: FieldsOf, hops: number, prefix = ''): string[] {
  const paths = [...fieldsOf(query).keys()].map((name) => prefix + name)
  if (hops === 0) return paths
  for (const [name, hop] of relationsOf(query.resource)) {
    if (hop.relation.kind === 'one') paths.push(...pathsFrom(hop.query, relationsOf, fieldsOf, hops - 1, `${prefix}${name}.`))
  }
  return paths
}

/** `name` as a path from the resource of `query`, a field of its own or one through to-one relations. */
export function resolvePath (name: string, query: QueryModel, relationsOf: RelationsOf, fieldsOf: FieldsOf): PathResult {
  const steps = name.split('.')
  const via: FilterRelation[] = []
  let at = query
  // Every step returns or goes one relation on, and the last one returns.
  for (let i = 0; ; i++) {
    const step = steps[i]!
    const prefix = steps.slice(0, i).map((s) => `${s}.`).join('')
    const last = i === steps.length - 1
    const field = last ? fieldsOf(at).get(step) : undefined
    if (field !== undefined) return { ok: true, path: { name, field, via } }
    // Names never clash (lib/model/relations.ts): a step that is no field may be a relation.
    const hop = relationsOf(at.resource).get(step)
    if (hop === undefined) {
      const unknown = { reason: 'unknown', prefix, fields: [...fieldsOf(at).keys()].map((f) => prefix + f), candidates: pathsFrom(at, relationsOf, fieldsOf, MAX_HOPS - via.length, prefix) } as const
      return { ok: false, failure: unknown }
    }
    const relation = prefix + step
    if (hop.relation.kind === 'many') return { ok: false, failure: { reason: 'to-many', relation, example: undefined } }
    if (last) return { ok: false, failure: { reason: 'relation', relation, example: fieldsOf(hop.query).keys().next().value } }
    if (via.length === MAX_HOPS) return { ok: false, failure: { reason: 'too-deep' } }
    via.push(hop)
    at = hop.query
  }
}

/** The path's name from its field and relations: `customer.region.name`. */
export function pathName (field: FieldModel, via: readonly FilterRelation[] | undefined): string {
  return via === undefined || via.length === 0 ? field.name : `${via.map((hop) => hop.relation.name).join('.')}.${field.name}`
}
