// Startup check of every name the access config gives: fields of `access.fields` and of rule
// filters, roles of rule lists, resources and operations of capability bundles, resources of
// `rowPermissions.except`. A typo here is a security hole, not a style issue (a misspelt field
// rule protects nothing), so each one fails the start, naming its config path and the nearest name.
import type { ResourceModel } from '../model/types.js'
import type { RoleSetup } from '../config/roles.js'
import type { Config } from '../config/schema.js'
import { ConfigError } from '../config/validate.js'
import { didYouMean } from '../text.js'
import { AccessRuleError, type RuleFilters } from './row-filter.js'
import { OPERATIONS, RECORDLESS, recordlessRule, type FieldRule, type FilterSpec, type Rule } from './types.js'

function roleIssues (path: string, rule: unknown, roles: readonly string[]): string[] {
  if (!Array.isArray(rule)) return []
  return rule.filter((role) => !roles.includes(role as string))
    .map((role) => `${path}: role '${String(role)}' is not in the role list (${roles.join(', ')})${didYouMean(String(role), roles)}`)
}

function ruleIssues (path: string, model: ResourceModel, rule: Rule | undefined, roles: readonly string[], filters: RuleFilters): string[] {
  if (Array.isArray(rule)) return roleIssues(path, rule, roles)
  if (typeof rule !== 'object' || rule === null || !('filter' in rule)) return []
  try {
    filters.compile(model, (rule as { readonly filter: FilterSpec }).filter)
    return []
  } catch (err) {
    if (err instanceof AccessRuleError) return [`${path}.filter: ${err.message}`]
    throw err
  }
}

function resourceIssues (model: ResourceModel, roles: readonly string[], filters: RuleFilters): string[] {
  const path = `config.resources.${model.name}.access`
  const access = model.access
  if (access === undefined) return []
  const issues = OPERATIONS.flatMap((op) => ruleIssues(`${path}.${op}`, model, access[op], roles, filters))
  for (const op of RECORDLESS) {
    const rule = access[op]
    if (typeof rule === 'object' && rule !== null && 'check' in rule) issues.push(`${path}.${op}: ${recordlessRule(op)}`)
  }
  issues.push(...roleIssues(`${path}.showDeleted`, access.showDeleted, roles))
  for (const [name, rules] of Object.entries(access.fields ?? {})) {
    const fieldPath = `${path}.fields.${name}`
    if (!model.fields.has(name)) issues.push(`${fieldPath}: '${name}' is not a field of ${model.name}${didYouMean(name, model.fields.keys())}`)
    for (const kind of ['read', 'write'] as const) issues.push(...roleIssues(`${fieldPath}.${kind}`, rules[kind] satisfies FieldRule | undefined, roles))
  }
  return issues
}

/** `tasks.update.own`, `*.read`, `*`: the target, operation and scope each name something that exists. */
function capabilityIssues (path: string, capability: string, models: ReadonlyMap<string, ResourceModel>): string[] {
  if (capability === '*') return []
  const parts = capability.split('.')
  const [target = '', op, scope] = parts
  const explain = "a capability is '*', 'resource.*', 'resource.operation' or 'resource.operation.own' ('*' for every resource)"
  if (parts.length < 2 || parts.length > 3) return [`${path}: '${capability}' is not a capability: ${explain}`]
  const issues: string[] = []
  const model = models.get(target)
  if (target !== '*' && model === undefined) {
    issues.push(`${path}: '${capability}' names resource '${target}', which does not exist${didYouMean(target, models.keys())}`)
  }
  if (op !== '*' && !OPERATIONS.includes(op as never)) {
    issues.push(`${path}: '${capability}' names operation '${op}', which does not exist (${OPERATIONS.join(', ')} or '*')${didYouMean(op ?? '', OPERATIONS)}`)
  }
  if (scope !== undefined && scope !== 'own') {
    issues.push(`${path}: '${capability}' has scope '${scope}': the only scope is 'own'${didYouMean(scope, ['own'])}`)
  } else if (scope === 'own' && model !== undefined && model.owner === undefined) {
    issues.push(`${path}: '${capability}' grants nothing: ${target} has no owner field (set config.resources.${target}.owner)`)
  }
  return issues
}

/** Every naming mistake of the access config, as messages naming their config paths. */
export function accessConfigIssues (config: Config, models: ReadonlyMap<string, ResourceModel>, roles: RoleSetup, filters: RuleFilters): string[] {
  const issues = [...models.values()].flatMap((model) => resourceIssues(model, roles.list, filters))
  for (const [role, bundle] of Object.entries(roles.bundles ?? {})) {
    bundle.forEach((capability, i) => { issues.push(...capabilityIssues(`config.roles.${role}[${i}]`, capability, models)) })
  }
  for (const [role, bundle] of Object.entries(config.organizations?.roleCapabilities ?? {})) {
    bundle.forEach((capability, i) => { issues.push(...capabilityIssues(`config.organizations.roleCapabilities.${role}[${i}]`, capability, models)) })
  }
  // Service roles only: an organization role never lifts the tenant it is a role in.
  issues.push(...roleIssues('config.allTenants', config.allTenants, roles.list))
  const except = typeof config.rowPermissions === 'object' ? config.rowPermissions.except : []
  except.forEach((name, i) => {
    if (!models.has(name)) issues.push(`config.rowPermissions.except[${i}]: resource '${name}' does not exist${didYouMean(name, models.keys())}`)
  })
  return issues
}

/** Throws one ConfigError listing every naming mistake of the access config. */
export function checkAccessConfig (config: Config, models: ReadonlyMap<string, ResourceModel>, roles: RoleSetup, filters: RuleFilters): void {
  const issues = accessConfigIssues(config, models, roles, filters)
  if (issues.length > 0) throw new ConfigError(`invalid config: ${issues.join('; ')}`)
}
