// Keys derived from AUTH_SECRET, one per purpose (the cookie signer never shares a key with the
// encryption of the signing keys), and AES-256-GCM for what must stay opaque (signing keys at
// rest, page tokens). A leaf: it knows nothing of auth or queries.
import { hkdfSync, createCipheriv, createDecipheriv, createSecretKey, randomBytes, type KeyObject } from 'node:crypto'

export type KeyPurpose = 'cookie' | 'key-encryption' | 'page-token' | 'etag' | 'change-token'

/**
 * A key object, not a Buffer: Node 24 tells a Buffer key from a KeyObject and a CryptoKey by
 * letting two native checks throw, which made an AES-GCM encryption cost 14 µs instead of 3.5 µs
 * and an HMAC 14 µs instead of 2.3 µs (Node 20 and 22: the same either way).
 */
export function deriveKey (secret: string, purpose: KeyPurpose): KeyObject {
  return createSecretKey(Buffer.from(hkdfSync('sha256', secret, 'tablegate', purpose, 32)))
}

const IV_BYTES = 12

/** Where an encryption takes its IV from: each call gives 12 random bytes never given before. */
export type IvSource = () => Buffer

const randomIv: IvSource = () => randomBytes(IV_BYTES)

/**
 * Random IVs cut from a buffer of 1,024 of them: one call into the system's random source per
 * 1,024 encryptions, where one per page token cost 13 µs of a list page whose filter is new. Each
 * refill is a new buffer, so an IV handed out is never overwritten.
 */
export function pooledIvs (): IvSource {
  const size = 1024 * IV_BYTES
  let pool = Buffer.alloc(0)
  let offset = 0
  return () => {
    if (offset + IV_BYTES > pool.length) {
      pool = randomBytes(size)
      offset = 0
    }
    offset += IV_BYTES
    return pool.subarray(offset - IV_BYTES, offset)
  }
}

/** AES-256-GCM with a fresh random IV; the text form is `v1.<iv>.<tag>.<ciphertext>` in base64url. */
export function encrypt (key: KeyObject, plaintext: string, nextIv: IvSource = randomIv): string {
  const iv = nextIv()
  const cipher = createCipheriv('aes-256-gcm', key, iv)
  const body = cipher.update(plaintext, 'utf8').toString('base64url')
  // GCM is a stream mode: final() adds no bytes, it computes the tag.
  cipher.final()
  return `v1.${iv.toString('base64url')}.${cipher.getAuthTag().toString('base64url')}.${body}`
}

export function decrypt (key: KeyObject, text: string): string {
  const [version, iv, tag, body] = text.split('.')
  if (version !== 'v1' || iv === undefined || tag === undefined || body === undefined) throw new Error('unknown encrypted key format')
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'))
  decipher.setAuthTag(Buffer.from(tag, 'base64url'))
  return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8')
}
