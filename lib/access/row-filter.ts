// Row filters of access rules → CheckedFilter, the same value the query language produces, so one
// SQL compiler serves both. A rule's filter may name any field of the resource, readable or not,
// and paths through relations (`project.status != "archived"`) by the one resolver
// (lib/query/paths.ts) over the schema as stored: every relation, every field of the target, and
// the target's rows as stored, whatever the caller may read there (the rule is the server's policy,
// as Hasura's relationship permissions are). Such a path reads no other rule, so rules cannot go
// round in a circle. Text filters are checked once per app, model and text (RuleFilters, one per
// app: a checked filter points at its app's models).
import type { ResourceModel } from '../model/types.js'
import { AS_STORED, type CheckedFilter, type QueryModel } from '../query/filter/checked.js'
import type { PathHop, RelationGraph } from '../query/paths.js'
import { checkFilter } from '../query/filter/checker.js'
import { parseFilter } from '../query/filter/parser.js'
import { QuerySyntaxError } from '../query/span.js'
import { BoundedCache } from '../cache.js'
import { sameFilter } from '../query/filter/equal.js'
import { didYouMean } from '../text.js'
import type { AccessPlan, FilterSpec, OperationAccess } from './types.js'

export class AccessRuleError extends Error {
  constructor (message: string) {
    super(message)
    this.name = 'AccessRuleError'
  }
}

function fullModel (model: ResourceModel): QueryModel {
  const fields = new Map([...model.fields.values()].map((f) => [f.name, f]))
  return { resource: model.name, readable: fields, filterable: fields, sortable: fields, searchable: [], trigram: false, cacheKey: `${model.name}\0*` }
}

/** The schema as stored, as a path in a rule walks it: every relation of every resource, every field of its target. */
function storedGraph (models: ReadonlyMap<string, ResourceModel>): RelationGraph {
  const graph = new Map([...models].map(([name, model]) => [name, new Map([...model.relations].flatMap(([relation, declared]): Array<[string, PathHop]> => {
    const target = models.get(declared.target)
    return target === undefined ? [] : [[relation, { relation: declared, target, query: fullModel(target) }]]
  }))]))
  return (resource) => graph.get(resource) ?? new Map()
}

function fromText (model: ResourceModel, text: string, graph: RelationGraph): CheckedFilter {
  let result
  try {
    result = checkFilter(parseFilter(text), fullModel(model), graph, AS_STORED)
  } catch (err) {
    if (err instanceof QuerySyntaxError) throw new AccessRuleError(`access filter of ${model.name} '${text}': ${err.issue.message}`)
    throw err
  }
  if (!result.ok) throw new AccessRuleError(`access filter of ${model.name} '${text}': ${result.issues.map((i) => i.hint === undefined ? i.message : `${i.message} ${i.hint}`).join(' ')}`)
  if (result.filter === undefined) throw new AccessRuleError(`access filter of ${model.name} is empty`)
  return result.filter
}

function fromMap (model: ResourceModel, map: Readonly<Record<string, unknown>>): CheckedFilter {
  const children: CheckedFilter[] = Object.entries(map).map(([name, value]) => {
    const field = model.fields.get(name)
    if (field === undefined) throw new AccessRuleError(`access filter of ${model.name} names '${name}', which is not a field${didYouMean(name, model.fields.keys())}`)
    // An empty list (a caller in no team) matches no row, and so does undefined: a misspelt claim
    // (`ctx.user.org`) must fail closed, never match every row whose column is NULL.
    if (value === undefined || (Array.isArray(value) && value.length === 0)) {
      return { kind: 'and', children: [{ kind: 'null', field, negated: false }, { kind: 'null', field, negated: true }] }
    }
    if (value === null) return { kind: 'null', field, negated: false }
    if (Array.isArray(value)) return { kind: 'in', field, values: value.map((v) => ({ kind: 'value' as const, value: v as string })) }
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
      throw new AccessRuleError(`access filter of ${model.name}: '${name}' must be a string, number, boolean, null or a list`)
    }
    return { kind: 'compare', field, op: '=', value: { kind: 'value', value } }
  })
  if (children.length === 0) throw new AccessRuleError(`access filter of ${model.name} is empty`)
  return children.length === 1 ? children[0]! : { kind: 'and', children }
}

/**
 * Rule filters → checked filters over one app's models; text ones are kept by model and text (maps
 * bind values and are cheap).
 */
export class RuleFilters {
  readonly #texts: BoundedCache<CheckedFilter>
  readonly #graph: RelationGraph

  constructor (models: ReadonlyMap<string, ResourceModel>, max = 1000) {
    this.#texts = new BoundedCache(max)
    this.#graph = storedGraph(models)
  }

  compile (model: ResourceModel, spec: FilterSpec): CheckedFilter {
    if (typeof spec !== 'string') return fromMap(model, spec)
    return this.#texts.getOrCreate(`${model.name}\0${spec}`, () => fromText(model, spec, this.#graph))
  }
}

export function both (a: CheckedFilter | undefined, b: CheckedFilter | undefined): CheckedFilter | undefined {
  if (a === undefined) return b
  if (b === undefined) return a
  return { kind: 'and', children: [a, b] }
}

/** The read rule's row filter: rows outside it do not exist for the caller. */
export function readRows (access: AccessPlan): CheckedFilter | undefined {
  const read = access.operations.read
  return read.allowed ? read.rows : undefined
}

/** The rows a write may touch: rows the caller can read that the operation's own filter allows. */
export function writeRows (access: AccessPlan, operation: OperationAccess & { allowed: true }): CheckedFilter | undefined {
  return both(readRows(access), operation.rows)
}

/** The rows an export streams: rows the caller can read that the export rule's own filter allows. */
export function exportRows (access: AccessPlan): CheckedFilter | undefined {
  const read = readRows(access)
  const exported = access.operations.export
  if (!exported.allowed || sameFilter(exported.rows, read)) return read
  return both(read, exported.rows)
}
