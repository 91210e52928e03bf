// Keyset page tokens: encrypted and authenticated (AES-256-GCM), so they are opaque — the order
// values they carry may be of fields a caller cannot read — and tamper-proof. Each is bound to the
// list it continues (resource, filter, order, show_deleted: plan/read.ts pageTokenBinding): a
// token replayed with other parameters is refused. A token reads on from a row, forward (the rows
// after it, a list's next page) or backward (the rows before it, a seek's previous page).
//
// A to-many embed's `next_page_token` continues that parent's children as a page of the child's own
// list: it also carries the parent (`r`: resource, relation, key), which the caller cannot forge,
// and the list it opens is those children alone (plan/list.ts).
//
// Each is also bound to the caller's scope (`c`: their shape and tenant, tokenScope below):
// another scope's token is refused as one this server did not issue, so one organization's
// token never turns another's list.
//
// Plaintext versions: v1 `{ s, a }` (forward only, issued before backward pages existed, still
// accepted) and v2 `{ v: 2, s, a, d, r?, c? }` with `d` the direction, `f` or `b`, `r` the parent
// and `c` the scope (tokens issued before scopes have none, and are taken as before).
import { createHash, type KeyObject } from 'node:crypto'
import { invalidParameter } from './params.js'
import { decrypt, encrypt, pooledIvs } from '../crypto.js'
import { BoundedCache } from '../cache.js'

export type PageDirection = 'forward' | 'backward'

/** Where a page starts: the order values (as text, null for NULL) of a row, and which way to read. */
export interface PageCursor {
  readonly direction: PageDirection
  readonly values: readonly (string | null)[]
}

/** The parent whose children a token continues: its resource, the to-many relation and its key's text. */
export interface RelationPage {
  readonly resource: string
  readonly relation: string
  readonly key: string
}

/** What a token holds, before it is checked against the list it is sent to. */
export interface OpenedToken {
  readonly binding: string
  /** The scope of the caller it was issued to; undefined in tokens issued before scopes. */
  readonly scope: string | undefined
  readonly cursor: PageCursor
  readonly parent: RelationPage | undefined
}

export interface PageTokens {
  encode (binding: string, cursor: PageCursor, parent: RelationPage | undefined, scope: string): string
  /** What a token this server issued holds, or a 400 invalid-parameter problem. */
  open (token: string): OpenedToken
  /** The cursor a token carries, or a 400 invalid-parameter problem. */
  decode (binding: string, token: string, scope: string): PageCursor
}

const TOKEN_VERSION = 2
const DIRECTIONS: Readonly<Record<string, PageDirection>> = { f: 'forward', b: 'backward' }

/**
 * The scope a caller's page tokens are bound to: their shape and tenant (the access plan's callerKey), as
 * a short digest, so a token carries no caller's details and stays short.
 */
export function tokenScope (callerKey: string): string {
  return createHash('sha256').update(callerKey).digest('base64url').slice(0, 16)
}

export function notIssued (): never {
  return invalidParameter('page_token', 'page_token is not a token this server issued.')
}

/** The cursor of an opened token sent by a caller of `scope` to the list with this binding, or a 400 invalid-parameter problem. */
export function cursorOf (opened: OpenedToken, binding: string, scope: string): PageCursor {
  if (opened.scope !== undefined && opened.scope !== scope) notIssued()
  if (opened.binding !== binding) {
    invalidParameter('page_token', 'page_token belongs to a list with other parameters: send the same filter, order_by and show_deleted as the first page.')
  }
  return opened.cursor
}

function parentOf (r: unknown): RelationPage | undefined {
  if (!Array.isArray(r) || r.length !== 3 || !r.every((part) => typeof part === 'string')) return undefined
  return { resource: r[0] as string, relation: r[1] as string, key: r[2] as string }
}

export function pageTokens (key: KeyObject): PageTokens {
  // The same page, served again, ends at the same row: its token is reused rather than encrypted
  // anew (7 µs). Only an identical plaintext ever meets its own IV again, which reveals nothing
  // the identical token does not. Tokens that decrypted are kept the same way: a token that
  // fails is never kept, and a changed token is another key.
  // Each holds the last 5,000 tokens and at most 10,000 (lib/cache.ts), from their second use:
  // a page new on every request, or a token a walk presents once, is not kept.
  const issued = new BoundedCache<string>(5_000, { admitOnReuse: true })
  const opened = new BoundedCache<string>(5_000, { admitOnReuse: true })
  const ivs = pooledIvs()
  const open = (token: string): OpenedToken => {
    let body: { v?: unknown, s?: unknown, a?: unknown, d?: unknown, r?: unknown, c?: unknown }
    try {
      body = JSON.parse(opened.getOrCreate(token, () => decrypt(key, `v1.${token}`))) as typeof body
    } catch {
      return notIssued()
    }
    const direction = body.v === undefined ? 'forward' : body.v === TOKEN_VERSION && typeof body.d === 'string' ? DIRECTIONS[body.d] : undefined
    if (direction === undefined || typeof body.s !== 'string' || !Array.isArray(body.a)) return notIssued()
    const parent = body.r === undefined ? undefined : parentOf(body.r)
    if ((body.r !== undefined && parent === undefined) || (body.c !== undefined && typeof body.c !== 'string')) return notIssued()
    return { binding: body.s, scope: body.c as string | undefined, parent, cursor: { direction, values: (body.a as unknown[]).map((v) => v === null ? null : String(v)) } }
  }
  return {
    encode: (binding, cursor, parent, scope) => {
      const r = parent === undefined ? undefined : [parent.resource, parent.relation, parent.key]
      const plaintext = JSON.stringify({ v: TOKEN_VERSION, s: binding, a: cursor.values, d: cursor.direction === 'forward' ? 'f' : 'b', r, c: scope })
      return issued.getOrCreate(plaintext, () => encrypt(key, plaintext, ivs).slice('v1.'.length))
    },
    open,
    decode: (binding, token, scope) => cursorOf(open(token), binding, scope),
  }
}
