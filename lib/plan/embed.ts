// `fields` paths → the record's own fields and the relations it embeds (docs/relations.md,
// "Embedding"). Each step of a path is resolved against what the caller may read at that step:
// the fields they read of that resource and the relations they may follow from it (canFollow).
// Anything else is, to them, no field at all, so it is refused exactly as a misspelt one, and the
// did-you-mean only ever offers what they could have asked for.
import type { AccessPlan } from '../access/types.js'
import { canFollow } from '../access/relations.js'
import type { FieldModel, RelationModel, ResourceModel } from '../model/types.js'
import type { OrderTerm } from '../query/order-by.js'
import type { Selections } from '../model/selection.js'
import type { BoundedCache } from '../cache.js'
import { fieldMaskItems, fieldMaskName, invalidParameter, parseFieldMask, unknownField } from '../query/params.js'
import { readScope } from './scope.js'
import type { EmbedPlan } from './types.js'
import type { AccessOf } from './filter.js'

/** How many relations a path may go through: `customer.region.name`, no further. */
export const MAX_EMBED_DEPTH = 2

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
  #readable: ReadonlySet<string> | undefined
  #followable: ReadonlyMap<string, RelationModel> | undefined

  constructor (readonly access: AccessPlan, readonly depth: number, private readonly accessOf: AccessOf) {}

  reads (name: string): boolean {
    this.#readable ??= new Set(this.access.readable.map((f) => f.name))
    return this.#readable.has(name)
  }

  /** The relation by this name the caller may follow from here, to-one or to-many. */
  follows (name: string): RelationModel | undefined {
    this.#followable ??= new Map([...this.access.model.relations].filter(([, relation]) => canFollow(this.access, relation, this.accessOf(relation.target))))
    return this.#followable.get(name)
  }

  /** What a path may name here: readable fields, and the relations one may still embed. */
  candidates (): string[] {
    const names = this.access.readable.map((f) => f.name)
    if (this.depth >= MAX_EMBED_DEPTH) return names
    for (const relation of this.access.model.relations.values()) {
      if (this.follows(relation.name) !== undefined) names.push(relation.name)
    }
    return names
  }

  child (relation: RelationModel): Asked {
    let embedded = this.relations.get(relation.name)
    if (embedded === undefined) {
      embedded = { relation, asked: new Asked(this.accessOf(relation.target), this.depth + 1, this.accessOf) }
      this.relations.set(relation.name, embedded)
    }
    return embedded.asked
  }
}

/** Adds one `fields` item to what the mask asks, step by step from the top record. */
function ask (top: Asked, name: string): void {
  const steps = name.split('.')
  let at = top
  for (let i = 0; i < steps.length; i++) {
    const step = steps[i]!
    const last = i === steps.length - 1
    // `customer.etag`: the embedded record with its etag alone, as `fields=etag` is at the top.
    if (last && i > 0 && step === 'etag') return
    if (last && at.reads(step)) {
      at.fields.add(step)
      return
    }
    const prefix = steps.slice(0, i).map((s) => `${s}.`).join('')
    const relation = at.follows(step)
    if (relation === undefined) unknownField(name, prefix + step, at.candidates().map((c) => prefix + c))
    if (at.depth >= MAX_EMBED_DEPTH) invalidParameter('fields', `fields: '${name}' goes through more than ${MAX_EMBED_DEPTH} relations: an embed is at most two levels deep (customer.region.name).`)
    at = at.child(relation)
    // A relation named last embeds every field the caller may read there.
    if (last) at.all = true
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
    else embeds.push({ kind: 'many', relation, ...read, embeds: nested, parent: asked.access.model, order: relationOrder(relation, access.model), pageSize: relation.pageSize })
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
  const top = new Asked(access, 0, accessOf)
  for (const raw of fieldMaskItems(value)) {
    const name = fieldMaskName(raw)
    if (name === '' || name === 'etag') continue
    ask(top, name)
  }
  return { fields: fieldsOf(top), embeds: embedsOf(top, '', selections, { next: 0 }) }
}
