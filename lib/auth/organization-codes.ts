// The refusals of the organization routes: better-auth 1.7's organization plugin codes, messages and
// statuses (error-codes.ts there), as problems, so its client reads them as it reads its own server's.
import type { Problem } from '../problems.js'
import { authProblem } from './login.js'
import { OrganizationStoreError } from './organization-core.js'

const MESSAGES = {
  YOU_ARE_NOT_ALLOWED_TO_CREATE_A_NEW_ORGANIZATION: 'You are not allowed to create a new organization',
  ORGANIZATION_ALREADY_EXISTS: 'Organization already exists',
  ORGANIZATION_SLUG_ALREADY_TAKEN: 'Organization slug already taken',
  ORGANIZATION_NOT_FOUND: 'Organization not found',
  USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION: 'User is not a member of the organization',
  YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_ORGANIZATION: 'You are not allowed to update this organization',
  YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_ORGANIZATION: 'You are not allowed to delete this organization',
  NO_ACTIVE_ORGANIZATION: 'No active organization',
  MEMBER_NOT_FOUND: 'Member not found',
  ROLE_NOT_FOUND: 'Role not found',
  YOU_CANNOT_LEAVE_THE_ORGANIZATION_AS_THE_ONLY_OWNER: 'You cannot leave the organization as the only owner',
  YOU_CANNOT_LEAVE_THE_ORGANIZATION_WITHOUT_AN_OWNER: 'You cannot leave the organization without an owner',
  YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_MEMBER: 'You are not allowed to delete this member',
  YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_MEMBER: 'You are not allowed to update this member',
  YOU_ARE_NOT_A_MEMBER_OF_THIS_ORGANIZATION: 'You are not a member of this organization',
  USER_IS_ALREADY_A_MEMBER_OF_THIS_ORGANIZATION: 'User is already a member of this organization',
  YOU_ARE_NOT_ALLOWED_TO_INVITE_USERS_TO_THIS_ORGANIZATION: 'You are not allowed to invite users to this organization',
  YOU_ARE_NOT_ALLOWED_TO_INVITE_USER_WITH_THIS_ROLE: 'You are not allowed to invite a user with this role',
  USER_IS_ALREADY_INVITED_TO_THIS_ORGANIZATION: 'User is already invited to this organization',
  INVITATION_LIMIT_REACHED: 'Invitation limit reached',
  INVITATION_NOT_FOUND: 'Invitation not found',
  YOU_ARE_NOT_THE_RECIPIENT_OF_THE_INVITATION: 'You are not the recipient of the invitation',
  YOU_ARE_NOT_ALLOWED_TO_CANCEL_THIS_INVITATION: 'You are not allowed to cancel this invitation',
  YOU_ARE_NOT_ALLOWED_TO_LIST_INVITATIONS: 'You are not allowed to list invitations for this organization',
  INVITER_IS_NO_LONGER_A_MEMBER_OF_THE_ORGANIZATION: 'Inviter is no longer a member of the organization',
  EMAIL_VERIFICATION_REQUIRED_BEFORE_ACCEPTING_OR_REJECTING_INVITATION: 'Email verification required before accepting or rejecting invitation',
  EMAIL_VERIFICATION_REQUIRED_FOR_INVITATION: 'Email verification required to view or list invitations for the session email',
} as const

export type OrganizationCode = keyof typeof MESSAGES

/** A refusal with better-auth's status: 400 (the request names nothing the caller may act on) or 403. */
export function orgRefusal (status: 400 | 403, code: OrganizationCode, message: string = MESSAGES[code]): Problem {
  return authProblem(status === 400 ? 'invalid-record' : 'access-denied', code, message)
}

export function signInRequired (): Problem {
  return authProblem('unauthenticated', 'UNAUTHORIZED', 'Sign in first: no valid session cookie was sent.')
}

/** An input the store refuses by its form (name, slug, logo, metadata, role): a VALIDATION_ERROR naming the field. */
export function invalidInput (err: OrganizationStoreError): Problem {
  return authProblem('invalid-record', 'VALIDATION_ERROR', err.message, {
    errors: [{ field: err.field ?? 'body', code: err.code, message: err.message }],
  })
}

/** Runs a check of the input's form, turning the store's refusal into a VALIDATION_ERROR. */
export function checked<T> (check: () => T): T {
  try {
    return check()
  } catch (err) {
    if (err instanceof OrganizationStoreError) throw invalidInput(err)
    throw err
  }
}
