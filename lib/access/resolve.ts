// Caller × resource model → AccessPlan. Runs once per request and resource; every route, planner
// and the write pipeline take the plan it returns, so no code path can forget access.
import type { ResourceModel } from '../model/types.js'
import { capabilitiesOf, grantFor } from './capabilities.js'
import { AccessRuleError, compileRowFilter } from './row-filter.js'
import { OPERATIONS, type AccessPlan, type FieldRule, type Operation, type OperationAccess, type Rule, type RuleContext, type RuleOutcome } from './types.js'

export interface AccessSettings {
  /** Capability bundles per role, when roles are configured as bundles. */
  readonly bundles: Readonly<Record<string, readonly string[]>> | undefined
  readonly defaultAccess: 'allow' | 'deny' | undefined
}

export interface Caller {
  readonly user: { readonly id: string, readonly roles: readonly string[] }
  readonly tenant: string | undefined
}

/** The text that identifies a caller's shape: rules see nothing else of them. */
export function callerKey (caller: Caller): string {
  return JSON.stringify([caller.user.id, caller.user.roles, caller.tenant ?? null])
}

const DENIED: OperationAccess = { allowed: false }
const ALLOWED: OperationAccess = { allowed: true, rows: undefined, check: undefined }

function hasRole (ctx: RuleContext, roles: readonly string[]): boolean {
  return roles.some((r) => ctx.user.roles.includes(r))
}

function fromOutcome (model: ResourceModel, outcome: RuleOutcome): OperationAccess {
  if (outcome === true) return ALLOWED
  if (outcome === false) return DENIED
  if (typeof outcome === 'object' && outcome !== null) {
    if ('filter' in outcome) return { allowed: true, rows: compileRowFilter(model, outcome.filter), check: undefined }
    if ('check' in outcome && typeof outcome.check === 'function') return { allowed: true, rows: undefined, check: outcome.check }
  }
  throw new AccessRuleError(`an access rule of ${model.name} returned something other than true, false, { filter } or { check }`)
}

function fromRule (model: ResourceModel, rule: Rule, ctx: RuleContext): OperationAccess {
  if (typeof rule === 'boolean') return rule ? ALLOWED : DENIED
  if (Array.isArray(rule)) return hasRole(ctx, rule) ? ALLOWED : DENIED
  if (typeof rule === 'function') return fromOutcome(model, rule(ctx))
  return fromOutcome(model, rule as RuleOutcome)
}

function fieldAllowed (rule: FieldRule | undefined, ctx: RuleContext): boolean {
  if (rule === undefined) return true
  if (typeof rule === 'boolean') return rule
  if (Array.isArray(rule)) return hasRole(ctx, rule)
  if (typeof rule === 'function') return rule(ctx) === true
  return false
}

export function resolveAccess (caller: Caller, model: ResourceModel, settings: AccessSettings, key = callerKey(caller)): AccessPlan {
  const base = { user: caller.user, tenant: caller.tenant, resource: model.name }
  const rules = (model.access ?? {}) as Partial<Record<Operation, Rule>> & { fields?: Record<string, { read?: FieldRule, write?: FieldRule }> }
  const capabilities = settings.bundles === undefined ? undefined : capabilitiesOf(caller.user.roles, settings.bundles)
  const owner = model.owner === undefined ? undefined : model.fields.get(model.owner)

  const operations = {} as Record<Operation, OperationAccess>
  for (const operation of OPERATIONS) {
    const ctx: RuleContext = { ...base, operation }
    const rule = operation === 'undelete' ? rules.undelete ?? rules.delete : rules[operation]
    if (rule !== undefined) {
      operations[operation] = fromRule(model, rule, ctx)
    } else if (settings.defaultAccess !== undefined) {
      operations[operation] = settings.defaultAccess === 'allow' ? ALLOWED : DENIED
    } else if (capabilities !== undefined) {
      const grant = grantFor(capabilities, model.name, operation)
      // `.own` needs an owner field to compare with the caller's id; without one it grants nothing.
      operations[operation] = grant === 'all' ? ALLOWED : grant === 'own' && owner !== undefined
        ? { allowed: true, rows: compileRowFilter(model, { [owner.name]: caller.user.id }), check: undefined }
        : DENIED
    } else {
      operations[operation] = ALLOWED
    }
  }

  const readCtx: RuleContext = { ...base, operation: 'read' }
  const writeCtx: RuleContext = { ...base, operation: 'update' }
  const readable = [...model.fields.values()].filter((f) => fieldAllowed(rules.fields?.[f.name]?.read, readCtx))
  const writable = readable.filter((f) => !f.readOnly && fieldAllowed(rules.fields?.[f.name]?.write, writeCtx))
  const create = operations.create
  return {
    resource: model.name,
    visible: OPERATIONS.some((op) => operations[op].allowed),
    operations,
    readable,
    writable,
    ownerField: create.allowed && create.rows !== undefined ? owner : undefined,
    context: base,
    callerKey: key,
  }
}
