// The caller, as every stage sees it: a verified user (id and roles), a tenant and, with
// organizations, the active organization (whose id is then the tenant). One type for
// the verifier's answer, the request context, access rules and write hooks.

export interface CallerUser {
  readonly id: string
  readonly roles: readonly string[]
}

/** The caller's active organization, from the token's signed `org` claim: its id and the member's organization roles. */
export interface CallerOrganization {
  readonly id: string
  /** The organization role as stored (one role, or several comma separated). */
  readonly role: string
  readonly roles: readonly string[]
}

export interface Principal {
  readonly user: CallerUser
  readonly tenant?: string | undefined
  /** Only with organizations; `tenant` is then its id. */
  readonly org?: CallerOrganization | undefined
}
