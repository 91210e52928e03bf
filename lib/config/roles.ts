// Role list rules: `admin` always present and first, name syntax, the default role for new users,
// and parsing of a comma separated role string against the list.

export const ADMIN_ROLE = 'admin'
export const ROLE_NAME = /^[a-z0-9_-]+$/

export interface RoleSetup {
  /** Every configured role, `admin` first. */
  readonly list: readonly string[]
  /** The role a new user gets when none is given; undefined when one must be chosen. */
  readonly defaultRole: string | undefined
  /** Capability bundles per role, when roles were configured as bundles. */
  readonly bundles: Readonly<Record<string, readonly string[]>> | undefined
}

export class RoleError extends Error {
  /** True when no role was given and one must be chosen; false when a given role is outside the list. */
  readonly missing: boolean
  constructor (message: string, missing = false) {
    super(message)
    this.name = 'RoleError'
    this.missing = missing
  }
}

/** Builds the role setup from `roles` and `defaultRole`; throws a RoleError naming the bad value. */
export function roleSetup (roles: readonly string[] | Readonly<Record<string, readonly string[]>> | undefined, defaultRole: string | undefined): RoleSetup {
  const configured = roles === undefined ? [ADMIN_ROLE, 'user'] : Array.isArray(roles) ? [...roles] : Object.keys(roles)
  const bundles = roles !== undefined && !Array.isArray(roles) ? roles as Record<string, readonly string[]> : undefined
  for (const name of configured) {
    if (!ROLE_NAME.test(name)) {
      throw new RoleError(`role '${name}' is not a valid role name: use lowercase letters, digits, '_' and '-'`)
    }
  }
  const list = [ADMIN_ROLE, ...new Set(configured.filter((r) => r !== ADMIN_ROLE))]
  const others = list.slice(1)
  if (defaultRole !== undefined && !list.includes(defaultRole)) {
    throw new RoleError(`defaultRole '${defaultRole}' is not in the role list (${list.join(', ')})`)
  }
  return {
    list,
    defaultRole: defaultRole ?? (others.length === 1 ? others[0] : undefined),
    bundles,
  }
}

/** Splits a comma separated role string (or list) into roles, refusing any outside the list. */
export function parseRoles (setup: RoleSetup, input: string | readonly string[]): string[] {
  const parts = (typeof input === 'string' ? input.split(',') : input).map((r) => r.trim()).filter((r) => r !== '')
  if (parts.length === 0) throw new RoleError(`a role is required: choose from ${setup.list.join(', ')}`, true)
  const outside = parts.filter((r) => !setup.list.includes(r))
  if (outside.length > 0) {
    throw new RoleError(`role '${outside.join(',')}' is not in the role list: choose from ${setup.list.join(', ')}`)
  }
  return [...new Set(parts)]
}

/** True when no role was given: absent, blank, or an empty list. */
export function noRoleGiven (given: string | readonly string[] | undefined): boolean {
  return given === undefined || (typeof given === 'string' ? given.trim() === '' : given.length === 0)
}

/** The roles of a new user: the given ones, else the default role, else an error listing the choices. */
export function rolesForNewUser (setup: RoleSetup, given: string | readonly string[] | undefined): string[] {
  if (!noRoleGiven(given)) return parseRoles(setup, given!)
  if (setup.defaultRole !== undefined) return [setup.defaultRole]
  // The roles besides admin are the real choice; with admin alone, admin is the only one.
  const choices = setup.list.length > 1 ? setup.list.slice(1) : setup.list
  throw new RoleError(`a role is required (no default role): choose from ${choices.join(', ')}`, true)
}

/** Roles as stored and carried in the `role` claim: a comma separated string. */
export function formatRoles (roles: readonly string[]): string {
  return roles.join(',')
}

export function rolesOf (stored: string): string[] {
  return stored.split(',').map((r) => r.trim()).filter((r) => r !== '')
}
