// Access rules as a config writes them, and what they see of the caller: the types users give
// `defineConfig`. Access resolution (lib/access) turns them into AccessPlans.
import type { CallerOrganization, CallerUser } from '../principal.js'

export type Operation = 'read' | 'create' | 'update' | 'delete' | 'undelete' | 'export'

/**
 * What rules see of the caller. `operation` is the one being decided; a field's `write` rule sees
 * `create` or `update`, its `read` rule and the `showDeleted` rule see `read`.
 */
export interface RuleContext {
  readonly user: CallerUser
  readonly tenant: string | undefined
  /** The active organization and the caller's organization roles in it (organizations only; `tenant` is its id). */
  readonly org?: CallerOrganization | undefined
  /** The caller works across every tenant: a role of `allTenants`, and no tenant of their own. */
  readonly allTenants?: boolean | undefined
  readonly resource: string
  readonly operation: Operation
}

/** An equality map (`{ owner_id: ctx.user.id }`, values bound as parameters) or AIP-160 text. */
export type FilterSpec = Readonly<Record<string, unknown>> | string

export type RecordCheck = (record: Readonly<Record<string, unknown>>, ctx: RuleContext) => boolean | { filter: FilterSpec } | Promise<boolean | { filter: FilterSpec }>

export type RuleOutcome = boolean | { readonly filter: FilterSpec } | { readonly check: RecordCheck }

export type Rule = boolean | readonly string[] | ((ctx: RuleContext) => RuleOutcome) | { readonly filter: FilterSpec } | { readonly check: RecordCheck }

export type FieldRule = boolean | readonly string[] | ((ctx: RuleContext) => boolean)
