// Where a reader of the change log stands, and the resume tokens that carry it. A position is a
// change's (transaction id, id): every change after it in that order is still to come. Tokens are
// encrypted and authenticated like page tokens (transaction ids say how busy the database is, which
// is no caller's business) and bound to their resource; each also says when it was issued, so a
// token older than the retention is refused even where pruning has not yet caught up with it.
import { createHmac, type KeyObject } from 'node:crypto'
import { decrypt, encrypt, pooledIvs } from '../crypto.js'
import { invalidParameter } from '../query/params.js'

export interface Position {
  readonly tx: bigint
  readonly id: bigint
}

export const ORIGIN: Position = { tx: 0n, id: 0n }

export function compare (a: Position, b: Position): number {
  if (a.tx !== b.tx) return a.tx < b.tx ? -1 : 1
  if (a.id !== b.id) return a.id < b.id ? -1 : 1
  return 0
}

/**
 * Where a reader resumes: after `position`; or, after an event in the middle of a window, first
 * the rest of the window (`from`, `position`] past the event's rank in it, then after `position`.
 */
export interface Resume {
  readonly position: Position
  readonly within?: { readonly from: Position, readonly rank: number } | undefined
}

export interface OpenedChangeToken {
  readonly resume: Resume
  /** When the token was issued (ms since the epoch). */
  readonly issuedAt: number
}

export interface ChangeTokens {
  encode (resource: string, resume: Resume): string
  /** The position a token of this resource holds, or a 400 invalid-parameter problem naming `parameter`. */
  open (resource: string, token: string, parameter: string): OpenedChangeToken
  /** The opaque id one transaction's changes share. */
  batchOf (tx: bigint): string
}

interface Plaintext { r?: unknown, p?: unknown, w?: unknown, k?: unknown, t?: unknown }

const POSITION = /^([0-9]{1,20})\.([0-9]{1,19})$/

function positionText (position: Position): string {
  return `${position.tx}.${position.id}`
}

function positionOf (text: unknown): Position | undefined {
  const match = typeof text === 'string' ? POSITION.exec(text) : null
  return match === null ? undefined : { tx: BigInt(match[1]!), id: BigInt(match[2]!) }
}

export function changeTokens (key: KeyObject, now: () => number = Date.now): ChangeTokens {
  const nextIv = pooledIvs()
  return {
    encode: (resource, { position, within }) => encrypt(key, JSON.stringify({
      r: resource,
      p: positionText(position),
      ...(within === undefined ? {} : { w: positionText(within.from), k: within.rank }),
      t: now(),
    }), nextIv),
    open: (resource, token, parameter) => {
      const refused = (): never => invalidParameter(parameter, `${parameter} is not a change token this server issued for ${resource}: start again without one.`)
      let plain: Plaintext
      try {
        plain = JSON.parse(decrypt(key, token)) as Plaintext
      } catch {
        return refused()
      }
      const position = positionOf(plain.p)
      if (plain.r !== resource || position === undefined || typeof plain.t !== 'number') return refused()
      if (plain.w === undefined) return { resume: { position }, issuedAt: plain.t }
      const from = positionOf(plain.w)
      if (from === undefined || !Number.isSafeInteger(plain.k)) return refused()
      return { resume: { position, within: { from, rank: plain.k as number } }, issuedAt: plain.t }
    },
    batchOf: (tx) => createHmac('sha256', key).update(String(tx)).digest('base64url').slice(0, 22),
  }
}
