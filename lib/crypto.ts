// Keys derived from AUTH_SECRET, one per purpose (the cookie signer never shares a key with the
// encryption of the signing keys), and AES-256-GCM for what must stay opaque (signing keys at
// rest, page tokens). A leaf: it knows nothing of auth or queries.
import { hkdfSync, createCipheriv, createDecipheriv, randomBytes } from 'node:crypto'

export type KeyPurpose = 'cookie' | 'key-encryption' | 'page-token' | 'etag'

export function deriveKey (secret: string, purpose: KeyPurpose): Buffer {
  return Buffer.from(hkdfSync('sha256', secret, 'tablegate', purpose, 32))
}

const IV_BYTES = 12

/** AES-256-GCM with a fresh random IV; the text form is `v1.<iv>.<tag>.<ciphertext>` in base64url. */
export function encrypt (key: Buffer, plaintext: string): string {
  const iv = randomBytes(IV_BYTES)
  const cipher = createCipheriv('aes-256-gcm', key, iv)
  const body = cipher.update(plaintext, 'utf8').toString('base64url')
  // GCM is a stream mode: final() adds no bytes, it computes the tag.
  cipher.final()
  return `v1.${iv.toString('base64url')}.${cipher.getAuthTag().toString('base64url')}.${body}`
}

export function decrypt (key: Buffer, text: string): string {
  const [version, iv, tag, body] = text.split('.')
  if (version !== 'v1' || iv === undefined || tag === undefined || body === undefined) throw new Error('unknown encrypted key format')
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'))
  decipher.setAuthTag(Buffer.from(tag, 'base64url'))
  return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8')
}
