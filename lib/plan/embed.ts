// `fields` paths → the record's own fields and the relations it embeds (docs/relations.md,
// "Embedding"). Each path is resolved by the one resolver (lib/query/paths.ts) against the
// caller's graph: the fields they read of each resource and the relations they may follow from
// it. Anything else is, to them, no field at all, so it is refused exactly as a misspelt one, and
// the did-you-mean only ever offers what they could have asked for.
import type { AccessPlan } from '../access/types.js'
import type { FieldModel, RelationModel, ResourceModel } from '../model/types.js'
import type { OrderTerm } from '../query/order-by.js'
import type { Selections } from '../model/selection.js'
import type { BoundedCache } from '../cache.js'
import { fieldMaskItems, fieldMaskName, invalidParameter, parseFieldMask } from '../query/params.js'
import { MAX_HOPS, resolvePath, type PathPurpose, type RelationGraph } from '../query/paths.js'
import { readScope } from './scope.js'
import type { EmbedPlan } from './types.js'
import { callerGraph, type AccessOf } from './graph.js'

export const NO_EMBEDS: readonly EmbedPlan[] = Object.freeze([])

type ToMany = RelationModel & { readonly kind: 'many' }

/**
 * A to-many's children's order: its `orderBy`, then the target's key in the last term's direction
 * (as order_by ends a list), so every child has one place and its token one row to read on from.
 */
export function relationOrder (relation: ToMany, target: ResourceModel): readonly OrderTerm[] {
  const order: OrderTerm[] = [...relation.orderBy]
  const direction = order.at(-1)?.direction ?? 'ASC'
  for (const field of target.key) if (!order.some((term) => term.field.name === field.name)) order.push({ field, direction })
  return order
}

/** What a mask asks of one record: some fields (or all it may read) and relations to embed. */
class Asked {
  all = false
  readonly fields = new Set<string>()
  readonly relations = new Map<string, { readonly relation: RelationModel, readonly asked: Asked }>()

  constructor (readonly access: AccessPlan, private readonly accessOf: AccessOf) {}

  child (relation: RelationModel): Asked {
    let embedded = this.relations.get(relation.name)
    if (embedded === undefined) {
      embedded = { relation, asked: new Asked(this.accessOf(relation.target), this.accessOf) }
      this.relations.set(relation.name, embedded)
    }
    return embedded.asked
  }
}

/** `fields` paths: through any relation the caller may follow, to a field they read or to a whole related record. */
export const FIELDS_PATHS: PathPurpose = { fields: (query) => query.readable, toMany: true, endOnRelation: true, keys: false }

/** Adds one `fields` item to what the mask asks, resolved from the top record (lib/query/paths.ts). */
function ask (top: Asked, name: string, graph: RelationGraph): void {
  const steps = name.split('.')
  // `customer.etag`: the embedded record with its etag alone, as `fields=etag` is at the top.
  const etagOnly = steps.length > 1 && steps.at(-1) === 'etag'
  const resolved = resolvePath(etagOnly ? steps.slice(0, -1) : steps, top.access.query, graph, FIELDS_PATHS)
  if (!resolved.ok) {
    const { failure } = resolved
    if (failure.reason === 'too-deep') invalidParameter('fields', `fields: '${name}' goes through more than ${MAX_HOPS} relations: an embed is at most two levels deep (customer.region.name).`)
    invalidParameter('fields', `fields: '${name}' is not a field${failure.reason === 'unknown' && failure.suggestion !== undefined ? ` (did you mean '${failure.suggestion}'?)` : ''}.`)
  }
  const { hops, field } = resolved.path
  if (etagOnly && field !== undefined) invalidParameter('fields', `fields: '${name}' is not a field.`)
  let at = top
  for (const hop of hops) at = at.child(hop.relation)
  // A relation named last embeds every field the caller may read there.
  if (field === undefined) {
    if (!etagOnly) at.all = true
  } else {
    at.fields.add(field.name)
  }
}

function fieldsOf (asked: Asked): readonly FieldModel[] {
  // The plan's own array when every field is asked: selections are found by identity first.
  return asked.all ? asked.access.readable : asked.access.readable.filter((f) => asked.fields.has(f.name))
}

/** The embeds of an asked record, in the order its resource declares its relations, numbered from `count.next`. */
function embedsOf (asked: Asked, prefix: string, selections: Selections, count: { next: number }): readonly EmbedPlan[] {
  if (asked.relations.size === 0) return NO_EMBEDS
  const embeds: EmbedPlan[] = []
  for (const name of asked.access.model.relations.keys()) {
    const embedded = asked.relations.get(name)
    if (embedded === undefined) continue
    const { access } = embedded.asked
    const path = prefix + name
    const select = selections.of(access.model, fieldsOf(embedded.asked))
    const read = {
      path,
      column: `__e${count.next++}`,
      model: access.model,
      select,
      fetch: selections.fetch(select, access.readable, false),
      readable: access.readable,
      // show_deleted is the top level's: an embedded row is always a live one.
      scope: readScope(access, false),
    }
    const { relation } = embedded
    const nested = embedsOf(embedded.asked, `${path}.`, selections, count)
    if (relation.kind === 'one') embeds.push({ kind: 'one', relation, ...read, embeds: nested })
    else embeds.push({ kind: 'many', relation, ...read, embeds: nested, parent: asked.access.model, order: relationOrder(relation, access.model), pageSize: relation.pageSize, tokenScope: asked.access.tokenScope })
  }
  return embeds
}

export interface ReadMask {
  /** The record's own fields, in the model's order. */
  readonly fields: readonly FieldModel[]
  readonly embeds: readonly EmbedPlan[]
}

/**
 * A `fields` mask of fields and paths (`id,title,customer.name,customer.region`). Without
 * `accessOf`, or on a resource without relations, it is a mask of the record's own fields.
 */
export function planReadMask (access: AccessPlan, value: unknown, selections: Selections, accessOf: AccessOf | undefined, masks?: BoundedCache<ReadMask>): ReadMask {
  if (value === undefined) return { fields: access.readable, embeds: NO_EMBEDS }
  if (accessOf === undefined || access.model.relations.size === 0) return { fields: parseFieldMask(access.readable, value), embeds: NO_EMBEDS }
  if (masks === undefined || (typeof value !== 'string' && !Array.isArray(value))) return readMask(access, value, selections, accessOf)
  // What a mask gives depends on the caller's plans alone, which their key names (lib/access/resolve.ts).
  const text = typeof value === 'string' ? value : `\u0001${JSON.stringify(value)}`
  return masks.getOrCreate(`${access.callerKey}\0${access.resource}\0${text}`, () => readMask(access, value, selections, accessOf))
}

function readMask (access: AccessPlan, value: unknown, selections: Selections, accessOf: AccessOf): ReadMask {
  const top = new Asked(access, accessOf)
  const graph = callerGraph(accessOf)
  for (const raw of fieldMaskItems(value)) {
    const name = fieldMaskName(raw)
    if (name === '' || name === 'etag') continue
    ask(top, name, graph)
  }
  return { fields: fieldsOf(top), embeds: embedsOf(top, '', selections, { next: 0 }) }
}
