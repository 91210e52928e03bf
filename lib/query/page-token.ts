// Keyset page tokens: opaque, HMAC-signed, and bound to the request shape (resource, order,
// show_deleted, and later the filter), so a token replayed with other parameters is refused.
import { createHmac, timingSafeEqual } from 'node:crypto'
import { problem } from '../problems.js'

export interface PageTokens {
  encode (shape: string, after: readonly string[]): string
  /** The order values a token carries, or a 400 invalid-parameter problem. */
  decode (shape: string, token: string): string[]
}

function invalid (detail: string): never {
  throw problem('invalid-parameter', detail, { errors: [{ parameter: 'page_token', message: detail }] })
}

export function pageTokens (key: Buffer): PageTokens {
  const sign = (payload: string): Buffer => createHmac('sha256', key).update(payload).digest().subarray(0, 16)
  return {
    encode: (shape, after) => {
      const payload = Buffer.from(JSON.stringify({ s: shape, a: after })).toString('base64url')
      return `${payload}.${sign(payload).toString('base64url')}`
    },
    decode: (shape, token) => {
      const [payload, signature, extra] = token.split('.')
      if (payload === undefined || signature === undefined || extra !== undefined) invalid('page_token is not a token this server issued.')
      const expected = sign(payload)
      const given = Buffer.from(signature, 'base64url')
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) invalid('page_token is not a token this server issued.')
      const body = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { s: string, a: string[] }
      if (body.s !== shape) invalid('page_token belongs to a list with other parameters: send the same filter, order_by and show_deleted as the first page.')
      return body.a
    },
  }
}
