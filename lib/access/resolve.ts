// Caller × resource model → AccessPlan. Runs once per request and resource; every route, planner
// and the write pipeline take the plan it returns, so no code path can forget access.
import type { FieldModel, ResourceModel } from '../model/types.js'
import type { QueryModel } from '../query/filter/checked.js'
import type { Principal } from '../principal.js'
import { BoundedCache, type CacheStats } from '../cache.js'
import { NO_ROUTE_DETAIL, problem } from '../problems.js'
import { queryModel } from '../query/query-model.js'
import { tokenScope } from '../query/page-token.js'
import { bundlesNameExport, capabilitiesOf, grantFor } from './capabilities.js'
import { AccessRuleError, RuleFilters } from './row-filter.js'
import { permissionPlans } from './permissions.js'
import { sameFilter } from '../query/filter/equal.js'
import { ALLOWED, DENIED, OPERATIONS, RECORDLESS, recordlessRule, type AccessPlan, type FieldRule, type Operation, type OperationAccess, type Rule, type RuleContext, type RuleOutcome } from './types.js'

export interface AccessSettings {
  /** Capability bundles per role, when roles are configured as bundles. */
  readonly bundles: Readonly<Record<string, readonly string[]>> | undefined
  /** Capabilities per organization role, added to the bundles' while the organization is active. */
  readonly organizationBundles?: Readonly<Record<string, readonly string[]>> | undefined
  readonly defaultAccess: 'allow' | 'deny' | undefined
  /** pg_trgm is installed, so the caller's query model offers similar(). */
  readonly trigram: boolean
  /** The app's checked rule filters. */
  readonly ruleFilters: RuleFilters
  /** Service roles whose callers without a tenant work across every tenant (config `allTenants`). */
  readonly allTenants?: readonly string[] | undefined
}

/** The text that identifies a caller's shape: rules see nothing else of them (the organization's id is the tenant). */
export function callerKey (caller: Principal): string {
  const shape = [caller.user.id, caller.user.roles, caller.tenant ?? null]
  return JSON.stringify(caller.org === undefined ? shape : [...shape, caller.org.roles])
}

/** The service roles' capabilities and, in an organization, those its roles add (an organization's `admin` implies nothing). */
function callerCapabilities (caller: Principal, settings: AccessSettings): readonly string[] | undefined {
  if (settings.bundles === undefined) return undefined
  const held = capabilitiesOf(caller.user.roles, settings.bundles)
  const { org } = caller
  if (org === undefined || settings.organizationBundles === undefined) return held
  return [...new Set([...held, ...org.roles.flatMap((role) => settings.organizationBundles![role] ?? [])])]
}

function hasRole (ctx: RuleContext, roles: readonly string[]): boolean {
  return roles.some((r) => ctx.user.roles.includes(r))
}

function fromOutcome (model: ResourceModel, outcome: RuleOutcome, filters: RuleFilters): OperationAccess {
  if (outcome === true) return ALLOWED
  if (outcome === false) return DENIED
  if (typeof outcome === 'object' && outcome !== null) {
    if ('filter' in outcome) return { allowed: true, rows: filters.compile(model, outcome.filter), check: undefined }
    if ('check' in outcome && typeof outcome.check === 'function') return { allowed: true, rows: undefined, check: outcome.check }
  }
  throw new AccessRuleError(`an access rule of ${model.name} returned something other than true, false, { filter } or { check }`)
}

function fromRule (model: ResourceModel, rule: Rule, ctx: RuleContext, filters: RuleFilters): OperationAccess {
  if (typeof rule === 'boolean') return rule ? ALLOWED : DENIED
  if (Array.isArray(rule)) return hasRole(ctx, rule) ? ALLOWED : DENIED
  if (typeof rule === 'function') {
    try {
      return fromOutcome(model, rule(ctx), filters)
    } catch (err) {
      // Checked on first use: the log names the rule, and every caller it returns this to gets a 500, never a wrong row.
      if (err instanceof AccessRuleError) throw new AccessRuleError(`the ${ctx.operation} rule of ${model.name}: ${err.message}`)
      throw err
    }
  }
  return fromOutcome(model, rule as RuleOutcome, filters)
}

/**
 * Whether two operations' accesses are the same, so that a plan holds one of them. Plans are kept
 * per caller and resource, and a rule that narrows read, update and delete alike (an owner
 * filter) would otherwise hold its filter once for each: about 430 bytes a caller.
 */
function sameAccess (a: OperationAccess, b: OperationAccess): boolean {
  if (a === b) return true
  return a.allowed && b.allowed && a.check === b.check && sameFilter(a.rows, b.rows)
}

function fieldAllowed (rule: FieldRule | undefined, ctx: RuleContext): boolean {
  if (rule === undefined) return true
  if (typeof rule === 'boolean') return rule
  if (Array.isArray(rule)) return hasRole(ctx, rule)
  if (typeof rule === 'function') return rule(ctx) === true
  return false
}

/**
 * Field lists and query models, one of each per distinct set of fields: callers who read the same
 * fields of a resource hold the same arrays and the same query model, where each caller's plan
 * had its own (10,000 callers of one resource held 10,000 copies).
 */
export class SharedShapes {
  readonly #fields = new BoundedCache<readonly FieldModel[]>(1000)
  readonly #queries = new BoundedCache<QueryModel>(1000)

  fields (model: ResourceModel, fields: readonly FieldModel[]): readonly FieldModel[] {
    return this.#fields.getOrCreate(fieldsKey(model, fields), () => fields)
  }

  query (model: ResourceModel, readable: readonly FieldModel[], trigram: boolean): QueryModel {
    return this.#queries.getOrCreate(fieldsKey(model, readable), () => queryModel(model.name, readable, trigram))
  }
}

function fieldsKey (model: ResourceModel, fields: readonly FieldModel[]): string {
  return `${model.name}\0${fields.map((f) => f.name).join(',')}`
}

export function resolveAccess (caller: Principal, model: ResourceModel, settings: AccessSettings, key = callerKey(caller), shared = new SharedShapes()): AccessPlan {
  // Staff across tenants: a role of `allTenants` and no tenant; the roles are in the caller's key, so plans stay per shape.
  const allTenants = caller.tenant === undefined && caller.user.roles.some((role) => settings.allTenants?.includes(role) === true)
  const base = { user: caller.user, tenant: caller.tenant, org: caller.org, resource: model.name, ...(allTenants ? { allTenants } : {}) }
  const rules = (model.access ?? {}) as Partial<Record<Operation, Rule>> & { fields?: Record<string, { read?: FieldRule, write?: FieldRule }>, showDeleted?: FieldRule }
  const capabilities = callerCapabilities(caller, settings)
  const owner = model.owner === undefined ? undefined : model.fields.get(model.owner)

  const accessOf = (operation: Operation): OperationAccess => {
    const ctx: RuleContext = { ...base, operation }
    const rule = operation === 'undelete' ? rules.undelete ?? rules.delete : rules[operation]
    if (rule !== undefined) return fromRule(model, rule, ctx, settings.ruleFilters)
    if (settings.defaultAccess !== undefined) return settings.defaultAccess === 'allow' ? ALLOWED : DENIED
    if (capabilities === undefined) return ALLOWED
    const grant = grantFor(capabilities, model.name, operation)
    // `.own` needs an owner field to compare with the caller's id; without one it grants nothing.
    return grant === 'all' ? ALLOWED : grant === 'own' && owner !== undefined
      ? { allowed: true, rows: settings.ruleFilters.compile(model, { [owner.name]: caller.user.id }), check: undefined }
      : DENIED
  }
  const recordless = (operation: typeof RECORDLESS[number], access: OperationAccess): OperationAccess => {
    if (access.allowed && access.check !== undefined) throw new AccessRuleError(`the ${operation} rule of ${model.name} returned { check }: ${recordlessRule(operation)}`)
    return access
  }
  // Export never reaches past read: denied where read is, its own rule or capability narrowing
  // the read rule's rows; with neither, it is read itself.
  const exportOf = (read: OperationAccess): OperationAccess => {
    if (!read.allowed) return DENIED
    if (rules.export !== undefined) {
      const access = fromRule(model, rules.export, { ...base, operation: 'export' }, settings.ruleFilters)
      return recordless('export', access)
    }
    const ownCapability = settings.defaultAccess === undefined && settings.bundles !== undefined &&
      (bundlesNameExport(settings.bundles, model.name) || bundlesNameExport(settings.organizationBundles ?? {}, model.name))
    return ownCapability ? accessOf('export') : read
  }
  const distinct: OperationAccess[] = []
  const intern = (access: OperationAccess): OperationAccess => {
    const same = distinct.find((other) => sameAccess(other, access))
    if (same !== undefined) return same
    distinct.push(access)
    return access
  }
  const resolve = (operation: Operation): OperationAccess => intern(accessOf(operation))
  const read = resolve('read')
  recordless('read', read)
  // One literal, its properties in the object itself: assigned one by one, the fifth needed an array of its own.
  const operations = { read, create: resolve('create'), update: resolve('update'), delete: resolve('delete'), undelete: resolve('undelete'), export: intern(exportOf(read)) }

  const readCtx: RuleContext = { ...base, operation: 'read' }
  // The tenant column is a field to staff across tenants alone: they read it, and a create names it.
  const readable = shared.fields(model, [...model.fields.values()].filter((f) => f === model.tenantField ? allTenants : fieldAllowed(rules.fields?.[f.name]?.read, readCtx)))
  // Write rules see the operation they decide, so a field may be set on create and never after.
  const writableOn = (operation: 'create' | 'update'): readonly FieldModel[] =>
    shared.fields(model, readable.filter((f) => f === model.tenantField ? operation === 'create' : !f.readOnly && fieldAllowed(rules.fields?.[f.name]?.write, { ...base, operation })))
  const writable = writableOn('update')
  const create = operations.create
  return {
    resource: model.name,
    model,
    visible: OPERATIONS.some((op) => operations[op].allowed),
    operations,
    readable,
    writable,
    writableOnCreate: writableOn('create'),
    showDeleted: model.softDelete !== undefined && read.allowed && fieldAllowed(rules.showDeleted, readCtx),
    query: shared.query(model, readable, settings.trigram),
    permissions: permissionPlans(operations, readable, writable, base),
    ownerField: create.allowed && create.rows !== undefined ? owner : undefined,
    context: base,
    callerKey: key,
    tokenScope: tokenScope(key),
    present: undefined,
  }
}

/**
 * A caller's access to each resource of one app, resolved once per caller shape: rules see only
 * the caller (id, roles, tenant, organization roles), the resource and the operation, so a client's repeated requests
 * resolve nothing again. Undefined for a resource the app does not have.
 */
export class AccessResolver {
  readonly #plans = new BoundedCache<AccessPlan>(10_000)
  readonly #shared = new SharedShapes()
  // Callers' keys by their user object, which the verified-token cache hands out again for each of
  // a token's requests: the key is then written once a token, not once a request.
  readonly #keys = new WeakMap<Principal['user'], { readonly tenant: string | undefined, readonly org: Principal['org'], readonly key: string }>()

  constructor (private readonly models: ReadonlyMap<string, ResourceModel>, private readonly settings: AccessSettings) {}

  /** The plan cache's lookups, for metrics. */
  get cache (): CacheStats {
    return this.#plans
  }

  /** The caller's key (callerKey), remembered with their user object. */
  keyOf (caller: Principal): string {
    const known = this.#keys.get(caller.user)
    if (known !== undefined && known.tenant === caller.tenant && known.org === caller.org) return known.key
    const key = callerKey(caller)
    this.#keys.set(caller.user, { tenant: caller.tenant, org: caller.org, key })
    return key
  }

  plan (caller: Principal, key: string, resource: string): AccessPlan | undefined {
    const model = this.models.get(resource)
    if (model === undefined) return undefined
    return this.#plans.getOrCreate(`${resource}\0${key}`, () => {
      const plan = resolveAccess(caller, model, this.settings, key, this.#shared)
      if (model.present === undefined) return plan
      // Rows that hold other resources' records show the caller what they may read of each.
      return { ...plan, present: model.present((other) => this.#readableFields(caller, key, other)) }
    })
  }

  #readableFields (caller: Principal, key: string, resource: string): ReadonlySet<string> | undefined {
    const plan = this.plan(caller, key, resource)
    return plan?.operations.read.allowed === true ? new Set(plan.readable.map((f) => f.name)) : undefined
  }
}

/** `request.ctx.access` of a verified caller: its plan of each resource; a resource the app does not have is the unknown-route 404. */
export function callerAccess (resolver: AccessResolver, caller: Principal): (resource: string) => AccessPlan {
  const key = resolver.keyOf(caller)
  return (resource) => {
    const plan = resolver.plan(caller, key, resource)
    if (plan === undefined) throw problem('not-found', NO_ROUTE_DETAIL)
    return plan
  }
}
