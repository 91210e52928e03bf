// `signUp`, `emailVerification`, `passwordReset`, `passwordPolicy` → the settings the self-service
// account routes read (docs/login.md, "Accounts people manage themselves"), checked at startup.
import { ConfigError } from './validate.js'
import type { Config } from './schema.js'
import type { AccountMailHandler, ExistingUserSignUpHandler } from './functions.js'
import { ADMIN_ROLE, type RoleSetup } from './roles.js'

export interface PasswordPolicy {
  readonly minLength: number
  readonly maxLength: number
}

export const DEFAULT_PASSWORD_POLICY: PasswordPolicy = Object.freeze({ minLength: 12, maxLength: 128 })

export interface AccountSettings {
  readonly signUp: false | 'invitation' | 'open'
  readonly onExistingUserSignUp: ExistingUserSignUpHandler | undefined
  /** Undefined when verification is off. */
  readonly emailVerification: { readonly required: boolean, readonly onSend: AccountMailHandler } | undefined
  /** Undefined when password reset is off. */
  readonly passwordReset: { readonly expiresIn: number, readonly onSend: AccountMailHandler } | undefined
  readonly passwordPolicy: PasswordPolicy
}

export function accountSettings (config: Config, roles: RoleSetup): AccountSettings {
  const policy = { ...DEFAULT_PASSWORD_POLICY, ...config.passwordPolicy }
  if (policy.minLength > policy.maxLength) {
    throw new ConfigError(`config.passwordPolicy: minLength (${policy.minLength}) is more than maxLength (${policy.maxLength})`)
  }
  const signUp = config.signUp ?? false
  if (config.verifier !== undefined && (signUp !== false || config.emailVerification !== undefined || config.passwordReset !== undefined)) {
    throw new ConfigError('config.signUp, emailVerification and passwordReset need the built-in login; with config.verifier, accounts live in the other auth server')
  }
  if (signUp === 'invitation' && config.organizations === undefined) {
    throw new ConfigError('config.signUp: \'invitation\' admits emails holding an organization invitation, so it needs config.organizations (or use \'open\')')
  }
  // Who signs up as an invited address must show it is theirs before answering the invitation.
  if (signUp === 'invitation' && config.emailVerification === undefined) {
    throw new ConfigError('config.signUp: \'invitation\' needs config.emailVerification, so an invitee can show the address is theirs before accepting (anyone could sign up with it)')
  }
  if (signUp !== false && (roles.defaultRole === undefined || roles.defaultRole === ADMIN_ROLE)) {
    throw new ConfigError(`config.signUp: people who sign up get the default role, which must be one besides ${ADMIN_ROLE}: set config.defaultRole (one of ${roles.list.filter((r) => r !== ADMIN_ROLE).join(', ') || 'a role besides admin in config.roles'})`)
  }
  if (config.emailVerification?.required === true && signUp === false) {
    throw new ConfigError('config.emailVerification.required: holds only users who signed up themselves, and config.signUp is false (no one can)')
  }
  return Object.freeze({
    signUp,
    onExistingUserSignUp: config.onExistingUserSignUp,
    emailVerification: config.emailVerification === undefined ? undefined : Object.freeze({ required: config.emailVerification.required ?? false, onSend: config.emailVerification.onSend }),
    passwordReset: config.passwordReset === undefined ? undefined : Object.freeze({ expiresIn: config.passwordReset.expiresIn ?? 3600, onSend: config.passwordReset.onSend }),
    passwordPolicy: Object.freeze(policy),
  })
}
