// Capabilities nothing consults. With bundled roles, an operation with a rule of its own never
// looks at the bundles (an explicit rule replaces the capabilities for its operation), and
// `defaultAccess` replaces them for every operation without a rule: a bundle's entry can then
// grant nothing while it reads as if it did. The start and `tablegate check` warn of each.
import type { ResourceModel } from '../model/types.js'
import type { RoleSetup } from '../config/roles.js'
import { bundlesNameExport } from './capabilities.js'
import { OPERATIONS, type Operation } from './types.js'

/** The key in `access` of the rule that decides an operation instead of the bundles; undefined when the bundles decide it. */
function decidingRule (model: ResourceModel, operation: Operation, bundles: Readonly<Record<string, readonly string[]>>): string | undefined {
  const access = model.access ?? {}
  if (access[operation] !== undefined) return operation
  if (operation === 'undelete' && access.delete !== undefined) return 'delete'
  // Export follows read until a bundle names export for the resource.
  if (operation === 'export' && !bundlesNameExport(bundles, model.name)) return decidingRule(model, 'read', bundles)
  return undefined
}

/** One warning for each capability of a bundle that every operation it names decides by a rule. */
export function shadowedCapabilities (models: ReadonlyMap<string, ResourceModel>, roles: RoleSetup, defaultAccess: 'allow' | 'deny' | undefined): string[] {
  const { bundles } = roles
  if (bundles === undefined) return []
  if (defaultAccess !== undefined) {
    return [`config.defaultAccess: '${defaultAccess}' decides every operation without a rule, so the capabilities of config.roles grant nothing: leave defaultAccess out, or give the rules it would decide`]
  }
  const warnings: string[] = []
  for (const [role, bundle] of Object.entries(bundles)) {
    bundle.forEach((capability, i) => {
      const [target, op = '*'] = capability.split('.')
      const resources = target === '*' ? [...models.values()] : [models.get(target ?? '')].filter((m) => m !== undefined)
      const operations = op === '*' ? OPERATIONS : OPERATIONS.filter((o) => o === op)
      // A name that does not exist is a config error of its own (check-config.ts).
      if (resources.length === 0 || operations.length === 0) return
      const rules = resources.flatMap((model) => operations.map((operation) => {
        const rule = decidingRule(model, operation, bundles)
        return rule === undefined ? undefined : `config.resources.${model.name}.access.${rule}`
      }))
      if (rules.includes(undefined)) return
      const deciding = [...new Set(rules)]
      warnings.push(`config.roles.${role}[${i}]: '${capability}' grants nothing: ${deciding.length === 1 ? `the rule ${deciding[0]!} decides` : `the rules ${deciding.join(', ')} decide`} instead (an explicit rule replaces the capabilities for its operation). Remove the entry, or the rule.`)
    })
  }
  return warnings
}
