// `organizations` → the settings the organization store and routes read, checked at startup.
// Organization roles are a namespace of their own: `admin` there is not the service role `admin`.
import { ConfigError } from './validate.js'
import type { Config } from './schema.js'
import type { InvitationHandler } from './functions.js'
import { ROLE_NAME } from './roles.js'

/** The role every organization keeps at least one member in. */
export const OWNER_ROLE = 'owner'
export const DEFAULT_ORGANIZATION_ROLES = [OWNER_ROLE, 'admin', 'member'] as const

export interface OrganizationSettings {
  /** The organization roles, in the configured order. */
  readonly roles: readonly string[]
  readonly creatorRole: string
  readonly allowUserToCreate: boolean
  readonly invitationExpiresIn: number
  readonly onInvitation: InvitationHandler | undefined
  /** Capabilities per organization role, added to the service capabilities while its organization is active. */
  readonly roleCapabilities: Readonly<Record<string, readonly string[]>> | undefined
}

/** Undefined when organizations are off (the key is absent). */
export function organizationSettings (config: Config): OrganizationSettings | undefined {
  const given = config.organizations
  if (given === undefined) return undefined
  // Organizations are the built-in login's: another issuer's tokens carry their own tenant claim.
  if (config.verifier !== undefined) {
    throw new ConfigError('config.organizations: organizations need the built-in login; with config.verifier, the tenant comes from the tokens (verifier.tenantClaim)')
  }
  // The tenant is the caller's active organization: one fixed tenant for everyone would contradict it.
  if (config.tenant !== undefined) {
    throw new ConfigError('config.organizations: the tenant is the caller\'s active organization, so config.tenant (one tenant for every caller) cannot be given with it')
  }
  const roles = given.roles ?? [...DEFAULT_ORGANIZATION_ROLES]
  for (const name of roles) {
    if (!ROLE_NAME.test(name)) throw new ConfigError(`config.organizations.roles: '${name}' is not a valid role name: use lowercase letters, digits, '_' and '-'`)
  }
  const duplicate = roles.find((name, i) => roles.indexOf(name) !== i)
  if (duplicate !== undefined) throw new ConfigError(`config.organizations.roles: '${duplicate}' is listed twice`)
  if (!roles.includes(OWNER_ROLE)) {
    throw new ConfigError(`config.organizations.roles: must include '${OWNER_ROLE}' (the last owner of an organization can be neither removed nor demoted), got ${roles.join(', ')}`)
  }
  const creatorRole = given.creatorRole ?? OWNER_ROLE
  if (!roles.includes(creatorRole)) {
    throw new ConfigError(`config.organizations.creatorRole: '${creatorRole}' is not one of organizations.roles (${roles.join(', ')})`)
  }
  const roleCapabilities = given.roleCapabilities
  if (roleCapabilities !== undefined) {
    // With a role list there are no capabilities to add to: unruled resources are open to every caller.
    if (config.roles === undefined || Array.isArray(config.roles)) {
      throw new ConfigError('config.organizations.roleCapabilities: needs config.roles given as capability bundles ({ role: [capabilities] }), to which the organization role\'s capabilities are added')
    }
    const unknown = Object.keys(roleCapabilities).find((name) => !roles.includes(name))
    if (unknown !== undefined) throw new ConfigError(`config.organizations.roleCapabilities: '${unknown}' is not one of organizations.roles (${roles.join(', ')})`)
  }
  return Object.freeze({
    roles: Object.freeze([...roles]),
    roleCapabilities: roleCapabilities === undefined ? undefined : Object.freeze({ ...roleCapabilities }),
    creatorRole,
    allowUserToCreate: given.allowUserToCreate ?? true,
    invitationExpiresIn: given.invitationExpiresIn ?? 172_800,
    onInvitation: given.onInvitation,
  })
}
