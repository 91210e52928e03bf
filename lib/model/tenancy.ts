// Tenancy through relations (`tenant: { through: 'task.project' }`, docs/access.md "Tenants"): a
// resource whose table has no tenant column belongs to the tenant of the row its to-one relations
// lead to. Settled once every relation is known: each step must be a to-one relation, the path
// must end at a resource kept per tenant (by a column, or through relations of its own, followed
// on), at most two relations in all, and never round in a circle. Every mistake fails the start,
// naming its config path.
import { ConfigError } from '../config/validate.js'
import type { ResourceConfig } from '../config/schema.js'
import { didYouMean } from '../text.js'
import type { ResourceModel, Tenancy, TenantHop } from './types.js'

/** Relations a tenancy may go through, as a request's path may (lib/query/paths.ts). */
const MAX_TENANT_HOPS = 2

function throughOf (config: ResourceConfig | undefined): string | undefined {
  return typeof config?.tenant === 'object' ? config.tenant.through : undefined
}

/** The hops `through` names from `model`, followed on where it ends at a resource kept per tenant through relations too. */
function resolve (model: ResourceModel, models: ReadonlyMap<string, ResourceModel>, resources: Readonly<Record<string, ResourceConfig>>, visiting: readonly string[]): { hops: TenantHop[], column: string } {
  const path = `config.resources.${model.name}.tenant.through`
  const through = throughOf(resources[model.name])!
  const hops: TenantHop[] = []
  let at = model
  for (const step of through.split('.')) {
    const relation = at.relations.get(step)
    const toOne = [...at.relations.values()].filter((r) => r.kind === 'one').map((r) => r.name)
    if (relation === undefined) {
      throw new ConfigError(`${path}: '${through}': ${at.name} has no relation '${step}'${didYouMean(step, toOne) || (toOne.length === 0 ? ' (it declares no to-one relation: add one under relations)' : ` (its to-one relations: ${toOne.join(', ')})`)}`)
    }
    if (relation.kind !== 'one') throw new ConfigError(`${path}: '${through}': ${at.name}.${step} is a to-many relation: a tenant is read through to-one relations (a child's reference to its parent)`)
    const target = models.get(relation.target)!
    hops.push({ relation: step, column: relation.field.column, target: target.name, table: target.table, key: target.key[0]!.column })
    at = target
  }
  if (at.tenant !== undefined) return check(path, through, hops, at.tenant)
  if (throughOf(resources[at.name]) === undefined) {
    throw new ConfigError(`${path}: '${through}' leads to ${at.name}, which is not kept per tenant: give ${at.name} a tenant column (tenant: 'org_id') or a tenant through its own parent`)
  }
  if (visiting.includes(at.name)) throw new ConfigError(`${path}: tenants through relations go round in a circle: ${[...visiting, at.name].join(' → ')}`)
  const further = resolve(at, models, resources, [...visiting, at.name])
  return check(path, through, [...hops, ...further.hops], further.column)
}

function check (path: string, through: string, hops: TenantHop[], column: string): { hops: TenantHop[], column: string } {
  if (hops.length > MAX_TENANT_HOPS) {
    throw new ConfigError(`${path}: '${through}' reaches the tenant column through ${hops.length} relations (${hops.map((h) => h.relation).join('.')}): at most ${MAX_TENANT_HOPS}`)
  }
  return { hops, column }
}

/** Each model whose config says `tenant: { through }` with its tenancy settled. */
export function withTenancy (models: ReadonlyMap<string, ResourceModel>, resources: Readonly<Record<string, ResourceConfig>>): Map<string, ResourceModel> {
  return new Map([...models].map(([name, model]) => {
    const through = throughOf(resources[name])
    if (through === undefined) return [name, model]
    const { hops, column } = resolve(model, models, resources, [name])
    const tenancy: Tenancy = { kind: 'through', path: hops.map((h) => h.relation).join('.'), hops, column }
    return [name, Object.freeze({ ...model, tenancy })]
  }))
}

const INTEGER_RANGE: Readonly<Record<string, bigint>> = { int2: 32_767n, int4: 2_147_483_647n, int8: 9_223_372_036_854_775_807n }
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

/**
 * Whether a tenant (an organization id, a claim: text) is a value of the tenant column, written as
 * the column writes it. Compared in the column's own type, '042' would be 42 and an upper-case
 * uuid its lower-case one: another tenant's rows. A tenant that is no such value matches no row.
 */
export function fitsTenantColumn (tenancy: Tenancy, tenant: string): boolean {
  const type = tenancy.columnType
  if (type === undefined) return true
  const max = INTEGER_RANGE[type]
  if (max !== undefined) return /^-?(0|[1-9][0-9]{0,18})$/.test(tenant) && BigInt(tenant) <= max && BigInt(tenant) >= -max - 1n
  if (type === 'uuid') return UUID.test(tenant)
  return true
}

/** Each model with its tenant column's type, read from the introspected table that holds it. */
export function withTenantTypes (models: ReadonlyMap<string, ResourceModel>, typeOf: (resource: string, column: string) => string | undefined): Map<string, ResourceModel> {
  return new Map([...models].map(([name, model]) => {
    const { tenancy } = model
    if (tenancy === undefined) return [name, model]
    const holder = tenancy.kind === 'column' ? name : tenancy.hops.at(-1)!.target
    return [name, Object.freeze({ ...model, tenancy: { ...tenancy, columnType: typeOf(holder, tenancy.column) } })]
  }))
}
