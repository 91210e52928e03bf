// The caller, as every stage sees it: a verified user (id and roles) and a tenant. One type for
// the verifier's answer, the request context, access rules and write hooks.

export interface CallerUser {
  readonly id: string
  readonly roles: readonly string[]
}

export interface Principal {
  readonly user: CallerUser
  readonly tenant?: string | undefined
}
