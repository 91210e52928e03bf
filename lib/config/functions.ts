// The types of the functions a config holds besides access rules (those are in access/types.ts).
// TypeBox checks only that each is a function; these give them their signatures.
import type { FastifyPluginAsync, FastifyPluginCallback, FastifyPluginOptions, FastifyRequest } from 'fastify'
import type { Operation, RuleContext } from './rules.js'

/** What a resource's `validate` sees of the write: the caller as rules see them, and the operation. */
export interface ValidateContext {
  readonly user: RuleContext['user']
  readonly tenant: string | undefined
  readonly operation: Extract<Operation, 'create' | 'update'>
}

/** One problem `validate` finds; `code` defaults to `invalid`. */
export interface ValidationIssue {
  readonly field: string
  readonly code?: string
  readonly message: string
}

/** A resource's own check of a record being created or updated: no issues means valid. */
export type RecordValidator = (record: Readonly<Record<string, unknown>>, ctx: ValidateContext) =>
  readonly ValidationIssue[] | Promise<readonly ValidationIssue[]>

/** Called for every 500, after it is logged; what it throws is logged too, never answered. */
export type UnhandledErrorHandler = (err: unknown, request: FastifyRequest) => void

// `any` options: one config array cannot tie each plugin to the type of the options beside it.
type Plugin = FastifyPluginAsync<any> | FastifyPluginCallback<any>

/** A Fastify plugin registered after tablegate, with or without options. */
export type PluginEntry = Plugin | [plugin: Plugin, options: FastifyPluginOptions]

/** What `organizations.onInvitation` is given: the invitation, to send to its email. */
export interface InvitationNotice {
  readonly id: string
  readonly email: string
  readonly role: string
  readonly organization: { readonly id: string, readonly name: string, readonly slug: string }
  /** Who invited; null when the inviter's account is gone. */
  readonly inviter: { readonly id: string, readonly email: string, readonly name: string } | null
  readonly expiresAt: Date
}

/** Hands a new invitation to the app: tablegate sends no mail. */
export type InvitationHandler = (invitation: InvitationNotice) => void | Promise<void>

/** What an account mail hook (`emailVerification.onSend`, `passwordReset.onSend`) is given: the link to send to the user. */
export interface AccountMail {
  /** The user as the login routes show them (better-auth's user); `email` is the address to write to. */
  readonly user: { readonly id: string, readonly email: string, readonly name: string }
  /** The link to put in the mail: it carries `token`. */
  readonly url: string
  readonly token: string
}

/** Hands an account mail to the app: tablegate sends no mail. */
export type AccountMailHandler = (mail: AccountMail) => void | Promise<void>

/** Told when a sign-up names an email that already has an account (whose owner the app may warn). */
export type ExistingUserSignUpHandler = (notice: { readonly user: AccountMail['user'] }) => void | Promise<void>
