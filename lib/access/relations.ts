// Which relations a caller may follow. A relation exists for a caller only where they could make
// the same link themselves: they read the target resource, and they read the field that links the
// two (a to-one's own field, or a to-many's `by` on the target). Anything else would show which
// record a hidden field names. A to-many's order must be made of fields they read too: the order
// of the children it gives would rank them by a hidden one. Every relation the caller cannot follow is, to them, no relation
// at all: a path through it is refused exactly as an unknown field.
import type { RelationModel } from '../model/types.js'
import type { AccessPlan } from './types.js'

/** Whether the caller, with `access` to the resource and `target` to the related one, may follow `relation`. */
export function canFollow (access: AccessPlan, relation: RelationModel, target: AccessPlan): boolean {
  if (!target.operations.read.allowed) return false
  if (relation.kind === 'one') return access.readable.some((f) => f.name === relation.field.name)
  const reads = (name: string): boolean => target.readable.some((f) => f.name === name)
  return reads(relation.by.name) && relation.orderBy.every((term) => reads(term.field.name))
}

/** The relations of the resource the caller may follow, in declaration order. */
export function followable (access: AccessPlan, accessOf: (resource: string) => AccessPlan): RelationModel[] {
  return [...access.model.relations.values()].filter((relation) => canFollow(access, relation, accessOf(relation.target)))
}
