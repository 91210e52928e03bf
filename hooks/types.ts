// Write hooks run inside the write transaction after the write, one after another. A hook that
// throws rolls the whole write back.
import type { Queryable } from '../lib/db/query.js'
import type { TablegateContext } from '../lib/context.js'

/** What a write does to a resource's record. */
export type RecordWriteOperation = 'create' | 'update' | 'delete' | 'undelete'
/** `revoke-sessions` happens only to `auth.users`: a user's sessions ended, the user unchanged. */
export type WriteOperation = RecordWriteOperation | 'revoke-sessions'

/**
 * A record as stored: every field of the resource's model by field name, whatever the caller may
 * read, with values as records carry them (int8 and decimals as strings, timestamps as ISO text).
 */
export type StoredRecord = Readonly<Record<string, unknown>>

export interface WriteEvent {
  readonly resource: string
  readonly operation: WriteOperation
  /** The record's key as URL text (parts percent-encoded, joined by `,`). */
  readonly key: string
  /** The stored record before the write; undefined on create. */
  readonly before: StoredRecord | undefined
  /** The stored record after the write; undefined after a hard delete. */
  readonly after: StoredRecord | undefined
  /**
   * The tenant the record belongs to: the caller's, or, for staff across tenants (config
   * `allTenants`), the one the write named or touched. Undefined where the resource is kept per no tenant.
   */
  readonly tenant?: string | undefined
  /**
   * The caller: user, tenant, and whatever plugins added. On `auth.users`, `auth.organizations`
   * and `auth.members` changes made on the host (CLI, library calls without `by`) `user` is null.
   */
  readonly ctx: TablegateContext
}

/** `tx` runs queries inside the write's transaction; it is not yours to commit, roll back or release. */
export type WriteHook = (event: WriteEvent, tx: Queryable) => Promise<void> | void

/** Which writes a hook hears of: by default every operation of every resource. */
export interface WriteHookOptions {
  readonly resources?: readonly string[]
  readonly operations?: readonly WriteOperation[]
}
