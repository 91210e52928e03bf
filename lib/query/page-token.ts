// Keyset page tokens: encrypted and authenticated (AES-256-GCM), so they are opaque — the order
// values they carry may be of fields a caller cannot read — and tamper-proof. Each is bound to the
// list it continues (resource, filter, order, show_deleted: plan/read.ts pageTokenBinding): a
// token replayed with other parameters is refused.
import { invalidParameter } from './params.js'
import { decrypt, encrypt } from '../crypto.js'
import { BoundedCache } from '../cache.js'

export interface PageTokens {
  encode (binding: string, after: readonly (string | null)[]): string
  /** The order values a token carries, or a 400 invalid-parameter problem. */
  decode (binding: string, token: string): Array<string | null>
}

export function pageTokens (key: Buffer): PageTokens {
  // The same page, served again, ends at the same row: its token is reused rather than encrypted
  // anew (7 µs). Only an identical plaintext ever meets its own IV again, which reveals nothing
  // the identical token does not. Tokens that decrypted are kept the same way: a token that
  // fails is never kept, and a changed token is another key.
  const issued = new BoundedCache<string>(10_000)
  const opened = new BoundedCache<string>(10_000)
  return {
    encode: (binding, after) => {
      const plaintext = JSON.stringify({ s: binding, a: after })
      return issued.getOrCreate(plaintext, () => encrypt(key, plaintext).slice('v1.'.length))
    },
    decode: (binding, token) => {
      let body: { s?: unknown, a?: unknown }
      try {
        body = JSON.parse(opened.getOrCreate(token, () => decrypt(key, `v1.${token}`))) as { s?: unknown, a?: unknown }
      } catch {
        return invalidParameter('page_token', 'page_token is not a token this server issued.')
      }
      if (body.s !== binding || !Array.isArray(body.a)) {
        invalidParameter('page_token', 'page_token belongs to a list with other parameters: send the same filter, order_by and show_deleted as the first page.')
      }
      return (body.a as unknown[]).map((v) => v === null ? null : String(v))
    },
  }
}
